/*
 * Bounds a hostile process or file cannot raise,
 * against tests/ms-hostile and generated files:
 *   - stale groups 65,000 distinct files, and thousands of hard links to one
 *     inode, with hash probes linear in the files (a work count, not a time);
 *   - the process list reuses a process's stale count while its mappings do
 *     not change, and judges again within rejudge_every scans after a file
 *     is replaced on disk;
 *   - snapshots stream byte for byte what the in-memory writer wrote; 65,000
 *     names of 3.8 KB of control bytes are refused (exit 1, no file, little
 *     memory) by snapshot and record, and what they accept reads back;
 *   - the reader parses or refuses a 21 MB file of "{}" items, and the
 *     largest snapshot the writer accepts, in under 100 MB (ru_maxrss of a
 *     forked child: a bound, not a time).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/maps/maps.h"
#include "core/snap/snapshot.h"
#include "core/snap/snapshot_write.h"
#include "core/proc/proc.h"
#include "core/procs/proclist.h"
#include "core/snap/record.h"
#include "core/stale/stale.h"
#include "fixture_client.h"
#include "testutil.h"

/* ms-hostile with env (NAME=VALUE, NULL-terminated) set, ready; a minute
 * to make its many files and mappings. */
static void hostile_start(struct fixture *h, const char *const *env)
{
	const struct fixture_opts o = { .prog = "ms-hostile", .env = env, .timeout_ms = 60000 };

	if (fixture_start_with(h, &o) < 0)
		fail_msg("ms-hostile did not start");
}

static bool room_for(size_t mappings)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	unsigned long max = 0;

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	if (max < mappings + 200) {
		printf("skip: vm.max_map_count is %lu, below %zu\n", max, mappings + 200);
		return false;
	}
	return true;
}

/* The files of h's process under DIR/SUB/, and the verdicts counted. */
static size_t scan_files(const struct fixture *h, const char *sub, size_t *ok,
			 size_t *probes, size_t *files)
{
	char prefix[PATH_MAX];
	struct ms_stale_list list = { 0 };
	struct ms_stale_ctx *ctx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	size_t mine = 0;

	snprintf(prefix, sizeof(prefix), "%s/%s/", h->dir, sub);
	*ok = 0;
	assert_int_equal(ms_proc_open(h->pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, NULL, &maps, &err), 0);
	/* No ignore list: the files live under /tmp, which the default list ignores. */
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	assert_int_equal(ms_stale_scan(ctx, maps, 0, &list, &err), 0);
	for (size_t i = 0; i < list.count; i++) {
		const struct ms_stale_file *f = &list.items[i];

		if (f->name_len < strlen(prefix) || memcmp(f->name, prefix, strlen(prefix)))
			continue;
		mine++;
		assert_int_equal(f->mappings, 1);
		if (f->result.verdict == MS_STALE_OK)
			(*ok)++;
	}
	*probes = ms_stale_ctx_group_probes(ctx);
	*files = list.count;
	ms_stale_list_free(&list);
	ms_stale_ctx_free(ctx);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return mine;
}

/*
 * Probes per mapping: a half-full open-addressing table averages under
 * 2.5 per lookup; the linear search it replaced compared about n/2.
 */
#define PROBES_PER_FILE 4

/* n files of ms-hostile (env) under DIR/sub: all ok, and grouped in linear work. */
static void check_grouping(const char *env0, const char *sub, size_t n)
{
	const char *const env[] = { env0, NULL };
	struct fixture h;
	size_t ok, probes, files;

	if (!room_for(n))
		skip();
	hostile_start(&h, env);
	assert_int_equal(scan_files(&h, sub, &ok, &probes, &files), n);
	assert_int_equal(ok, n);
	if (probes > PROBES_PER_FILE * files)
		fail_msg("grouping %zu files (%s) took %zu probes: not linear", files, sub, probes);
	fixture_stop(&h);
}

static void test_stale_groups_65000_files_linearly(void **state)
{
	(void)state;
	check_grouping("MS_HOSTILE_FILES=65000", "many", 65000);
}

/* Hard links: one inode under many names, still one file per name. */
static void test_stale_groups_hard_links_linearly(void **state)
{
	(void)state;
	check_grouping("MS_HOSTILE_LINKS=20000", "links", 20000);
}

static const struct ms_procrow *row_of(const struct ms_proclist *list, pid_t pid)
{
	size_t i = ms_proclist_find(list, pid);

	if (i == list->count)
		fail_msg("pid %d is not in the process list", (int)pid);
	return &list->rows[i];
}

static const struct ms_procrow *scan_list(struct ms_proclist *list, struct ms_stale_ctx *ctx, pid_t pid)
{
	struct ms_error err;

	/* As the explorer does each tick: the disk is seen anew. */
	ms_stale_ctx_forget(ctx);
	assert_int_equal(ms_proclist_scan_stale(MS_PROCLIST_PROCFS, MS_PROCLIST_COUNT_MAPS, ctx, list,
						&err), 0);
	assert_true(row_of(list, pid)->stale_counted);
	return row_of(list, pid);
}

static void test_proclist_judges_again_only_when_due(void **state)
{
	static const char *const env[] = { "MS_HOSTILE_FILES=1", NULL };
	struct ms_proclist list = { 0 };
	const struct ms_procrow *row;
	struct ms_stale_ctx *ctx;
	struct fixture h;
	struct ms_error err;
	char *path, *fresh;
	size_t before;
	int fd;

	(void)state;
	hostile_start(&h, env);
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	list.rejudge_every = 3;
	row = scan_list(&list, ctx, h.pid);
	assert_true(row->stale_judged);
	before = row->stale; /* ms-hostile's own "-gone" files are deleted */
	row = scan_list(&list, ctx, h.pid);
	assert_false(row->stale_judged);
	assert_int_equal(row->stale, before);

	/* Replace the mapped file on disk; the mappings stay as they were. */
	path = tu_join(h.dir, "many/0");
	fresh = tu_join(h.dir, "many/0.new");
	fd = open(fresh, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new", 3), 3);
	close(fd);
	assert_int_equal(rename(fresh, path), 0);
	row = scan_list(&list, ctx, h.pid);
	assert_false(row->stale_judged);
	row = scan_list(&list, ctx, h.pid);
	assert_true(row->stale_judged);
	assert_int_equal(row->stale, before + 1);
	row = scan_list(&list, ctx, h.pid);
	assert_false(row->stale_judged);
	assert_int_equal(row->stale, before + 1);

	free(path);
	free(fresh);
	ms_proclist_free(&list);
	ms_stale_ctx_free(ctx);
	fixture_stop(&h);
}

/*
 * A process of 2,100 files (over 2,000 mappings) is walked again every
 * rejudge_every + 2 scans, not every rejudge_every: a walk costs in
 * proportion to the mappings.
 */
static void test_proclist_large_process_walked_less_often(void **state)
{
	static const char *const env[] = { "MS_HOSTILE_FILES=2100", NULL };
	struct ms_proclist list = { 0 };
	struct ms_stale_ctx *ctx;
	struct fixture h;
	struct ms_error err;

	(void)state;
	hostile_start(&h, env);
	assert_int_equal(ms_stale_ctx_new(NULL, &ctx, &err), 0);
	list.rejudge_every = 2;
	assert_true(scan_list(&list, ctx, h.pid)->stale_judged);
	assert_true(row_of(&list, h.pid)->nmaps > 2000 && row_of(&list, h.pid)->nmaps < 3000);
	for (int i = 2; i <= 4; i++)
		if (scan_list(&list, ctx, h.pid)->stale_judged)
			fail_msg("scan %d walked the process again: due only at scan 5", i);
	assert_true(scan_list(&list, ctx, h.pid)->stale_judged);
	ms_proclist_free(&list);
	ms_stale_ctx_free(ctx);
	fixture_stop(&h);
}

/* ---- snapshots: streamed, byte for byte what the in-memory writer made ---- */

/* A name with every kind of byte the escaper handles. */
static const char hostile_name[] = "/tmp/x\x1b[31m\\x1b\"q\"\n\xff\xc2\x9b\xe2\x80\xae\x07 (deleted)";

/* A snapshot with fixed contents: 3 mappings (or none), with residency or not. */
static void golden_snapshot(struct ms_snapshot *snap, size_t count, bool residency)
{
	static const char cmdline[] = "prog\0--flag\0\x1b]0;t\x07\0";

	memset(snap, 0, sizeof(*snap));
	snap->hdr.version = MS_SNAPSHOT_VERSION;
	snprintf(snap->hdr.time, sizeof(snap->hdr.time), "2026-12-03T08:00:00.123456789Z");
	snprintf(snap->hdr.kernel, sizeof(snap->hdr.kernel), "6.18.0-test");
	snap->hdr.backend = MS_BACKEND_IOCTL;
	snap->hdr.pid = 4242;
	snap->hdr.start_time = 123456789ull;
	snap->hdr.cmdline = malloc(sizeof(cmdline) - 1);
	memcpy(snap->hdr.cmdline, cmdline, sizeof(cmdline) - 1);
	snap->hdr.cmdline_len = sizeof(cmdline) - 1;
	snap->hdr.exe = strdup("/usr/bin/prog");
	snap->hdr.exe_len = strlen(snap->hdr.exe);
	for (size_t i = 0; i < count; i++) {
		struct ms_mapping m = { 0 };

		m.start = 0x400000 + 0x10000 * i;
		m.end = m.start + 0x1000 * (i + 1);
		m.perms = i == 1 ? (MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED) : (MS_PERM_READ | MS_PERM_EXEC);
		m.offset = 0x1000 * i;
		m.dev_major = 259;
		m.dev_minor = (uint32_t)i;
		m.inode = i == 2 ? UINT64_MAX : 1000 + i;
		m.page_size = 4096;
		if (i != 1) {
			m.name_len = i == 0 ? strlen("/usr/lib/libc.so.6") : sizeof(hostile_name) - 1;
			m.name = malloc(m.name_len + 1);
			memcpy(m.name, i == 0 ? "/usr/lib/libc.so.6" : hostile_name, m.name_len + 1);
		}
		if (i == 0) {
			m.build_id_len = 20;
			for (int b = 0; b < 20; b++)
				m.build_id[b] = (unsigned char)(b * 13);
		}
		assert_int_equal(ms_maplist_push(&snap->maps, &m), 0);
	}
	if (residency) {
		snap->res = calloc(count ? count : 1, sizeof(*snap->res));
		snap->res_backend = MS_RES_PAGEMAP;
		for (size_t i = 0; i < count; i++) {
			snap->res[i].rss = 4096 * (i + 1);
			snap->res[i].swap = 8192 * i;
			snap->res[i].huge = i == 2 ? 2097152 : 0;
		}
	}
}

static const struct {
	const char *file;
	size_t count;
	bool residency;
} goldens[] = {
	{ "snapshot-3.json", 3, false },
	{ "snapshot-3-res.json", 3, true },
	{ "snapshot-0.json", 0, false },
	{ "snapshot-0-res.json", 0, true },
};

static char *golden_path(const char *file)
{
	const char *src = getenv("srcdir");
	char *path;

	assert_true(asprintf(&path, "%s/tests/golden/%s", src ? src : ".", file) > 0);
	return path;
}

/*
 * The goldens were written by the in-memory writer (one jansson document,
 * json_dumps with JSON_INDENT(1)) before snapshots were streamed; with
 * MS_WRITE_GOLDEN=1 this writes them again instead of comparing.
 */
static void test_snapshot_dump_matches_golden(void **state)
{
	(void)state;
	for (size_t g = 0; g < sizeof(goldens) / sizeof(goldens[0]); g++) {
		struct ms_snapshot snap;
		struct ms_error err;
		char *text, *path = golden_path(goldens[g].file), *want = NULL;
		size_t len, want_len = 0;
		bool truncated;

		golden_snapshot(&snap, goldens[g].count, goldens[g].residency);
		assert_int_equal(ms_snapshot_dump(&snap, &text, &len, &err), 0);
		if (getenv("MS_WRITE_GOLDEN")) {
			FILE *f = fopen(path, "w");

			assert_non_null(f);
			assert_int_equal(fwrite(text, 1, len, f), len);
			fclose(f);
		} else {
			assert_int_equal(ms_read_file_at(AT_FDCWD, path, 1 << 20, &want, &want_len, &truncated), 0);
			if (len != want_len || memcmp(text, want, len))
				fail_msg("%s: the streamed snapshot differs from the golden", goldens[g].file);
		}
		free(want);
		free(text);
		free(path);
		ms_snapshot_free(&snap);
	}
}

#define RSS_MAX_KB (100 * 1024)
/* ASan's shadow memory and quarantine are not mapscope's: no RSS bound there. */
#ifdef __SANITIZE_ADDRESS__
#define RSS_OVER(kb) ((void)(kb), 0)
#else
#define RSS_OVER(kb) ((kb) > RSS_MAX_KB)
#endif

struct ran {
	int status;      /* exit status, or -1 */
	long maxrss_kb;  /* peak RSS */
	size_t out_len;  /* bytes on stdout */
	char err[4096];  /* the start of stderr */
};

/* Run $MS_BIN with args (NULL-terminated); stdout is counted, stderr kept. */
static void run_bin(struct ran *r, const char *const *args)
{
	const char *bin = getenv("MS_BIN");
	char *argv[16] = { (char *)"mapscope" };
	int out[2], errp[2];
	struct rusage ru;
	size_t n = 1, got = 0;
	int status;
	pid_t pid;
	char buf[65536];

	memset(r, 0, sizeof(*r));
	assert_non_null(bin);
	for (; args[n - 1] && n < 15; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execv(bin, argv);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	for (ssize_t k; (k = read(out[0], buf, sizeof(buf))) > 0;)
		r->out_len += (size_t)k;
	for (ssize_t k; got < sizeof(r->err) - 1 &&
			(k = read(errp[0], r->err + got, sizeof(r->err) - 1 - got)) > 0;)
		got += (size_t)k;
	close(out[0]);
	close(errp[0]);
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->maxrss_kb = ru.ru_maxrss;
}

static bool exists(const char *dir, const char *name)
{
	char *path = tu_join(dir, name);
	bool yes = access(path, F_OK) == 0;

	free(path);
	return yes;
}

/* 65,000 names of 3.8 KB of control bytes: 1.24 GB of JSON before; now a refusal. */
static void test_hostile_names_refused_whole(void **state)
{
	static const char *const env[] = { "MS_HOSTILE_LONG=65000", NULL };
	struct fixture h;
	char pid[16], *snap, *rec;
	struct ran r;

	(void)state;
	if (!room_for(65000))
		skip();
	hostile_start(&h, env);
	snprintf(pid, sizeof(pid), "%d", (int)h.pid);
	snap = tu_join(h.dir, "snap.json");
	rec = tu_join(h.dir, "rec.jsonl");
	{
		const char *const args[] = { "snapshot", pid, "-o", snap, NULL };

		run_bin(&r, args);
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "mapping names take more than 16 MiB"));
		assert_false(exists(h.dir, "snap.json"));
		if (RSS_OVER(r.maxrss_kb))
			fail_msg("snapshot -o: peak RSS %ld KiB", r.maxrss_kb);
	}
	{
		const char *const args[] = { "snapshot", pid, NULL };

		run_bin(&r, args);
		assert_int_equal(r.status, 1);
		assert_int_equal(r.out_len, 0);
		if (RSS_OVER(r.maxrss_kb))
			fail_msg("snapshot to stdout: peak RSS %ld KiB", r.maxrss_kb);
	}
	{
		const char *const args[] = { "record", pid, "-o", rec, "--count=1", NULL };

		run_bin(&r, args);
		assert_int_equal(r.status, 1);
		assert_non_null(strstr(r.err, "more than a recording may hold"));
		assert_false(exists(h.dir, "rec.jsonl"));
		if (RSS_OVER(r.maxrss_kb))
			fail_msg("record: peak RSS %ld KiB", r.maxrss_kb);
	}
	free(snap);
	free(rec);
	fixture_stop(&h);
}

/* Fewer of the same names fit the bound: what is written reads back. */
static void test_hostile_names_accepted_read_back(void **state)
{
	static const char *const env[] = { "MS_HOSTILE_LONG=400", NULL };
	struct fixture h;
	char pid[16], *snap, *rec;
	struct ran r;

	(void)state;
	hostile_start(&h, env);
	snprintf(pid, sizeof(pid), "%d", (int)h.pid);
	snap = tu_join(h.dir, "snap.json");
	rec = tu_join(h.dir, "rec.jsonl");
	{
		const char *const args[] = { "snapshot", pid, "-o", snap, NULL };
		const char *const diff[] = { "diff", snap, snap, NULL };

		run_bin(&r, args);
		assert_int_equal(r.status, 0);
		run_bin(&r, diff);
		if (r.status != 0)
			fail_msg("diff of a written snapshot: exit %d: %s", r.status, r.err);
	}
	{
		const char *const args[] = { "record", pid, "-o", rec, "--count=1", NULL };
		struct ms_maplist replayed = { 0 };
		struct ms_error err;
		size_t len, records;
		bool truncated;
		char *text;

		run_bin(&r, args);
		assert_int_equal(r.status, 0);
		/* What appending to it would replay. */
		assert_int_equal(ms_read_file_at(AT_FDCWD, rec, MS_RECORD_LINE_MAX, &text, &len, &truncated), 0);
		if (ms_recording_replay(text, len, "rec", 0, 0, &replayed, &records, &err) < 0)
			fail_msg("a written recording does not replay: %s", err.msg);
		assert_int_equal(records, 1);
		assert_true(replayed.count > 400);
		free(text);
		ms_maplist_free(&replayed);
	}
	free(snap);
	free(rec);
	fixture_stop(&h);
}

/* In a forked child: load path; returns the child's peak RSS, *rc its result. */
static long load_in_child(const char *path, int *rc, size_t *count)
{
	int fds[2];
	struct rusage ru;
	int status;
	pid_t pid;
	long got[2] = { 0, 0 };

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ms_snapshot snap;
		struct ms_error err;
		long res[2];

		res[0] = ms_snapshot_load(path, &snap, &err);
		res[1] = res[0] == 0 ? (long)snap.maps.count : 0;
		if (res[0] == 0)
			ms_snapshot_free(&snap);
		else
			fprintf(stderr, "load: %s\n", err.msg);
		_exit(write(fds[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], got, sizeof(got)), sizeof(got));
	close(fds[0]);
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	*rc = (int)got[0];
	*count = (size_t)got[1];
	return ru.ru_maxrss;
}

/* head, then "{}," items up to size bytes, then tail. */
static char *write_items(const char *dir, const char *name, const char *head, const char *tail,
			 size_t size)
{
	char *path = tu_join(dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(head, f);
	for (size_t n = strlen(head); n < size; n += 3)
		fputs("{},", f);
	fputs("{}", f);
	fputs(tail, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_reader_bounded_on_empty_objects(void **state)
{
	static const struct {
		const char *name, *head, *tail;
	} shapes[] = {
		{ "array.json", "[", "]" },
		{ "mappings.json", "{\"mapscope\": \"snapshot\", \"version\": 1, \"header\": {\"pid\": 7}, \"mappings\": [", "]}" },
		{ "header.json", "{\"mapscope\": \"snapshot\", \"version\": 1, \"header\": {\"pid\": 7, \"x\": [", "]}, \"mappings\": []}" },
		{ "first.json", "{\"x\": [", "], \"mapscope\": \"snapshot\"}" },
	};
	char *dir = tu_tmpdir();

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		char *path = write_items(dir, shapes[i].name, shapes[i].head, shapes[i].tail, 21u << 20);
		size_t count;
		int rc;
		long kb = load_in_child(path, &rc, &count);

		printf("%s: refused, peak RSS %ld KiB\n", shapes[i].name, kb);
		if (RSS_OVER(kb))
			fail_msg("%s: 21 MB of {} took %ld KiB to read", shapes[i].name, kb);
		assert_true(rc < 0);
		free(path);
	}
	/* Valid mappings, more of them than any process has. */
	{
		char *path = tu_join(dir, "many.json");
		FILE *f = fopen(path, "w");
		size_t count;
		int rc;
		long kb;

		assert_non_null(f);
		fputs("{\"mapscope\": \"snapshot\", \"version\": 1, \"header\": {\"pid\": 7}, \"mappings\": [", f);
		for (size_t i = 0; i < 400000; i++)
			fprintf(f, "%s{\"start\":\"%zx\",\"end\":\"%zx\",\"perms\":\"r--p\"}", i ? "," : "",
				0x1000 * (2 * i + 1), 0x1000 * (2 * i + 2));
		fputs("]}", f);
		assert_int_equal(fclose(f), 0);
		kb = load_in_child(path, &rc, &count);
		printf("many.json: refused, peak RSS %ld KiB\n", kb);
		assert_int_equal(rc, MS_ERR_LIMIT);
		if (RSS_OVER(kb))
			fail_msg("400,000 mappings took %ld KiB to read", kb);
		free(path);
	}
	tu_rmtree(dir);
	free(dir);
}

/* A snapshot at the bounds: 65,536 mappings, names just under 16 MiB, residency. */
static void largest_snapshot(struct ms_snapshot *snap, size_t count, size_t name_len)
{
	golden_snapshot(snap, 0, true);
	free(snap->res);
	snap->res = calloc(count, sizeof(*snap->res));
	assert_non_null(snap->res);
	for (size_t i = 0; i < count; i++) {
		struct ms_mapping m = { 0 };

		m.start = 0x10000000 + 0x2000 * (uint64_t)i;
		m.end = m.start + 0x1000;
		m.perms = MS_PERM_READ | MS_PERM_EXEC;
		m.inode = UINT64_MAX - i;
		m.dev_major = UINT32_MAX;
		m.dev_minor = UINT32_MAX;
		m.offset = UINT64_MAX - 0xfff;
		m.page_size = 4096;
		m.name_len = name_len;
		m.name = malloc(name_len + 1);
		memset(m.name, 'n', name_len);
		m.name[0] = '/';
		m.name[name_len] = '\0';
		m.build_id_len = MS_BUILD_ID_MAX;
		memset(m.build_id, 0xab, MS_BUILD_ID_MAX);
		snap->res[i].rss = snap->res[i].swap = snap->res[i].huge = INT64_MAX;
		assert_int_equal(ms_maplist_push(&snap->maps, &m), 0);
	}
}

static void test_largest_snapshot_reads_back(void **state)
{
	const size_t count = MS_SNAPSHOT_MAPPINGS_MAX, name_len = MS_SNAPSHOT_NAMES_MAX / count;
	char *dir = tu_tmpdir(), *path = tu_join(dir, "big.json");
	struct ms_snapshot snap;
	struct ms_error err;
	struct stat st;
	size_t got;
	int rc, status;
	pid_t pid;
	long kb;

	(void)state;
	/* Written by a child, so the reader's child does not inherit its memory. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		largest_snapshot(&snap, count, name_len);
		_exit(ms_snapshot_write(&snap, path, NULL, NULL, &err) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size <= MS_SNAPSHOT_FILE_MAX);
	kb = load_in_child(path, &rc, &got);
	printf("largest snapshot: %lld bytes, read in a peak RSS of %ld KiB\n", (long long)st.st_size, kb);
	assert_int_equal(rc, 0);
	assert_int_equal(got, count);
	if (RSS_OVER(kb))
		fail_msg("the largest snapshot took %ld KiB to read", kb);

	/* One mapping more, or one name byte more: refused, and no file. */
	assert_int_equal(unlink(path), 0);
	largest_snapshot(&snap, count + 1, 1);
	assert_int_equal(ms_snapshot_write(&snap, path, NULL, NULL, &err), MS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "more than 65536 mappings"));
	ms_snapshot_free(&snap);
	largest_snapshot(&snap, count, name_len);
	snap.maps.items[0].name_len++;
	snap.maps.items[0].name = realloc(snap.maps.items[0].name, name_len + 2);
	snap.maps.items[0].name[name_len] = 'x';
	assert_int_equal(ms_snapshot_write(&snap, path, NULL, NULL, &err), MS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "more than 16 MiB"));
	assert_int_equal(access(path, F_OK), -1);
	ms_snapshot_free(&snap);
	free(path);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_groups_65000_files_linearly),
		cmocka_unit_test(test_stale_groups_hard_links_linearly),
		cmocka_unit_test(test_proclist_judges_again_only_when_due),
		cmocka_unit_test(test_proclist_large_process_walked_less_often),
		cmocka_unit_test(test_snapshot_dump_matches_golden),
		cmocka_unit_test(test_hostile_names_refused_whole),
		cmocka_unit_test(test_hostile_names_accepted_read_back),
		cmocka_unit_test(test_reader_bounded_on_empty_objects),
		cmocka_unit_test(test_largest_snapshot_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
