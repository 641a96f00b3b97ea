/*
 * Stale verdicts on real files and a real process: a copy of a tiny test
 * library is loaded into tests/stale-child with dlopen, then deleted,
 * replaced by the other library, or replaced by identical bytes.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf/buildid.h"
#include "stale/ignore.h"
#include "maps/maps.h"
#include "stale/stale.h"
#include "fixture_client.h"
#include "testutil.h"

struct fx {
	char *dir;
	char *lib;   /* dir/libstale.so, loaded by the child */
	char *lib_a; /* the built libraries */
	char *lib_b;
	struct fixture child;
	struct ms_stale_ctx *ctx;
	struct ms_ignore *ignore;
	struct ms_stale_list list;
	char expect[4096];
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct ms_error err;

	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fx->lib = tu_join(fx->dir, "libstale.so");
	fx->lib_a = tu_built("libstale-a.so");
	fx->lib_b = tu_built("libstale-b.so");
	assert_int_equal(tu_copy(fx->lib_a, fx->lib), 0);
	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "dlopen %s", fx->lib), 0);
	/* No ignore rules: the test directory is under /tmp, which the defaults ignore. */
	assert_int_equal(ms_stale_ctx_new(NULL, &fx->ctx, &err), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	fixture_stop(&fx->child);
	ms_stale_list_free(&fx->list);
	ms_stale_ctx_free(fx->ctx);
	ms_ignore_free(fx->ignore);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->lib);
	free(fx->lib_a);
	free(fx->lib_b);
	free(fx);
	return 0;
}

/* Scan the child with the given flags into fx->list. */
static void scan(struct fx *fx, unsigned flags)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = NULL };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	assert_int_equal(ms_proc_open(fx->child.pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	assert_int_equal(ms_stale_scan(fx->ctx, maps, flags, &fx->list, &err), 0);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

/* The scanned file whose kernel name is name (+ " (deleted)" when deleted is set). */
static const struct ms_stale_file *find(struct fx *fx, const char *name, bool deleted)
{
	snprintf(fx->expect, sizeof(fx->expect), "%s%s", name, deleted ? " (deleted)" : "");
	for (size_t i = 0; i < fx->list.count; i++)
		if (!strcmp(fx->list.items[i].name, fx->expect))
			return &fx->list.items[i];
	fail_msg("no mapping named '%s' in the child", fx->expect);
	return NULL;
}

static const struct ms_stale_file *judge_lib_flags(struct fx *fx, bool deleted, unsigned flags)
{
	ms_stale_ctx_forget(fx->ctx);
	scan(fx, flags);
	return find(fx, fx->lib, deleted);
}

static const struct ms_stale_file *judge_lib(struct fx *fx, bool deleted)
{
	return judge_lib_flags(fx, deleted, 0);
}

/* Put a copy of src at fx->lib by rename, as package managers do. */
static void rename_over(struct fx *fx, const char *src)
{
	char *tmp = tu_join(fx->dir, "incoming.so");

	assert_int_equal(tu_copy(src, tmp), 0);
	assert_int_equal(rename(tmp, fx->lib), 0);
	free(tmp);
}

static void test_untouched_is_ok(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f = judge_lib(fx, false);

	assert_int_equal(f->result.verdict, MS_STALE_OK);
	assert_false(ms_stale_verdict_is_stale(f->result.verdict));
	assert_true(f->mappings >= 1);
	/* An ok file needs no build ID, so the kernel is not asked for one... */
	assert_int_equal(f->build_id_len, 0);
	/* ...unless the caller wants them all. */
	f = judge_lib_flags(fx, false, MS_STALE_BUILD_IDS);
	assert_int_equal(f->result.verdict, MS_STALE_OK);
	assert_true(f->build_id_len > 0);
}

static void test_deleted(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f;

	assert_int_equal(unlink(fx->lib), 0);
	f = judge_lib(fx, true);
	assert_int_equal(f->result.verdict, MS_STALE_DELETED);
	assert_true(ms_stale_verdict_is_stale(f->result.verdict));
	assert_non_null(strstr(f->result.why, "no file"));
}

static void test_replaced_by_other_build(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f;

	rename_over(fx, fx->lib_b);
	f = judge_lib(fx, true);
	assert_int_equal(f->result.verdict, MS_STALE_REPLACED);
	assert_non_null(strstr(f->result.why, "different build ID"));
}

/* A crafted ELF at the path (extended numbering): unknown, saying why, never read further. */
static void test_replaced_by_crafted_elf(void **state)
{
	struct fx *fx = *state;
	char *tmp = tu_join(fx->dir, "crafted.so");
	const struct ms_stale_file *f;
	Elf64_Ehdr eh;
	int fd;

	assert_int_equal(tu_copy(fx->lib_b, tmp), 0);
	fd = open(tmp, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	eh.e_phnum = PN_XNUM;
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	close(fd);
	assert_int_equal(rename(tmp, fx->lib), 0);
	free(tmp);
	f = judge_lib_flags(fx, true, MS_STALE_BUILD_IDS);
	assert_int_equal(f->result.verdict, MS_STALE_UNKNOWN);
	assert_non_null(strstr(f->result.why, "extended ELF numbering refused"));
}

static void test_replaced_by_same_bytes(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f;

	rename_over(fx, fx->lib_a);
	f = judge_lib(fx, true);
	assert_int_equal(f->result.verdict, MS_STALE_SAME_BUILD);
	assert_false(ms_stale_verdict_is_stale(f->result.verdict));
}

/* A kernel without PROCMAP_QUERY: answers ENOTTY, as before Linux 6.11. */
static int fake_notty(int fd, unsigned long request, void *arg)
{
	(void)fd;
	(void)request;
	(void)arg;
	errno = ENOTTY;
	return -1;
}

/* Scan fx's child through the text backend; ioctl_fn NULL is the real ioctl. */
static const struct ms_stale_file *scan_text(struct fx *fx, ms_ioctl_fn ioctl_fn)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_TEXT, .ioctl_fn = ioctl_fn };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	assert_int_equal(ms_proc_open(fx->child.pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	assert_int_equal(ms_stale_scan(fx->ctx, maps, 0, &fx->list, &err), 0);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return find(fx, fx->lib, true);
}

/*
 * The text has no build IDs, but where the kernel has PROCMAP_QUERY the
 * verdict asks it for the one it needs: identical bytes are the same build.
 */
static void test_text_backend_asks_the_kernel_for_the_build_id(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f;

	rename_over(fx, fx->lib_a);
	f = scan_text(fx, NULL);
	assert_int_equal(f->result.verdict, MS_STALE_SAME_BUILD);
	assert_true(f->build_id_len > 0);
}

/* Without PROCMAP_QUERY nothing can prove the same build: replaced, saying why. */
static void test_no_procmap_query_cannot_prove_same_build(void **state)
{
	struct fx *fx = *state;
	const struct ms_stale_file *f;

	rename_over(fx, fx->lib_a);
	f = scan_text(fx, fake_notty);
	assert_int_equal(f->result.verdict, MS_STALE_REPLACED);
	assert_non_null(strstr(f->result.why, "build ID not read: the kernel cannot give it"));
	assert_null(strstr(f->result.why, "no build ID"));
}

static void test_file_really_named_deleted(void **state)
{
	struct fx *fx = *state;
	char *odd = tu_join(fx->dir, "lib (deleted)");
	const struct ms_stale_file *f;

	assert_int_equal(tu_copy(fx->lib_a, odd), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", odd), 0);
	scan(fx, 0);
	/* The kernel's name ends in " (deleted)", but the file is there. */
	f = find(fx, odd, false);
	assert_int_equal(f->result.verdict, MS_STALE_OK);

	/* Once it is really unlinked, it is deleted. */
	assert_int_equal(unlink(odd), 0);
	ms_stale_ctx_forget(fx->ctx);
	scan(fx, 0);
	f = find(fx, odd, true);
	assert_int_equal(f->result.verdict, MS_STALE_DELETED);
	free(odd);
}

static void test_memfd_and_shm_are_not_flagged(void **state)
{
	struct fx *fx = *state;
	struct ms_stale_counts counts = { 0 };
	struct ms_error err;
	char shm[64];
	bool saw_memfd = false, saw_shm = false;
	int fd;

	snprintf(shm, sizeof(shm), "/dev/shm/ms-stale-%d", (int)getpid());
	fd = open(shm, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	close(fd);
	assert_int_equal(fixture_commandf(&fx->child, "mapr %s", shm), 0);
	assert_int_equal(unlink(shm), 0);
	assert_int_equal(fixture_commandf(&fx->child, "memfd"), 0);

	/* Without rules both are stale-looking: the unlinked shm file is "deleted". */
	scan(fx, MS_STALE_ALL_MAPPINGS);
	assert_int_equal(find(fx, shm, true)->result.verdict, MS_STALE_DELETED);

	assert_int_equal(ms_ignore_default(&fx->ignore, &err), 0);
	ms_stale_ctx_free(fx->ctx);
	assert_int_equal(ms_stale_ctx_new(fx->ignore, &fx->ctx, &err), 0);
	scan(fx, MS_STALE_ALL_MAPPINGS);
	for (size_t i = 0; i < fx->list.count; i++) {
		const struct ms_stale_file *f = &fx->list.items[i];

		if (!strncmp(f->name, "/memfd:ms-stale", 15)) {
			saw_memfd = true;
			assert_int_equal(f->result.verdict, MS_STALE_IGNORED);
			assert_non_null(strstr(f->result.why, "memfd"));
		}
		if (!strncmp(f->name, shm, strlen(shm))) {
			saw_shm = true;
			assert_int_equal(f->result.verdict, MS_STALE_IGNORED);
		}
	}
	assert_true(saw_memfd);
	assert_true(saw_shm);
	ms_stale_counts_add(&counts, &fx->list);
	assert_int_equal(counts.stale, 0);
	assert_true(counts.files[MS_STALE_IGNORED] >= 2);
}

static void test_counts(void **state)
{
	struct fx *fx = *state;
	struct ms_maps_opts mo = { .backend = MS_BACKEND_AUTO, .ioctl_fn = NULL };
	struct ms_stale_counts counts;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	assert_int_equal(ms_proc_open(fx->child.pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	assert_int_equal(ms_stale_count(fx->ctx, maps, 0, &counts, &err), 0);
	assert_int_equal(counts.stale, 0);
	assert_int_equal(counts.files[MS_STALE_DELETED], 0);

	assert_int_equal(unlink(fx->lib), 0);
	ms_stale_ctx_forget(fx->ctx);
	assert_int_equal(ms_stale_count(fx->ctx, maps, 0, &counts, &err), 0);
	assert_int_equal(counts.stale, 1);
	assert_int_equal(counts.files[MS_STALE_DELETED], 1);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

/*
 * The child's executable mapping of fx->lib (with or without the kernel's
 * " (deleted)"), read with names only, through a handle opened on backend.
 */
static void open_lib_mapping(struct fx *fx, enum ms_backend backend, struct ms_proc **proc,
			     struct ms_maps **maps, struct ms_mapping *m)
{
	struct ms_maps_opts mo = { .backend = backend, .ioctl_fn = NULL };
	size_t len = strlen(fx->lib);
	struct ms_error err;
	uint64_t addr = 0;
	bool found = false;

	assert_int_equal(ms_proc_open(fx->child.pid, proc, &err), 0);
	assert_int_equal(ms_maps_open(*proc, &mo, maps, &err), 0);
	ms_maps_set_fields(*maps, MS_FIELD_NAME);
	while (!found && ms_maps_next(*maps, addr, MS_FILTER_FILE_BACKED | MS_FILTER_EXECUTABLE, m, &err) == 0) {
		addr = m->end;
		found = m->name && !strncmp(m->name, fx->lib, len) &&
			(!m->name[len] || !strcmp(m->name + len, MS_DELETED_SUFFIX));
	}
	assert_true(found);
}

/*
 * One mapping, read the way the explorer's views read it (names only, no
 * build ID): after an identical copy is moved over it, ms_stale_judge asks
 * the kernel for the build ID it needs and says "same build", as the scan
 * does, never "replaced ... no build ID".
 */
static void test_judge_asks_for_the_build_id(void **state)
{
	struct fx *fx = *state;
	struct ms_stale_result r;
	struct ms_mapping m = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;

	rename_over(fx, fx->lib_a);
	open_lib_mapping(fx, MS_BACKEND_AUTO, &proc, &maps, &m);
	assert_int_equal(m.build_id_len, 0);
	assert_int_equal(ms_stale_judge(fx->ctx, maps, &m, &r), 0);
	assert_int_equal(r.verdict, MS_STALE_SAME_BUILD);
	assert_null(strstr(r.why, "no build ID"));
	/* The record is the caller's: it is not changed. */
	assert_int_equal(m.build_id_len, 0);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

/* Lookups are cached until forget: the explorer decides when to look again. */
static void test_cache_until_forget(void **state)
{
	struct fx *fx = *state;
	struct ms_stale_result r;
	struct ms_mapping m = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;

	open_lib_mapping(fx, MS_BACKEND_IOCTL, &proc, &maps, &m);
	assert_int_equal(ms_stale_judge(fx->ctx, maps, &m, &r), 0);
	assert_int_equal(r.verdict, MS_STALE_OK);

	rename_over(fx, fx->lib_b);
	/* Same record, cached lookup: still ok. */
	assert_int_equal(ms_stale_judge(fx->ctx, maps, &m, &r), 0);
	assert_int_equal(r.verdict, MS_STALE_OK);
	ms_stale_ctx_forget(fx->ctx);
	assert_int_equal(ms_stale_judge(fx->ctx, maps, &m, &r), 0);
	assert_int_equal(r.verdict, MS_STALE_REPLACED);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

/* The executable, marked; whether the scan marked it; its verdict ok. */
static bool exe_marked(struct fx *fx, unsigned flags)
{
	char *exe = tu_built("stale-child");
	char *real = realpath(exe, NULL);
	const struct ms_stale_file *f;

	assert_non_null(real);
	ms_stale_ctx_forget(fx->ctx);
	scan(fx, flags);
	f = find(fx, real, false);
	assert_int_equal(f->result.verdict, MS_STALE_OK);
	free(exe);
	free(real);
	return f->is_exe;
}

static void test_main_executable_is_listed(void **state)
{
	struct fx *fx = *state;

	/* Asked for: marked, though every file is current. */
	assert_true(exe_marked(fx, MS_STALE_MARK_EXE));
	/* Not asked for, and every file current: not looked at (a fleet walk's saving). */
	assert_false(exe_marked(fx, 0));
	/* A stale file in the process: the executable is marked beside it. */
	assert_int_equal(unlink(fx->lib), 0);
	assert_true(exe_marked(fx, 0));
}

static void test_build_id_matches_kernel(void **state)
{
	struct fx *fx = *state;
	unsigned char a[MS_BUILD_ID_MAX], b[MS_BUILD_ID_MAX];
	size_t alen, blen;
	const struct ms_stale_file *f = judge_lib_flags(fx, false, MS_STALE_BUILD_IDS);
	int fd;

	fd = open(fx->lib_a, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_buildid_read_fd(fd, a, &alen, NULL), 0);
	close(fd);
	fd = open(fx->lib_b, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_buildid_read_fd(fd, b, &blen, NULL), 0);
	close(fd);
	assert_int_equal(alen, 20); /* --build-id=sha1 */
	assert_int_equal(f->build_id_len, alen);
	assert_memory_equal(f->build_id, a, alen);
	assert_false(alen == blen && !memcmp(a, b, alen));

	/* Not ELF: no build ID, and no failure. */
	{
		char *text = tu_join(fx->dir, "text.txt");
		FILE *fp = fopen(text, "w");

		assert_non_null(fp);
		fputs("not an ELF file\n", fp);
		fclose(fp);
		fd = open(text, O_RDONLY | O_CLOEXEC);
		assert_int_equal(ms_buildid_read_fd(fd, a, &alen, NULL), MS_END);
		assert_int_equal(alen, 0);
		close(fd);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_untouched_is_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_by_other_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_by_crafted_elf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_by_same_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_backend_asks_the_kernel_for_the_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_procmap_query_cannot_prove_same_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_asks_for_the_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_really_named_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memfd_and_shm_are_not_flagged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_until_forget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_main_executable_is_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_id_matches_kernel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
