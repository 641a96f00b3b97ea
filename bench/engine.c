/*
 * ms-bench-engine: in-process timings of the mapping engine, for make bench.
 *
 * Usage: ms-bench-engine PID REPS
 *        ms-bench-engine PID once
 *        ms-bench-engine probe PID...
 *        ms-bench-engine probe-verdict PID...
 *        ms-bench-engine probe-stale PID...
 *        ms-bench-engine read-lists DPKGDIR
 *
 * With "once" it makes the filtered loop of `list --file-backed --perms=x`
 * one time and prints the count: the bare loop as a command, which pays
 * exec like mapscope and pmap but loads no library beyond libc.  With
 * "start" it exits at once: the start-up of that command, to set beside
 * `mapscope --help`.
 *
 * With "probe" it does for each PID the least a stale verdict needs (open
 * /proc/PID, open maps from it, walk the executable file-backed mappings
 * without names, close both) and prints how many mappings it saw: the
 * floor of `mapscope stale PID...` as a command.  "probe-verdict" adds what
 * mapscope cannot judge without: the names, a stat of exe and a readlink of
 * ns/mnt per process.  "probe-stale" adds, for each process that maps a
 * file the kernel names " (deleted)", the reads its row in `stale`'s
 * default output rests on and the floor leaves out: stat (NAME, the
 * start), cgroup (UNIT), a readlink of exe (which file is the program), a
 * stat of root (whose files the names are), and the proof of one deleted
 * file's name: a stat of the name as given and without " (deleted)", an
 * O_PATH open of map_files, its mount ID (name_to_handle_at) and a stat.
 * "read-lists" reads every list file of dpkg's database into one buffer:
 * the floor of a package lookup.
 *
 *        ms-bench-engine dpkglog REPS HOURS PACKAGE...
 *
 * times the read of dpkg's log for RUNNING (ms_dpkglog_running over
 * /var/log) for the packages named, each as if mapped by a process
 * started HOURS ago (the further back, the more rotated files are read),
 * and prints "dpkglog MEDIAN FILES BYTES ENTRIES KNOWN", the median in
 * microseconds.
 *
 *        ms-bench-engine pkg-lookup REPS PID...
 *
 * looks up the package of every distinct file mapped by the PIDs (one
 * ms_pkgdb_find for all, as `list -o +PACKAGE` or `stale` do), the usual
 * way (candidate lists first) against the full scan of every list (the
 * full_scan seam of pkgdb.h), alternately, and prints "pkglookup USUAL
 * FULL FILES PACKAGED", the medians in microseconds.
 *
 * Two pairs, each timed alternately (ABAB..., the order flipped every
 * repetition so neither side always runs on a warmer cache), REPS times,
 * reporting medians in microseconds:
 *
 *   walk ENGINE RAW COUNT
 *     ENGINE: ms_maps_collect over every mapping (ioctl backend), what
 *     `mapscope list` does, list freed each time;
 *     RAW: the practical limit, a bare PROCMAP_QUERY loop written here that
 *     asks the kernel for the same things (name and build ID) and keeps
 *     nothing.
 *   window WINDOW PARSE
 *     WINDOW: ms_maps_window for 50 mappings from the middle mapping, the
 *     query the explorer makes on each tick (src/tui/view_maps.c);
 *     PARSE: reading the whole /proc/PID/maps text and parsing every line
 *     with the engine's text parser, storing nothing (the cheapest full
 *     parse, so the ratio is not flattered).
 *   fullwalk TEXT IOCTL COUNT
 *     the choice ms_maps_walk makes for an unfiltered listing with names and
 *     no build ID: TEXT streams /proc/PID/maps through the parser (a handle
 *     opened with --backend=auto), IOCTL makes one PROCMAP_QUERY per mapping
 *     asking for the name; both hand each record to a callback that keeps
 *     nothing.
 *   limits BARE FILTERED
 *     for the record, not compared: the raw loop asking for the range only
 *     (no name, no build ID), and the raw loop with the kernel filter of
 *     `list --file-backed --perms=x`, asking for the name as that listing
 *     does: the floors of those listings.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/compat.h"
#include "core/maps/maps.h"
#include "core/maps/maps_parse.h"
#include "core/pkg/dpkglog.h"
#include "core/pkg/pkgdb.h"

#define WINDOW_ROWS 50
#define CHUNK (64 * 1024)

struct bench {
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maps *auto_maps;
	int raw_fd;
	uint64_t middle;
	char *chunk;
	bool any_process; /* a probe: ESRCH (a kernel thread) ends the walk, no failure */
	/* probe-stale: a mapping the kernel names " (deleted)", if the walk met one */
	char *deleted_name; /* PATH_MAX bytes, or NULL: none is looked for */
	bool has_deleted;
	uint64_t deleted_start, deleted_end;
	/* pkg-lookup: the distinct mapped files of the PIDs given */
	char **paths;
	size_t *lens;
	size_t npaths;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void fail(const char *what, const struct ms_error *err)
{
	fprintf(stderr, "ms-bench-engine: %s: %s\n", what, err ? err->msg : strerror(errno));
	exit(1);
}

static size_t engine_walk(struct bench *b)
{
	struct ms_maplist list = { 0 };
	struct ms_error err;
	size_t n;

	if (ms_maps_collect(b->maps, 0, &list, &err) < 0)
		fail("collect", &err);
	n = list.count;
	ms_maplist_free(&list);
	return n;
}

/* What the raw loop asks the kernel for besides the range. */
enum { RAW_NAME = 1, RAW_BUILD_ID = 2 };

static size_t raw_loop(struct bench *b, unsigned flags, unsigned want)
{
	static char name[PATH_MAX];
	unsigned char build_id[20];
	struct procmap_query q;
	uint64_t addr = 0;
	size_t n = 0;

	for (;;) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA | flags;
		q.query_addr = addr;
		if (want & RAW_NAME) {
			q.vma_name_addr = (uintptr_t)name;
			q.vma_name_size = sizeof(name);
		}
		if (want & RAW_BUILD_ID) {
			q.build_id_addr = (uintptr_t)build_id;
			q.build_id_size = sizeof(build_id);
		}
		if (ioctl(b->raw_fd, PROCMAP_QUERY, &q) < 0) {
			/* A probe of every process meets kernel threads (no address space). */
			if (errno == ENOENT || (b->any_process && errno == ESRCH))
				return n;
			if (errno == EINTR)
				continue;
			fail("PROCMAP_QUERY", NULL);
		}
		addr = q.vma_end;
		n++;
		if (b->deleted_name && !b->has_deleted && q.vma_name_size > 11 &&
		    !memcmp(name + q.vma_name_size - 11, " (deleted)", 10)) {
			b->has_deleted = true;
			b->deleted_start = q.vma_start;
			b->deleted_end = q.vma_end;
			memcpy(b->deleted_name, name, q.vma_name_size);
		}
	}
}

static size_t raw_walk(struct bench *b)
{
	return raw_loop(b, 0, RAW_NAME | RAW_BUILD_ID);
}

static size_t raw_walk_bare(struct bench *b)
{
	return raw_loop(b, 0, 0);
}

/* The kernel-side filter of `list --file-backed --perms=x`. */
static size_t raw_walk_filtered(struct bench *b)
{
	return raw_loop(b, PROCMAP_QUERY_FILE_BACKED_VMA | PROCMAP_QUERY_VMA_EXECUTABLE, RAW_NAME);
}

static size_t window(struct bench *b)
{
	struct ms_maplist list = { 0 };
	struct ms_error err;
	size_t n;

	if (ms_maps_window(b->maps, b->middle, 0, WINDOW_ROWS, &list, &err) < 0)
		fail("window", &err);
	n = list.count;
	ms_maplist_free(&list);
	return n;
}

static int count_line(void *ctx, struct ms_mapping *m)
{
	(void)m;
	(*(size_t *)ctx)++;
	return 0;
}

static size_t walk_counting(struct ms_maps *maps)
{
	struct ms_error err;
	size_t n = 0;

	if (ms_maps_walk(maps, 0, 0, count_line, &n, &err) < 0)
		fail("walk", &err);
	return n;
}

static size_t full_walk_text(struct bench *b)
{
	return walk_counting(b->auto_maps);
}

static size_t full_walk_ioctl(struct bench *b)
{
	unsigned fields = ms_maps_set_fields(b->maps, MS_FIELD_NAME);
	size_t n = walk_counting(b->maps);

	ms_maps_set_fields(b->maps, fields);
	return n;
}

static size_t text_parse(struct bench *b)
{
	struct ms_text_parser p;
	size_t n = 0;
	off_t off = 0;
	ssize_t got;

	ms_text_parser_init(&p, count_line, &n);
	while ((got = pread(b->raw_fd, b->chunk, CHUNK, off)) > 0) {
		off += got;
		if (ms_text_parser_feed(&p, b->chunk, (size_t)got) < 0)
			fail("parse", NULL);
	}
	if (got < 0)
		fail("read maps", NULL);
	ms_text_parser_finish(&p);
	ms_text_parser_free(&p);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double timed(size_t (*fn)(struct bench *), struct bench *b, size_t *count)
{
	double t0 = now_us();

	*count = fn(b);
	return now_us() - t0;
}

/* Time a and b alternately, reps times each; medians into *ma and *mb. */
static void pair(size_t (*a)(struct bench *), size_t (*b)(struct bench *), struct bench *bb,
		 int reps, double *ma, double *mb, size_t *count)
{
	double *ta = calloc((size_t)reps, sizeof(double)), *tb = calloc((size_t)reps, sizeof(double));
	size_t ignored;

	if (!ta || !tb)
		fail("out of memory", NULL);
	timed(a, bb, count); /* warm-up */
	timed(b, bb, &ignored);
	for (int r = 0; r < reps; r++) {
		if (r % 2) {
			tb[r] = timed(b, bb, &ignored);
			ta[r] = timed(a, bb, count);
		} else {
			ta[r] = timed(a, bb, count);
			tb[r] = timed(b, bb, &ignored);
		}
	}
	*ma = median(ta, reps);
	*mb = median(tb, reps);
	free(ta);
	free(tb);
}

/*
 * The bare minimum of a stale verdict for each PID given; with `full`,
 * also what mapscope cannot do without: the mappings' names (to look them
 * up), the executable's identity (it need not be mapped) and the mount
 * namespace (which root the names resolve under).
 */
/* probe-stale: what a stale process's row reads beyond the verdict (see the top). */
static void stale_row_reads(struct bench *b, int dirfd)
{
	static char buf[4096];
	struct {
		unsigned int handle_bytes;
		int handle_type;
	} fh = { 0, 0 };
	static const char *const files[] = { "stat", "cgroup" };
	size_t len = strlen(b->deleted_name);
	char mapfile[64];
	struct stat st;
	int fd, mnt;

	for (size_t i = 0; i < 2; i++) {
		fd = openat(dirfd, files[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!read(fd, buf, sizeof(buf));
			close(fd);
		}
	}
	(void)readlinkat(dirfd, "exe", buf, sizeof(buf));
	(void)fstatat(dirfd, "root", &st, 0);
	(void)fstatat(AT_FDCWD, b->deleted_name, &st, AT_SYMLINK_NOFOLLOW);
	b->deleted_name[len - 10] = '\0';
	(void)fstatat(AT_FDCWD, b->deleted_name, &st, AT_SYMLINK_NOFOLLOW);
	snprintf(mapfile, sizeof(mapfile), "map_files/%llx-%llx", (unsigned long long)b->deleted_start,
		 (unsigned long long)b->deleted_end);
	fd = openat(dirfd, mapfile, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		(void)name_to_handle_at(fd, "", (struct file_handle *)(void *)&fh, &mnt, AT_EMPTY_PATH | 0x200);
		(void)fstat(fd, &st);
		close(fd);
	}
}

static int probe(int n, char **pids, bool full, bool stale_rows)
{
	static char deleted_name[PATH_MAX];
	size_t seen = 0;

	for (int i = 0; i < n; i++) {
		struct bench b = { .any_process = true, .deleted_name = stale_rows ? deleted_name : NULL };
		char path[64], link[64];
		struct stat st;
		int dirfd;

		snprintf(path, sizeof(path), "/proc/%s", pids[i]);
		dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			continue;
		b.raw_fd = openat(dirfd, "maps", O_RDONLY | O_CLOEXEC);
		if (b.raw_fd >= 0) {
			seen += raw_loop(&b, PROCMAP_QUERY_FILE_BACKED_VMA | PROCMAP_QUERY_VMA_EXECUTABLE,
					 full ? RAW_NAME : 0);
			close(b.raw_fd);
		}
		if (full) {
			(void)fstatat(dirfd, "exe", &st, 0);
			if (readlinkat(dirfd, "ns/mnt", link, sizeof(link)) < 0)
				link[0] = '\0';
		}
		if (b.has_deleted)
			stale_row_reads(&b, dirfd);
		close(dirfd);
	}
	printf("%zu\n", seen);
	return 0;
}

/*
 * One lookup of every path, the usual way (candidates, then the index of
 * the lists, as stale and list use it) or by the full scan without the
 * index; the number found.
 */
static size_t pkg_find(struct bench *b, bool full_scan)
{
	struct ms_pkgdb_opts opts = { .full_scan = full_scan, .index_path = full_scan ? NULL : MS_PKGDB_INDEX };
	struct ms_pkg *out = calloc(b->npaths ? b->npaths : 1, sizeof(*out));
	struct ms_pkgdb *db;
	struct ms_error err;
	size_t found = 0;

	if (!out)
		fail("out of memory", NULL);
	if (ms_pkgdb_open(MS_PKGDB_DIR, &opts, &db, &err) < 0 ||
	    ms_pkgdb_find(db, (const char *const *)b->paths, b->lens, b->npaths, out, &err) < 0)
		fail("package lookup", &err);
	ms_pkgdb_close(db);
	for (size_t i = 0; i < b->npaths; i++)
		found += out[i].found;
	free(out);
	return found;
}

static size_t pkg_usual(struct bench *b)
{
	return pkg_find(b, false);
}

static size_t pkg_full(struct bench *b)
{
	return pkg_find(b, true);
}

/* The distinct paths of the file-backed mappings of pid ("(deleted)" cut off) into b. */
static void add_mapped(struct bench *b, const char *pid, size_t *cap)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		size_t len, i;

		if (!name)
			continue;
		len = strcspn(name, "\n");
		if (len > 10 && !memcmp(name + len - 10, " (deleted)", 10))
			len -= 10;
		for (i = 0; i < b->npaths && (b->lens[i] != len || memcmp(b->paths[i], name, len)); i++)
			;
		if (i < b->npaths)
			continue;
		if (b->npaths == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			b->paths = realloc(b->paths, *cap * sizeof(*b->paths));
			b->lens = realloc(b->lens, *cap * sizeof(*b->lens));
			if (!b->paths || !b->lens)
				fail("out of memory", NULL);
		}
		b->paths[b->npaths] = strndup(name, len);
		b->lens[b->npaths++] = len;
	}
	fclose(f);
}

static int pkg_lookup(int reps, int n, char **pids)
{
	struct bench b = { 0 };
	size_t cap = 0, found;
	double ta, tb;

	for (int i = 0; i < n; i++)
		add_mapped(&b, pids[i], &cap);
	pair(pkg_usual, pkg_full, &b, reps, &ta, &tb, &found);
	printf("pkglookup %.1f %.1f %zu %zu\n", ta, tb, b.npaths, found);
	for (size_t i = 0; i < b.npaths; i++)
		free(b.paths[i]);
	free(b.paths);
	free(b.lens);
	return 0;
}

static int dpkglog(int reps, long hours, int n, char **names)
{
	struct ms_pkg *pkgs = calloc((size_t)n, sizeof(*pkgs));
	/* Copies started hours ago whose unlinking is not known: dated by their start. */
	struct ms_copy *copies = calloc((size_t)n, sizeof(*copies));
	double *t = calloc((size_t)reps, sizeof(*t));
	struct ms_dpkglog_stats stats = { 0 };
	struct ms_error err;
	size_t known = 0;

	if (!pkgs || !copies || !t)
		fail("out of memory", NULL);
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++) {
			pkgs[i] = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_DPKG };
			snprintf(pkgs[i].name, sizeof(pkgs[i].name), "%s", names[i]);
			copies[i] = (struct ms_copy){ .start = time(NULL) - hours * 3600 };
		}
		t[r] = now_us();
		if (ms_dpkglog_running(NULL, pkgs, copies, (size_t)n, &stats, &err) < 0)
			fail("dpkglog", &err);
		t[r] = now_us() - t[r];
	}
	for (int i = 0; i < n; i++)
		known += pkgs[i].running_state == MS_PKG_RUNNING_KNOWN;
	printf("dpkglog %.1f %u %llu %zu %zu\n", median(t, reps), stats.files, stats.bytes, stats.events, known);
	free(pkgs);
	free(copies);
	free(t);
	return 0;
}

/*
 * Read every list file of dpkg's database (DIR/info/NAME.list) into one
 * reused buffer, and print the bytes read: the least a package lookup
 * costs when no package owns the path, for dpkg keeps no index.
 */
static int read_lists(const char *dir)
{
	static char buf[16 << 20];
	char path[4096];
	struct dirent *de;
	size_t total = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/info", dir);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "ms-bench-engine: %s: cannot open\n", path);
		return 1;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		ssize_t got;
		int fd;

		if (n <= 5 || strcmp(de->d_name + n - 5, ".list"))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		while ((got = read(fd, buf, sizeof(buf))) > 0)
			total += (size_t)got;
		close(fd);
	}
	closedir(d);
	printf("%zu\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct ms_maps_opts opts = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = NULL };
	struct ms_maps_opts auto_opts = { .backend = MS_BACKEND_AUTO, .ioctl_fn = NULL };
	struct ms_maplist all = { 0 };
	struct ms_error err;
	struct bench b = { 0 };
	double ta, tb;
	size_t count;
	char path[64];
	long pid;
	int reps;

	if (argc == 2 && !strcmp(argv[1], "start"))
		return 0;
	if (argc >= 2 && !strcmp(argv[1], "probe"))
		return probe(argc - 2, argv + 2, false, false);
	if (argc >= 2 && !strcmp(argv[1], "probe-verdict"))
		return probe(argc - 2, argv + 2, true, false);
	if (argc >= 2 && !strcmp(argv[1], "probe-stale"))
		return probe(argc - 2, argv + 2, true, true);
	if (argc == 3 && !strcmp(argv[1], "read-lists"))
		return read_lists(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "dpkglog") && (reps = atoi(argv[2])) > 0)
		return dpkglog(reps, strtol(argv[3], NULL, 10), argc - 4, argv + 4);
	if (argc >= 4 && !strcmp(argv[1], "pkg-lookup") && (reps = atoi(argv[2])) > 0)
		return pkg_lookup(reps, argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[2], "once") && (pid = strtol(argv[1], NULL, 10)) > 0) {
		snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
		b.raw_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (b.raw_fd < 0)
			fail(path, NULL);
		printf("%zu\n", raw_walk_filtered(&b));
		return 0;
	}
	if (argc != 3 || (pid = strtol(argv[1], NULL, 10)) <= 0 || (reps = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: ms-bench-engine PID REPS|once\n");
		return 2;
	}
	if (ms_proc_open((pid_t)pid, &b.proc, &err) < 0 || ms_maps_open(b.proc, &opts, &b.maps, &err) < 0 ||
	    ms_maps_open(b.proc, &auto_opts, &b.auto_maps, &err) < 0)
		fail("open", &err);
	ms_maps_set_fields(b.auto_maps, MS_FIELD_NAME);
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	b.raw_fd = open(path, O_RDONLY | O_CLOEXEC);
	b.chunk = malloc(CHUNK);
	if (b.raw_fd < 0 || !b.chunk)
		fail(path, NULL);
	if (ms_maps_collect(b.maps, 0, &all, &err) < 0 || all.count == 0)
		fail("collect", &err);
	b.middle = all.items[all.count / 2].start;
	ms_maplist_free(&all);

	pair(engine_walk, raw_walk, &b, reps, &ta, &tb, &count);
	printf("walk %.1f %.1f %zu\n", ta, tb, count);
	pair(window, text_parse, &b, reps, &ta, &tb, &count);
	printf("window %.2f %.1f %zu\n", ta, tb, count);
	pair(full_walk_text, full_walk_ioctl, &b, reps, &ta, &tb, &count);
	printf("fullwalk %.1f %.1f %zu\n", ta, tb, count);
	pair(raw_walk_bare, raw_walk_filtered, &b, reps, &ta, &tb, &count);
	printf("limits %.1f %.1f\n", ta, tb);

	free(b.chunk);
	close(b.raw_fd);
	ms_maps_close(b.maps);
	ms_maps_close(b.auto_maps);
	ms_proc_close(b.proc);
	return 0;
}
