/*
 * Error paths of the engine: a process that exits mid-walk, a zombie, no
 * access, a kernel thread, a missing PID, and kernel answers simulated
 * through the ioctl seam (no PROCMAP_QUERY, EINTR, names past PATH_MAX, a
 * record that does not advance, names of every length into one record).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/compat.h"
#include "fixture_client.h"
#include "maps/maps.h"
#include "testutil.h"

static struct ms_maps *open_with(struct ms_proc *proc, enum ms_backend b, ms_ioctl_fn fn,
				 int *rc, struct ms_error *err)
{
	struct ms_maps_opts opts = { .backend = b, .ioctl_fn = fn };
	struct ms_maps *maps = NULL;

	*rc = ms_maps_open(proc, &opts, &maps, err);
	return maps;
}

static void test_exit_mid_walk(void **state)
{
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list = { 0 };
	struct ms_error err;
	uint64_t addr;
	int rc;

	(void)state;
	assert_int_equal(fixture_start(&fx), 0);
	assert_int_equal(ms_proc_open(fx.pid, &proc, &err), 0);
	maps = open_with(proc, MS_BACKEND_IOCTL, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(ms_maps_window(maps, 0, 0, 3, &list, &err), 0);
	assert_int_equal(list.count, 3);
	addr = list.items[2].end;
	fixture_kill(&fx, true);
	rc = ms_maps_window(maps, addr, 0, 1000, &list, &err);
	assert_int_equal(rc, MS_ERR_EXITED);
	assert_int_equal(err.code, MS_ERR_EXITED);
	assert_non_null(strstr(err.msg, "exited"));
	/* What was read before stays. */
	assert_int_equal(list.count, 3);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	fixture_stop(&fx);
}

static void test_zombie(void **state)
{
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_mapping m = { 0 };
	struct ms_error err;
	int rc;

	(void)state;
	assert_int_equal(fixture_start(&fx), 0);
	assert_int_equal(ms_proc_open(fx.pid, &proc, &err), 0);
	maps = open_with(proc, MS_BACKEND_TEXT, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	fixture_kill(&fx, false);
	assert_int_equal(ms_proc_liveness(proc), MS_PROC_ZOMBIE);
	assert_int_equal(ms_maps_next(maps, 0, 0, &m, &err), MS_ERR_EXITED);
	assert_non_null(strstr(err.msg, "zombie"));
	ms_maps_close(maps);
	/* A zombie opened afresh has no address space either. */
	maps = open_with(proc, MS_BACKEND_AUTO, NULL, &rc, &err);
	assert_null(maps);
	assert_int_equal(rc, MS_ERR_EXITED);
	ms_proc_close(proc);
	fixture_stop(&fx);
}

static void test_no_such_process(void **state)
{
	struct ms_proc *proc = NULL;
	struct ms_error err;
	pid_t pid;

	(void)state;
	/* A child that has been reaped: its PID is free for now. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	assert_int_equal(ms_proc_open(pid, &proc, &err), MS_ERR_NOPROC);
	assert_non_null(strstr(err.msg, "no such process"));
	assert_int_equal(ms_error_exit_status(err.code), 1);
	assert_int_equal(ms_proc_open(-4, &proc, &err), MS_ERR_INVAL);
}

/* Runs in a child that dropped to uid 65534; the exit code carries the answer. */
static int probe_access_as_nobody(pid_t target)
{
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	int rc;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	if (ms_proc_open(target, &proc, &err) < 0)
		return 11;
	maps = open_with(proc, MS_BACKEND_AUTO, NULL, &rc, &err);
	if (maps || rc != MS_ERR_NOACCESS || !strstr(err.msg, "ptrace"))
		return 12;
	ms_proc_close(proc);
	return 0;
}

static void test_no_access(void **state)
{
	struct fixture fx;
	pid_t targets[2] = { 1, 0 };
	int status;

	(void)state;
	if (getuid() != 0) {
		printf("# skipped: no-access test needs root to drop to uid 65534\n");
		skip();
	}
	assert_int_equal(fixture_start(&fx), 0);
	targets[1] = fx.pid;
	for (int i = 0; i < 2; i++) {
		pid_t child = fork();

		if (child == 0)
			_exit(probe_access_as_nobody(targets[i]));
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) != 0)
			fail_msg("pid %d as nobody: probe failed with %d", (int)targets[i], WEXITSTATUS(status));
	}
	fixture_stop(&fx);
}

static void test_kernel_thread(void **state)
{
	pid_t kt = tu_kernel_thread();
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	int rc;

	(void)state;
	if (!kt) {
		printf("# skipped: no kernel thread visible in /proc\n");
		skip();
	}
	assert_int_equal(ms_proc_open(kt, &proc, &err), 0);
	maps = open_with(proc, MS_BACKEND_AUTO, NULL, &rc, &err);
	assert_null(maps);
	assert_int_equal(rc, MS_ERR_NOMM);
	assert_non_null(strstr(err.msg, "kernel thread"));
	maps = open_with(proc, MS_BACKEND_TEXT, NULL, &rc, &err);
	if (maps) {
		struct ms_mapping m = { 0 };

		assert_int_equal(ms_maps_next(maps, 0, 0, &m, &err), MS_ERR_NOMM);
		ms_maps_close(maps);
	} else {
		assert_int_equal(rc, MS_ERR_NOMM);
	}
	ms_proc_close(proc);
}

/* ---- the ioctl seam ------------------------------------------------------ */

static int calls;

static int no_procmap_query(int fd, unsigned long request, void *arg)
{
	(void)fd;
	(void)arg;
	calls++;
	if (request == PROCMAP_QUERY) {
		errno = ENOTTY;
		return -1;
	}
	return ioctl(fd, request, arg);
}

static int interrupted_every_other(int fd, unsigned long request, void *arg)
{
	if (calls++ % 2 == 0) {
		errno = EINTR;
		return -1;
	}
	return ioctl(fd, request, arg);
}

static int names_never_fit(int fd, unsigned long request, void *arg)
{
	struct procmap_query *q = arg;

	calls++;
	if (q->vma_name_size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return ioctl(fd, request, arg);
}

static int stuck_kernel(int fd, unsigned long request, void *arg)
{
	struct procmap_query *q = arg;
	int rc = ioctl(fd, request, arg);

	calls++;
	/* Always the same record, whatever address was asked for. */
	if (rc == 0 || errno == ENOENT) {
		q->vma_start = 0x1000;
		q->vma_end = 0x2000;
		q->vma_name_size = 0;
		q->build_id_size = 0;
		return 0;
	}
	return rc;
}

/*
 * Names of these lengths, in turn, for every answer that asks for a name:
 * short, past the engine's first 256-byte buffer, none, and shorter again,
 * so one record passed back query after query must grow, shrink and give
 * its buffer up.  Each call's inputs are checked against the kernel's rules
 * (maps_ioctl.c): both buffers given with their sizes or not at all, the
 * name size reset to the whole buffer, no build-ID buffer unasked.
 */
static const size_t name_lens[] = { 5, 40, 300, 7, 0, 1000, 63, 64, 2, 4000, 1 };
#define NAME_LENS (sizeof(name_lens) / sizeof(name_lens[0]))
static size_t named_answers, name_buf_size, bad_inputs;

static int names_of_every_length(int fd, unsigned long request, void *arg)
{
	struct procmap_query *q = arg;
	size_t len = name_lens[named_answers % NAME_LENS];
	int rc;

	calls++;
	if (q->size != sizeof(*q) || q->build_id_addr || q->build_id_size ||
	    !q->vma_name_addr != !q->vma_name_size || (q->vma_name_addr && q->vma_name_size < name_buf_size))
		bad_inputs++;
	if (q->vma_name_addr && q->vma_name_size > name_buf_size)
		name_buf_size = q->vma_name_size;
	if (q->vma_name_addr && len + 1 > q->vma_name_size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	rc = ioctl(fd, request, arg);
	if (rc == 0 && q->vma_name_addr) {
		char *name = (char *)(uintptr_t)q->vma_name_addr;

		memset(name, 'a' + (int)(named_answers % 26), len);
		name[len] = '\0';
		q->vma_name_size = len ? (uint32_t)len + 1 : 0;
		named_answers++;
	}
	return rc;
}

struct seam_ctx {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maplist reference; /* the real ioctl's answer */
};

static int seam_setup(void **state)
{
	struct seam_ctx *c = calloc(1, sizeof(*c));
	struct ms_maps *maps;
	struct ms_error err;
	int rc;

	assert_non_null(c);
	assert_int_equal(fixture_start(&c->fx), 0);
	assert_int_equal(ms_proc_open(c->fx.pid, &c->proc, &err), 0);
	maps = open_with(c->proc, MS_BACKEND_IOCTL, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(ms_maps_collect(maps, 0, &c->reference, &err), 0);
	ms_maps_close(maps);
	*state = c;
	return 0;
}

static int seam_teardown(void **state)
{
	struct seam_ctx *c = *state;

	ms_maplist_free(&c->reference);
	ms_proc_close(c->proc);
	fixture_stop(&c->fx);
	free(c);
	return 0;
}

static void test_missing_ioctl_falls_back(void **state)
{
	struct seam_ctx *c = *state;
	struct ms_maplist list = { 0 };
	struct ms_maps *maps;
	struct ms_error err;
	size_t vsyscall = 0;
	int rc, calls_after_probe;

	calls = 0;
	maps = open_with(c->proc, MS_BACKEND_AUTO, no_procmap_query, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(ms_maps_backend(maps), MS_BACKEND_TEXT);
	calls_after_probe = calls;
	assert_int_equal(calls_after_probe, 1);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	/* Remembered: the ioctl is not tried again. */
	assert_int_equal(calls, calls_after_probe);
	for (size_t i = 0; i < list.count; i++)
		if (list.items[i].name && !strcmp(list.items[i].name, "[vsyscall]"))
			vsyscall++;
	assert_int_equal(list.count - vsyscall, c->reference.count);
	ms_maplist_free(&list);
	ms_maps_close(maps);

	/* Asked for the ioctl explicitly: a clear error, no silent fallback. */
	maps = open_with(c->proc, MS_BACKEND_IOCTL, no_procmap_query, &rc, &err);
	assert_null(maps);
	assert_int_equal(rc, MS_ERR_NOTSUP);
	assert_non_null(strstr(err.msg, "PROCMAP_QUERY"));
}

/* Open the ioctl backend through fn and collect everything; the collect must answer want. */
static struct ms_maps *collect_through(struct seam_ctx *c, ms_ioctl_fn fn, struct ms_maplist *list,
				       int want)
{
	struct ms_maps *maps;
	struct ms_error err;
	int rc;

	calls = 0;
	maps = open_with(c->proc, MS_BACKEND_IOCTL, fn, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(ms_maps_collect(maps, 0, list, &err), want);
	return maps;
}

static void test_eintr_is_retried(void **state)
{
	struct seam_ctx *c = *state;
	struct ms_maplist list = { 0 };
	struct ms_maps *maps = collect_through(c, interrupted_every_other, &list, 0);

	assert_int_equal(list.count, c->reference.count);
	for (size_t i = 0; i < list.count; i++)
		assert_int_equal(list.items[i].start, c->reference.items[i].start);
	assert_true(calls >= 2 * (int)list.count);
	ms_maplist_free(&list);
	ms_maps_close(maps);
}

static void test_name_past_path_max(void **state)
{
	struct seam_ctx *c = *state;
	struct ms_maplist list = { 0 };
	struct ms_maps *maps = collect_through(c, names_never_fit, &list, 0);

	/* Every mapping still comes back, with its name flagged instead of lost silently. */
	assert_int_equal(list.count, c->reference.count);
	for (size_t i = 0; i < list.count; i++) {
		assert_true(list.items[i].name_truncated);
		assert_int_equal(list.items[i].inode, c->reference.items[i].inode);
	}
	/* The probe at open counts too. */
	assert_true(ms_maps_stats(maps)->names_truncated >= list.count);
	ms_maplist_free(&list);
	ms_maps_close(maps);
}

static void test_non_advancing_answer_stops(void **state)
{
	struct seam_ctx *c = *state;
	struct ms_maplist list = { 0 };
	struct ms_maps *maps = collect_through(c, stuck_kernel, &list, MS_ERR_PROTO);

	assert_true(calls < 10);
	assert_int_equal(list.count, 1);
	ms_maplist_free(&list);
	ms_maps_close(maps);
}

static void test_one_record_every_name_length(void **state)
{
	struct seam_ctx *c = *state;
	struct ms_mapping m = { 0 };
	struct ms_maps *maps;
	struct ms_error err;
	uint64_t addr = 0;
	size_t i = 0;
	int rc;

	calls = 0;
	named_answers = 0;
	name_buf_size = 0;
	bad_inputs = 0;
	maps = open_with(c->proc, MS_BACKEND_IOCTL, names_of_every_length, &rc, &err);
	assert_int_equal(rc, 0);
	named_answers = 0;
	for (;;) {
		size_t len = name_lens[i % NAME_LENS], cap_before = m.name ? m.name_cap : 0;
		char *before = m.name;

		if ((rc = ms_maps_next(maps, addr, 0, &m, &err)) != 0)
			break;
		/* ms_maps_next answered, so this was named answer i. */
		assert_int_equal(named_answers, i + 1);
		assert_int_equal(m.start, c->reference.items[i].start);
		if (!len) {
			assert_null(m.name);
			assert_int_equal(m.name_len, 0);
		} else {
			assert_non_null(m.name);
			assert_int_equal(m.name_len, len);
			assert_int_equal(m.name[len], '\0');
			for (size_t k = 0; k < len; k++)
				assert_int_equal(m.name[k], 'a' + (int)(i % 26));
			assert_true(m.name_cap > len);
			/* A name that fits the record's buffer is written into it. */
			if (cap_before > len)
				assert_ptr_equal(m.name, before);
		}
		addr = m.end;
		i++;
	}
	assert_int_equal(rc, MS_END);
	assert_int_equal(i, c->reference.count);
	assert_true(i > NAME_LENS);
	assert_int_equal(bad_inputs, 0);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
}

/* A name that fits the record's buffer goes into it; a longer one gets a new buffer. */
static void test_set_name_reuses(void **state)
{
	struct ms_mapping m = { 0 };
	char longer[200];
	char *first;

	(void)state;
	assert_int_equal(ms_mapping_set_name(&m, "/usr/lib/libfirst.so.1", 22), 0);
	first = m.name;
	assert_true(m.name_cap > 22);
	assert_int_equal(ms_mapping_set_name(&m, "/lib/a.so", 9), 0);
	assert_ptr_equal(m.name, first);
	assert_string_equal(m.name, "/lib/a.so");
	assert_int_equal(m.name_len, 9);
	/* Its own bytes, shifted: memmove, not memcpy. */
	assert_int_equal(ms_mapping_set_name(&m, m.name + 5, 4), 0);
	assert_string_equal(m.name, "a.so");
	memset(longer, 'x', sizeof(longer));
	assert_int_equal(ms_mapping_set_name(&m, longer, sizeof(longer)), 0);
	assert_int_equal(m.name_len, sizeof(longer));
	assert_true(m.name_cap > sizeof(longer));
	assert_int_equal(m.name[sizeof(longer)], '\0');
	/* A pointer set by hand with name_cap 0 is never written past name_len + 1. */
	ms_mapping_reset(&m);
	m.name = strdup("ab");
	m.name_len = 2;
	assert_int_equal(ms_mapping_set_name(&m, "abc", 3), 0);
	assert_string_equal(m.name, "abc");
	assert_int_equal(ms_mapping_set_name(&m, NULL, 0), 0);
	assert_null(m.name);
	assert_int_equal(m.name_cap, 0);
	ms_mapping_reset(&m);
}

int main(void)
{
	const struct CMUnitTest process_tests[] = {
		cmocka_unit_test(test_exit_mid_walk),
		cmocka_unit_test(test_zombie),
		cmocka_unit_test(test_no_such_process),
		cmocka_unit_test(test_no_access),
		cmocka_unit_test(test_kernel_thread),
	};
	const struct CMUnitTest seam_tests[] = {
		cmocka_unit_test(test_missing_ioctl_falls_back),
		cmocka_unit_test(test_eintr_is_retried),
		cmocka_unit_test(test_name_past_path_max),
		cmocka_unit_test(test_non_advancing_answer_stops),
		cmocka_unit_test(test_one_record_every_name_length),
		cmocka_unit_test(test_set_name_reuses),
	};
	int failed = cmocka_run_group_tests_name("process errors", process_tests, NULL, NULL);

	return failed + cmocka_run_group_tests_name("ioctl seam", seam_tests, seam_setup, seam_teardown);
}
