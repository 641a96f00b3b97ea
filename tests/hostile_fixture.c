/*
 * ms-hostile: a process whose file names, command line and command name
 * are made to attack a terminal, for the hostile-input tests.
 *
 * Usage: ms-hostile DIR    (DIR must exist and be writable)
 *
 * It first re-executes itself so that its own command line carries the
 * hostile strings (argv: ms-hostile DIR --hostile NAME...), and sets its
 * command name (comm) to an escape sequence.  Then, for each hostile name,
 * it creates DIR/NAME and maps it read+exec, and creates DIR/NAME-gone,
 * maps it and unlinks it (so `stale` reports it deleted, with the kernel's
 * " (deleted)" after the hostile bytes).  One name is a path of 4,000 bytes
 * through nested directories; one file is literally called "... (deleted)"
 * and is not deleted.  Each mapping is described on stdout:
 *
 *   map KIND START END PERMS OFFSET NAMEHEX
 *
 * as tests/fixture.c does (KIND is the name's label, or LABEL-gone), then
 * "ready PID".  With MS_HOSTILE_MANY=N in the environment it first makes N
 * more single-page anonymous mappings that cannot merge (alternating
 * permissions), for the tests of a process near vm.max_map_count.
 * Three more, for the bounds tests (each mapping one page read+exec, the
 * descriptors closed at once, so RLIMIT_NOFILE does not matter):
 *   - MS_HOSTILE_FILES=N: N distinct files DIR/many/N;
 *   - MS_HOSTILE_LINKS=N: N hard links DIR/links/N to one inode;
 *   - MS_HOSTILE_LONG=N: N files whose paths are about 3.8 KB of control
 *     bytes (nested directories of 250 such bytes each).
 * These print no "map" lines.  Commands on stdin: "exit" (answered "ok")
 * ends it; at end of input it waits for signals until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	const char *label;
	const char *name;
} hostile[] = {
	{ "csi", "csi-\x1b[31mRED\x1b[0m\x1b[2J" },
	{ "osc52", "osc52-\x1b]52;c;cm0gLXJmIC8K\x07" },
	{ "osc-st", "osc-\x1b]0;title\x1b\\" },
	{ "bel", "bel-\x07\x07" },
	{ "cr", "cr-\rOVERWRITE" },
	{ "newline", "nl-\nsecond line" },
	/* What the maps text prints for "newline", but these are four bytes. */
	{ "newline-text", "nl-\\012second line" },
	{ "c1", "c1-\xc2\x9b" "31m-\x9b" "32m-\x85" },
	{ "bidi", "bidi-\xe2\x80\xae" "fdp.exe\xe2\x81\xa6" },
	{ "badutf8", "bad-\xff\xfe\xc0\xaf\xed\xa0\x80" },
	{ "deleted-literal", "really (deleted)" },
	/* Two names that would look alike if the escape were not reversible. */
	{ "twin-raw", "twin-\x1b" },
	{ "twin-text", "twin-\\x1b" },
};

/* The long one: nested 200-byte directories, 4,000 bytes in all. */
#define LONG_PATH_LEN 4000

static void hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		printf("%02x", (unsigned char)s[i]);
}

static int map_file(const char *path, const char *kind, int unlink_it)
{
	char buf[4096];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	void *p;

	if (fd < 0)
		return -1;
	memset(buf, 0xc3, sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, sizeof(buf), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	if (unlink_it && unlink(path) < 0)
		return -1;
	printf("map %s %lx %lx r-xp 0 ", kind, (unsigned long)p,
	       (unsigned long)p + sizeof(buf));
	hex(path, strlen(path));
	if (unlink_it)
		printf("%s", "202864656c6574656429"); /* " (deleted)" */
	printf("\n");
	return 0;
}

/* DIR/long/aaaa.../aaaa.../f with the whole path LONG_PATH_LEN bytes. */
static int make_long(const char *dir, char *out, size_t size)
{
	size_t len;

	if (snprintf(out, size, "%s/long", dir) >= (int)size || mkdir(out, 0755) < 0)
		return -1;
	for (;;) {
		len = strlen(out);
		size_t left = LONG_PATH_LEN - len - 1;

		if (left <= 200) {
			out[len] = '/';
			memset(out + len + 1, 'f', left);
			out[len + 1 + left] = '\0';
			return 0;
		}
		out[len] = '/';
		memset(out + len + 1, 'd', 199);
		out[len + 200] = '\0';
		if (mkdir(out, 0755) < 0)
			return -1;
	}
}

static int make_many(size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, (size_t)page * n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return -1;
	for (size_t i = 1; i < n; i += 2)
		if (mprotect(base + (size_t)page * i, (size_t)page, PROT_READ | PROT_WRITE) < 0)
			return -1;
	return 0;
}

/* Map one page of path read+exec. */
static int map_page(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -1;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? -1 : 0;
}

/* DIR/SUB, then with depth > 0 that many nested directories of control bytes. */
static int make_base(const char *dir, const char *sub, int depth, char *out, size_t size)
{
	char comp[251];

	if (snprintf(out, size, "%s/%s", dir, sub) >= (int)size || mkdir(out, 0755) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(comp) - 1; i++)
		comp[i] = (char)(1 + i % 31); /* 0x01..0x1f: never '/' nor NUL */
	comp[sizeof(comp) - 1] = '\0';
	for (int d = 0; d < depth; d++) {
		size_t len = strlen(out);

		if (len + sizeof(comp) + 1 >= size)
			return -1;
		out[len] = '/';
		memcpy(out + len + 1, comp, sizeof(comp));
		if (mkdir(out, 0755) < 0)
			return -1;
	}
	return 0;
}

/* n mapped files under DIR/SUB (nested depth deep); links: n names of one inode. */
static int make_files(const char *dir, const char *sub, int depth, size_t n, int links)
{
	char base[LONG_PATH_LEN + 64], path[LONG_PATH_LEN + 96], first[LONG_PATH_LEN + 96];
	char page[4096];
	int fd;

	if (make_base(dir, sub, depth, base, sizeof(base)) < 0)
		return -1;
	memset(page, 0xc3, sizeof(page));
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu", base, i);
		if (links && i > 0) {
			if (link(first, path) < 0)
				return -1;
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0)
				return -1;
			if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
				close(fd);
				return -1;
			}
			close(fd);
			snprintf(first, sizeof(first), "%s", path);
		}
		if (map_page(path) < 0)
			return -1;
	}
	return 0;
}

static int make_bounds_cases(const char *dir)
{
	static const struct {
		const char *env, *sub;
		int depth, links;
	} cases[] = {
		{ "MS_HOSTILE_FILES", "many", 0, 0 },
		{ "MS_HOSTILE_LINKS", "links", 0, 1 },
		{ "MS_HOSTILE_LONG", "long-names", 15, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *v = getenv(cases[i].env);

		if (v && make_files(dir, cases[i].sub, cases[i].depth, strtoul(v, NULL, 10),
				    cases[i].links) < 0) {
			printf("err %s: %s\n", cases[i].env, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int run(const char *dir)
{
	const char *many = getenv("MS_HOSTILE_MANY");
	char path[LONG_PATH_LEN + 64], gone[PATH_MAX];
	char line[64];

	/* A command name ESC [ 7 m: comm is 15 bytes at most (TASK_COMM_LEN). */
	if (prctl(PR_SET_NAME, "\x1b[7m\x07host\x1b]0;x") < 0)
		return -1;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char gone_kind[64];

		snprintf(path, sizeof(path), "%s/%s", dir, hostile[i].name);
		snprintf(gone, sizeof(gone), "%s/%s-gone", dir, hostile[i].name);
		snprintf(gone_kind, sizeof(gone_kind), "%s-gone", hostile[i].label);
		if (map_file(path, hostile[i].label, 0) < 0 || map_file(gone, gone_kind, 1) < 0) {
			printf("err %s: %s\n", hostile[i].label, strerror(errno));
			return -1;
		}
	}
	if (make_long(dir, path, sizeof(path)) < 0 || map_file(path, "long", 0) < 0) {
		printf("err long: %s\n", strerror(errno));
		return -1;
	}
	if (many && make_many(strtoul(many, NULL, 10)) < 0) {
		printf("err many: %s\n", strerror(errno));
		return -1;
	}
	if (make_bounds_cases(dir) < 0)
		return -1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "exit\n")) {
			printf("ok\n");
			fflush(stdout);
			return 0;
		}
		printf("err unknown command\n");
		fflush(stdout);
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	size_t n = sizeof(hostile) / sizeof(hostile[0]);
	char **again;

	if (argc < 2) {
		fprintf(stderr, "usage: ms-hostile DIR\n");
		return 2;
	}
	if (argc >= 3 && !strcmp(argv[2], "--hostile"))
		return run(argv[1]) < 0 ? 1 : 0;
	/* Re-execute with the hostile strings in the command line. */
	again = calloc(n + 4, sizeof(*again));
	if (!again)
		return 1;
	again[0] = argv[0];
	again[1] = argv[1];
	again[2] = (char *)"--hostile";
	for (size_t i = 0; i < n; i++)
		again[3 + i] = (char *)hostile[i].name;
	execv("/proc/self/exe", again);
	perror("ms-hostile: exec");
	return 1;
}
