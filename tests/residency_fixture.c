/*
 * ms-residency-fixture: a process whose pages are in known states, for the
 * residency tests.  It speaks the protocol of tests/ms-fixture (see
 * fixture_client.h): "map KIND START END PERMS OFFSET NAMEHEX" lines, then
 * "ready PID"; stdin commands "exit", "grow" (writes the last 3 pages of
 * anon-written too, so all 8 are resident; answers "ok") and anything else
 * answers "err".
 *
 * Usage: ms-residency-fixture DIR
 *
 * Kinds (P = the page size):
 *   anon-written   8P private anonymous, the first 5 pages written
 *   anon-read      8P private anonymous, 3 pages only read: the zero page
 *                  where the kernel uses it (some allocate real pages)
 *   anon-untouched 8P private anonymous, never touched
 *   file-partial   a 64P sparse file mapped private, 2 pages read
 *                  (MADV_RANDOM, so the kernel reads no pages around them)
 *   shared-written 4P shared anonymous (shmem), 2 pages written
 *   striped        64P private anonymous, every other page written: 32
 *                  separate resident runs, to make the scan's output long
 *   thp-written    4 MiB with MADV_HUGEPAGE, the first 2 MiB written
 *   thp-read       2 MiB with MADV_HUGEPAGE, only read (the huge zero page
 *                  where the kernel uses it)
 * The small mappings sit one page apart so none merges with a neighbour;
 * the huge ones are 2 MiB aligned.  After "ready" it touches nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_SIZE (2ul * 1024 * 1024)

static long page;
static char *cursor;
static char *anon_written;
static volatile char sink;

static void die(const char *what)
{
	fprintf(stderr, "ms-residency-fixture: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void describe(const char *kind, const void *start, size_t len, const char *perms,
		     const char *name)
{
	printf("map %s %lx %lx %s 0 ", kind, (unsigned long)start, (unsigned long)start + len, perms);
	if (!name)
		fputs("-", stdout);
	for (const unsigned char *p = (const unsigned char *)name; p && *p; p++)
		printf("%02x", *p);
	putchar('\n');
}

/* The next small mapping's place: pages of room, then a page of gap. */
static char *take(size_t pages)
{
	char *p = cursor;

	cursor += (pages + 1) * (size_t)page;
	return p;
}

static char *anon_at(char *where, size_t len, int flags)
{
	char *p = mmap(where, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void small_kinds(const char *dir)
{
	char *p, *path;
	int fd;

	p = anon_at(take(8), 8 * (size_t)page, MAP_PRIVATE);
	memset(p, 1, 5 * (size_t)page);
	anon_written = p;
	describe("anon-written", p, 8 * (size_t)page, "rw-p", NULL);

	p = anon_at(take(8), 8 * (size_t)page, MAP_PRIVATE);
	for (int i = 0; i < 3; i++)
		sink = p[i * 2 * page];
	describe("anon-read", p, 8 * (size_t)page, "rw-p", NULL);

	p = anon_at(take(8), 8 * (size_t)page, MAP_PRIVATE);
	describe("anon-untouched", p, 8 * (size_t)page, "rw-p", NULL);

	if (asprintf(&path, "%s/partial.dat", dir) < 0)
		die("asprintf");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 64 * page) < 0)
		die(path);
	p = mmap(take(64), 64 * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap file");
	close(fd);
	if (madvise(p, 64 * (size_t)page, MADV_RANDOM) < 0)
		die("madvise random");
	sink = p[0];
	sink = p[40 * page];
	describe("file-partial", p, 64 * (size_t)page, "r--p", path);
	free(path);

	p = anon_at(take(4), 4 * (size_t)page, MAP_SHARED);
	memset(p, 2, 2 * (size_t)page);
	describe("shared-written", p, 4 * (size_t)page, "rw-s", "/dev/zero (deleted)");

	p = anon_at(take(64), 64 * (size_t)page, MAP_PRIVATE);
	for (int i = 0; i < 64; i += 2)
		p[i * page] = 1;
	describe("striped", p, 64 * (size_t)page, "rw-p", NULL);
}

static char *huge_aligned(size_t len)
{
	char *raw = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	if (raw == MAP_FAILED)
		die("mmap huge");
	at = ((uintptr_t)raw + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	if (at > (uintptr_t)raw)
		munmap(raw, at - (uintptr_t)raw);
	munmap((char *)at + len, (uintptr_t)raw + HUGE_SIZE - at);
	/* Not supported everywhere; the tests compare with smaps either way. */
	madvise((char *)at, len, MADV_HUGEPAGE);
	return (char *)at;
}

static void huge_kinds(void)
{
	char *p = huge_aligned(2 * HUGE_SIZE);

	memset(p, 3, HUGE_SIZE);
	describe("thp-written", p, 2 * HUGE_SIZE, "rw-p", NULL);
	p = huge_aligned(HUGE_SIZE);
	sink = p[0];
	describe("thp-read", p, HUGE_SIZE, "rw-p", NULL);
}

int main(int argc, char **argv)
{
	char line[256];
	size_t room;

	if (argc != 2) {
		fprintf(stderr, "usage: ms-residency-fixture DIR\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	room = 256 * (size_t)page;
	/*
	 * The reservation stays: its PROT_NONE gaps keep anything else (the
	 * allocator of a sanitizer build, say) from landing next to a mapping
	 * and merging with it.
	 */
	cursor = mmap(NULL, room, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cursor == MAP_FAILED)
		die("reserve");
	/* A gap below the first mapping too: the reservation may follow an rw-p one. */
	cursor += page;
	small_kinds(argv[1]);
	huge_kinds();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "exit\n"))
			return 0;
		if (!strcmp(line, "grow\n")) {
			memset(anon_written + 5 * page, 4, 3 * (size_t)page);
			printf("ok\n");
			fflush(stdout);
			continue;
		}
		printf("err unknown command\n");
		fflush(stdout);
	}
	for (;;)
		pause();
}
