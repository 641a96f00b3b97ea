/*
 * ms-fixture: a process with known memory mappings, for the tests.
 *
 * Usage: ms-fixture DIR     (DIR must exist and be writable)
 *
 * It makes its mappings inside one reserved area, with unmapped gaps between
 * them so that none can merge with a neighbour, then describes each on
 * stdout, one line per mapping:
 *
 *   map KIND START END PERMS OFFSET NAMEHEX
 *
 * addresses and offset in hex without 0x, PERMS as in /proc/PID/maps,
 * NAMEHEX the name the kernel will report, hex-encoded ("-" for none).
 * KIND is one of anon-rw, file-rx, file-shared, guard, anon-named,
 * deleted, space, newline, escape, long, extra.  A line "skip anon-named
 * REASON" says the kernel refused PR_SET_VMA_ANON_NAME.  A line "sym NAME
 * ADDR" gives where the loader put a known symbol of libms-fixture-sym.so.
 * Then "ready PID".
 *
 * Commands on stdin, one per line, each answered by "ok" (or "err WHY"):
 *   mapfile NAME   create DIR/NAME (4 pages) and map it read-only
 *                  (answered first by its "map extra ..." line)
 *   unmap START    unmap the fixture mapping that starts at START (hex)
 *   exec           exec this program again (a new image with the same PID)
 *   dlopen LIB SYM dlopen LIB (a path) and answer first "sym SYM ADDR", where
 *                  SYM is in it
 *   dlclose        dlclose the library the last dlopen opened
 *   brk BYTES      grow the heap by BYTES (decimal) with sbrk, so [heap] grows
 *                  in place whatever malloc would do
 * Changes the model-based test makes at random, inside one area it is given
 * (ADDR, NEWADDR hex; PAGES, OFF decimal; PROT a subset of "rwx", "-" none):
 *   churn PAGES    reserve PAGES pages for them (answered first by a line
 *                  "map churn START END ---p 0 -" naming the area, which is
 *                  left unmapped)
 *   anon ADDR PAGES PROT            map anonymous private memory there
 *   file ADDR PAGES PROT OFF        map DIR/churn.dat (PROT_NONE..rwx) from page OFF
 *   unmapat ADDR PAGES              munmap
 *   protect ADDR PAGES PROT         mprotect
 *   remap ADDR PAGES NEWADDR NEWPAGES   mremap, moved when NEWADDR differs
 * A call the kernel refuses answers "err" with its reason.
 *   exit           exit with status 0
 * SIGUSR1 does what "mapfile extra-N.dat" does, for tests that cannot write
 * to stdin (the terminal tests).  At end of input the process waits for
 * signals until killed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

#define SLOTS 64

static const char *dir;
static char *area;
static long page;
static int next_slot;
static volatile sig_atomic_t usr1_pending;
static int extra_count;

static void die(const char *what)
{
	fprintf(stderr, "ms-fixture: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void put_hex_name(const char *name)
{
	if (!name || !*name) {
		fputs("-", stdout);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		printf("%02x", *p);
}

static void describe(const char *kind, void *start, size_t len, const char *perms,
		     unsigned long offset, const char *name)
{
	printf("map %s %lx %lx %s %lx ", kind, (unsigned long)start,
	       (unsigned long)start + len, perms, offset);
	put_hex_name(name);
	putchar('\n');
	fflush(stdout);
}

/* The next free slot: 4 pages of room, then a page of gap. */
static char *slot(void)
{
	char *p;

	if (next_slot == SLOTS) {
		errno = ENOSPC;
		die("out of slots");
	}
	p = area + (size_t)next_slot * 5 * page;
	next_slot++;
	return p;
}

static char *make_file(const char *name, size_t pages)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		die("asprintf");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	if (ftruncate(fd, (off_t)(pages * page)) < 0)
		die("ftruncate");
	close(fd);
	return path;
}

static void *map_file_at(char *where, const char *path, size_t pages, int prot,
			 int flags, off_t offset)
{
	int fd = open(path, (prot & PROT_WRITE) && (flags & MAP_SHARED) ? O_RDWR : O_RDONLY);
	void *p;

	if (fd < 0)
		die(path);
	p = mmap(where, pages * page, prot, flags | MAP_FIXED, fd, offset);
	if (p == MAP_FAILED)
		die("mmap file");
	close(fd);
	return p;
}

static void map_named_file(const char *kind, const char *name, int prot, const char *perms)
{
	char *path = make_file(name, 2);
	char *p = map_file_at(slot(), path, 1, prot, MAP_PRIVATE, 0);

	describe(kind, p, (size_t)page, perms, 0, path);
	free(path);
}

static void map_extra(const char *name)
{
	char *path = make_file(name, 4);
	char *p = map_file_at(slot(), path, 4, PROT_READ, MAP_PRIVATE, 0);

	describe("extra", p, 4 * (size_t)page, "r--p", 0, path);
	free(path);
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_pending = 1;
}

static void handle_signals(void)
{
	char name[64];

	while (usr1_pending) {
		usr1_pending = 0;
		snprintf(name, sizeof(name), "extra-%d.dat", ++extra_count);
		map_extra(name);
	}
}

static void build(void)
{
	char *p, *path, longname[512], longdir[PATH_MAX];
	size_t n;

	/* One reservation keeps our mappings together and away from others. */
	area = mmap(NULL, (size_t)SLOTS * 5 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("reserve");
	munmap(area, (size_t)SLOTS * 5 * page);

	p = mmap(slot(), 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		die("anon");
	memset(p, 1, 2 * page);
	describe("anon-rw", p, 2 * (size_t)page, "rw-p", 0, NULL);

	path = make_file("code.bin", 3);
	p = map_file_at(slot(), path, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, page);
	describe("file-rx", p, (size_t)page, "r-xp", (unsigned long)page, path);
	free(path);

	path = make_file("shared.dat", 2);
	p = map_file_at(slot(), path, 2, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	describe("file-shared", p, 2 * (size_t)page, "rw-s", 0, path);
	free(path);

	p = mmap(slot(), page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		die("guard");
	describe("guard", p, (size_t)page, "---p", 0, NULL);

	p = mmap(slot(), page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		die("anon-named");
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, page, "ms-fixture") == 0) {
		describe("anon-named", p, (size_t)page, "rw-p", 0, "[anon:ms-fixture]");
	} else {
		printf("skip anon-named prctl(PR_SET_VMA_ANON_NAME): %s\n", strerror(errno));
		/* Still a distinct anonymous mapping: describe it as one. */
		describe("anon-rw", p, (size_t)page, "rw-p", 0, NULL);
	}

	path = make_file("doomed.dat", 1);
	p = map_file_at(slot(), path, 1, PROT_READ, MAP_PRIVATE, 0);
	if (unlink(path) < 0)
		die("unlink");
	{
		char *shown;

		if (asprintf(&shown, "%s (deleted)", path) < 0)
			die("asprintf");
		describe("deleted", p, (size_t)page, "r--p", 0, shown);
		free(shown);
	}
	free(path);

	map_named_file("space", "with space.dat", PROT_READ, "r--p");
	map_named_file("newline", "new\nline.dat", PROT_READ, "r--p");
	map_named_file("escape", "\x1b[31mred\x1b[0m.dat", PROT_READ, "r--p");

	/* A path over 300 bytes: a long directory and a long file name. */
	memset(longname, 'd', 200);
	longname[200] = '\0';
	snprintf(longdir, sizeof(longdir), "%s/%s", dir, longname);
	if (mkdir(longdir, 0755) < 0 && errno != EEXIST)
		die("mkdir long");
	n = 200;
	longname[n++] = '/';
	memset(longname + n, 'f', 150);
	strcpy(longname + n + 150, ".dat");
	map_named_file("long", longname, PROT_READ, "r--p");
}

static int parse_prot(const char *s)
{
	int prot = PROT_NONE;

	prot |= strchr(s, 'r') ? PROT_READ : 0;
	prot |= strchr(s, 'w') ? PROT_WRITE : 0;
	prot |= strchr(s, 'x') ? PROT_EXEC : 0;
	return prot;
}

#define CHURN_FILE_PAGES 64

/* The churn commands; 1 when line was one of them (answered), 0 if not. */
static int churn_command(const char *line)
{
	unsigned long addr, pages, naddr, npages, off;
	char prot[8];
	int rc = 0;
	void *p;

	if (sscanf(line, "churn %lu", &pages) == 1) {
		char *path = make_file("churn.dat", CHURN_FILE_PAGES);

		free(path);
		p = mmap(NULL, pages * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			rc = -1;
		else
			munmap(p, pages * page);
		if (!rc)
			describe("churn", p, pages * page, "---p", 0, NULL);
	} else if (sscanf(line, "anon %lx %lu %7s", &addr, &pages, prot) == 3) {
		p = mmap((void *)addr, pages * page, parse_prot(prot),
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		rc = p == MAP_FAILED ? -1 : 0;
	} else if (sscanf(line, "file %lx %lu %7s %lu", &addr, &pages, prot, &off) == 4) {
		char *path;

		if (asprintf(&path, "%s/churn.dat", dir) < 0)
			die("asprintf");
		if (off + pages > CHURN_FILE_PAGES) {
			errno = EINVAL;
			rc = -1;
		} else {
			int fd = open(path, O_RDONLY | O_CLOEXEC);

			p = fd < 0 ? MAP_FAILED : mmap((void *)addr, pages * page, parse_prot(prot),
							MAP_PRIVATE | MAP_FIXED, fd, (off_t)(off * page));
			rc = p == MAP_FAILED ? -1 : 0;
			if (fd >= 0)
				close(fd);
		}
		free(path);
	} else if (sscanf(line, "unmapat %lx %lu", &addr, &pages) == 2) {
		rc = munmap((void *)addr, pages * page);
	} else if (sscanf(line, "protect %lx %lu %7s", &addr, &pages, prot) == 3) {
		rc = mprotect((void *)addr, pages * page, parse_prot(prot));
	} else if (sscanf(line, "remap %lx %lu %lx %lu", &addr, &pages, &naddr, &npages) == 4) {
		p = naddr == addr ? mremap((void *)addr, pages * page, npages * page, 0)
				  : mremap((void *)addr, pages * page, npages * page,
					   MREMAP_MAYMOVE | MREMAP_FIXED, (void *)naddr);
		rc = p == MAP_FAILED ? -1 : 0;
	} else {
		return 0;
	}
	if (rc < 0)
		printf("err %s\n", strerror(errno));
	else
		printf("ok\n");
	fflush(stdout);
	return 1;
}

static void *dl_handle;

/* "LIB SYM": open LIB, say where SYM is.  0, or -1 having said "err". */
static int dl_open(char *args)
{
	char *sym = strchr(args, ' ');
	void *addr;

	if (!sym || dl_handle) {
		printf("err dlopen: %s\n", sym ? "one library at a time" : "usage: dlopen LIB SYM");
		fflush(stdout);
		return -1;
	}
	*sym++ = '\0';
	dl_handle = dlopen(args, RTLD_NOW | RTLD_LOCAL);
	if (!dl_handle || !(addr = dlsym(dl_handle, sym))) {
		printf("err dlopen: %s\n", dlerror());
		fflush(stdout);
		if (dl_handle)
			dlclose(dl_handle);
		dl_handle = NULL;
		return -1;
	}
	printf("sym %s %lx\n", sym, (unsigned long)(uintptr_t)addr);
	return 0;
}

static void command(char *line)
{
	unsigned long start;

	line[strcspn(line, "\n")] = '\0';
	if (churn_command(line))
		return;
	if (!strncmp(line, "mapfile ", 8)) {
		map_extra(line + 8);
	} else if (!strncmp(line, "unmap ", 6)) {
		start = strtoul(line + 6, NULL, 16);
		if (munmap((void *)start, (size_t)page) < 0) {
			printf("err %s\n", strerror(errno));
			fflush(stdout);
			return;
		}
	} else if (!strncmp(line, "dlopen ", 7)) {
		if (dl_open(line + 7) < 0)
			return;
	} else if (!strcmp(line, "dlclose")) {
		if (!dl_handle || dlclose(dl_handle) != 0) {
			printf("err dlclose: %s\n", dl_handle ? dlerror() : "nothing open");
			fflush(stdout);
			return;
		}
		dl_handle = NULL;
	} else if (!strncmp(line, "brk ", 4)) {
		if (sbrk((intptr_t)strtol(line + 4, NULL, 10)) == (void *)-1) {
			printf("err brk: %s\n", strerror(errno));
			fflush(stdout);
			return;
		}
	} else if (!strcmp(line, "exec")) {
		fflush(stdout);
		execl("/proc/self/exe", "ms-fixture", dir, (char *)NULL);
		printf("err exec: %s\n", strerror(errno));
		fflush(stdout);
		return;
	} else if (!strcmp(line, "exit")) {
		exit(0);
	} else {
		printf("err unknown command\n");
		fflush(stdout);
		return;
	}
	printf("ok\n");
	fflush(stdout);
}

/* From libms-fixture-sym.so: linked so the symbol tests find a known symbol. */
uint64_t ms_fixture_sym_target(uint64_t x);

int main(int argc, char **argv)
{
	struct sigaction sa;
	char line[4096];
	size_t len = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ms-fixture DIR\n");
		return 2;
	}
	dir = argv[1];
	/*
	 * Gone with the test that started it, however that ends: a shell's
	 * background job ignores the Ctrl-C that stops make check, and a
	 * fixture left behind is one more process for the next run's walks.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: a read wakes up */

	build();
	if (ms_fixture_sym_target((uint64_t)argc) == 0)
		fprintf(stderr, "ms-fixture: the symbol library answered 0\n");
	/* Where the loader put the known symbol, for the symbol tests. */
	printf("sym ms_fixture_sym_target %lx\n", (unsigned long)(uintptr_t)ms_fixture_sym_target);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);

	for (;;) {
		ssize_t n;

		handle_signals();
		n = read(STDIN_FILENO, line + len, sizeof(line) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		line[len] = '\0';
		for (char *nl; (nl = memchr(line, '\n', len));) {
			size_t used = (size_t)(nl - line) + 1;
			char cmd[4096];

			memcpy(cmd, line, used);
			cmd[used] = '\0';
			memmove(line, line + used, len - used);
			len -= used;
			command(cmd);
		}
		if (len == sizeof(line) - 1)
			len = 0;
	}
	for (;;) {
		pause();
		handle_signals();
	}
}
