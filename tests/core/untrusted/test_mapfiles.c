/*
 * mapfiles.h: the running copy of a mapped file through
 * /proc/PID/map_files, whatever is at its path now.
 *
 *   - a file this process maps, then replaced at its path by another file
 *     or deleted, opens as the mapped inode itself, its bytes the old ones;
 *   - a mapping record that no longer names one VMA is refused, never
 *     another mapping's file;
 *   - a memfd, on the kernel's own mount that no table lists, is refused
 *     with MS_WALK_WHY_LINK_UNLISTED, not as daemon-served, and its name
 *     alone says what it is (ms_mapping_not_a_file);
 *   - a process without CAP_SYS_ADMIN (a child turned uid 65534) is
 *     refused by the kernel and told MS_MAPFILES_WHY_PRIV;
 *   - the attack: uid 65534 maps a library from its own FUSE file system,
 *     whose path then names another inode and whose daemon stops answering
 *     GETATTR, READ and LOOKUP.  ms_mapfiles_open, even without the device
 *     check (fstypes NULL), must refuse by the link's mount before any
 *     request reaches the daemon; and `mapscope at` as root must finish.
 *     The call runs in a child under a deadline; past it the server is
 *     killed, which releases whatever slept on it, and the test fails.
 * Root is needed, and /dev/fuse for the attack (else it skips with why).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/fstype.h"
#include "proc/proc.h"
#include "untrusted/mapfiles.h"
#include "untrusted/untrusted_walk.h"
#include "fuse_server.h"
#include "msrun.h"
#include "testutil.h"

/* The mapping of pid that starts at addr, as /proc/PID/maps prints it. */
static bool mapping_at(pid_t pid, unsigned long addr, struct ms_mapping *m)
{
	char name[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(name, "re")))
		return false;
	memset(m, 0, sizeof(*m));
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64, &m->start, &m->end,
			   &m->offset, &maj, &min, &m->inode) == 6 && m->start == addr) {
			m->dev_major = maj;
			m->dev_minor = min;
			found = true;
		}
	}
	fclose(f);
	return found;
}

struct ours {
	struct ms_proc *proc;
	struct ms_walk_root root;
};

/* No cmocka assertion: children call it too. */
static bool ours_open(struct ours *o, pid_t pid)
{
	struct ms_error err;

	if (ms_proc_open(pid, &o->proc, &err) < 0)
		return false;
	o->root = (struct ms_walk_root){ .fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) };
	return o->root.fd >= 0 && ms_walk_mounts_load(-1, &o->root.mounts, &err) == 0;
}

static void ours_close(struct ours *o)
{
	ms_walk_mounts_free(o->root.mounts);
	close(o->root.fd);
	ms_proc_close(o->proc);
}

/* A copy of the test library in dir, mapped here: its address; *st its stat. */
static unsigned char *map_copy(const char *path, struct stat *st)
{
	char *lib = tu_built("libms-fixture-sym.so");
	unsigned char *p;
	int fd;

	assert_int_equal(tu_copy(lib, path), 0);
	free(lib);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, st), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	return p;
}

static void check_running_copy(const char *what, bool replace)
{
	char *dir = tu_tmpdir(), *path = tu_join(dir, "lib.so"), *other = tu_join(dir, "other");
	struct ours o;
	struct ms_mapping m;
	struct stat st, got;
	const char *why;
	unsigned char head[4096];
	unsigned char *p = map_copy(path, &st);
	int fd;

	if (replace) {
		assert_int_equal(tu_spit(other, "not the mapped file\n"), 0);
		assert_int_equal(rename(other, path), 0);
	} else {
		assert_int_equal(unlink(path), 0);
	}
	assert_true(mapping_at(getpid(), (unsigned long)p, &m));
	assert_true(ours_open(&o, getpid()));
	fd = ms_mapfiles_open(o.proc, &m, NULL, &o.root, &got, &why);
	if (fd < 0)
		fail_msg("%s: refused: %s", what, why);
	assert_int_equal(got.st_ino, st.st_ino);
	assert_int_equal(got.st_dev, st.st_dev);
	assert_int_equal(pread(fd, head, sizeof(head), 0), (ssize_t)sizeof(head));
	assert_memory_equal(head, p, sizeof(head));
	close(fd);
	ours_close(&o);
	munmap(p, 4096);
	tu_rmtree(dir);
	free(dir);
	free(path);
	free(other);
}

static void test_replaced(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	check_running_copy("replaced", true);
}

static void test_deleted(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	check_running_copy("deleted", false);
}

/* A record whose range is no longer one VMA: refused, not another mapping's file. */
static void test_changed_mapping(void **state)
{
	char *dir, *path;
	struct ours o;
	struct ms_mapping m;
	struct stat st;
	const char *why;
	unsigned char *p;

	(void)state;
	if (geteuid() != 0)
		skip();
	dir = tu_tmpdir();
	path = tu_join(dir, "lib.so");
	p = map_copy(path, &st);
	assert_true(mapping_at(getpid(), (unsigned long)p, &m));
	assert_true(ours_open(&o, getpid()));
	munmap(p, 4096);
	assert_int_equal(ms_mapfiles_open(o.proc, &m, NULL, &o.root, NULL, &why), -1);
	assert_string_equal(why, MS_MAPFILES_WHY_GONE);
	ours_close(&o);
	tu_rmtree(dir);
	free(dir);
	free(path);
}

/*
 * A memfd lives on the kernel's own shm mount, which no mount table lists:
 * its link is refused by its mount, and said as it is, never as a
 * daemon-served one; and its name says what it is before any of that.
 */
static void test_memfd(void **state)
{
	static char name[] = "/memfd:ms-test (deleted)";
	struct ms_mapping m;
	struct ours o;
	const char *why;
	unsigned char *p;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	fd = memfd_create("ms-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	assert_true(mapping_at(getpid(), (unsigned long)p, &m));
	assert_true(ours_open(&o, getpid()));
	assert_int_equal(ms_mapfiles_open(o.proc, &m, NULL, &o.root, NULL, &why), -1);
	assert_string_equal(why, MS_WALK_WHY_LINK_UNLISTED);
	m.name = name;
	m.name_len = sizeof(name) - 1;
	assert_string_equal(ms_mapping_not_a_file(&m), "a memfd, by its name: not a file on disk");
	/* A device of a real disk: a file so named, never taken for one. */
	m.dev_major = 8;
	assert_null(ms_mapping_not_a_file(&m));
	ours_close(&o);
	munmap(p, 4096);
}

/*
 * Without CAP_SYS_ADMIN: a child of uid 65534 asks for its own mapping
 * (ptrace access to itself is always granted, so only the link's own
 * capability check can refuse).  It exits 0 when told MS_MAPFILES_WHY_PRIV.
 */
static void test_needs_root(void **state)
{
	char *dir, *path;
	struct stat st;
	unsigned char *p;
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	dir = tu_tmpdir();
	path = tu_join(dir, "lib.so");
	assert_int_equal(chmod(dir, 0755), 0);
	p = map_copy(path, &st);
	munmap(p, 4096);
	assert_int_equal(chmod(path, 0644), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ms_mapping m;
		struct ours o;
		const char *why;
		int fd;

		/* No cmocka assertion here: a failing one would go on running the tests as this child. */
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED || !mapping_at(getpid(), (unsigned long)p, &m) || !ours_open(&o, getpid()))
			_exit(11);
		fd = ms_mapfiles_open(o.proc, &m, NULL, &o.root, NULL, &why);
		_exit(fd < 0 && why && !strcmp(why, MS_MAPFILES_WHY_PRIV) ? 0 : 12);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tu_rmtree(dir);
	free(dir);
	free(path);
}

struct fx {
	struct fuse_server server;
	pid_t mapper;
	unsigned long addr;
	bool started;
};

static int setup_fuse(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *lib = tu_built("libms-fixture-sym.so");
	const char *why = NULL;

	assert_non_null(fx);
	*state = fx;
	if (geteuid() != 0 || fuse_server_start(&fx->server, lib, &why) < 0) {
		print_message("skipped: %s\n", why ? why : "needs root");
		free(lib);
		return 0;
	}
	free(lib);
	fx->started = true;
	if (fuse_map_in_child(fx->server.path, 65534, &fx->mapper, &fx->addr) < 0) {
		fuse_server_stop(&fx->server);
		fail_msg("uid 65534 could not map %s", fx->server.path);
	}
	/* The path now names another inode, and the daemon answers nothing more about the file. */
	fuse_server_hang_reads(&fx->server);
	fx->server.modes->hang_getattrs = 1;
	fx->server.modes->hang_lookups = 1;
	return 0;
}

static int teardown_fuse(void **state)
{
	struct fx *fx = *state;

	fuse_server_stop_mapped(&fx->server, &fx->mapper);
	free(fx);
	return 0;
}

/*
 * ms_mapfiles_open on the FUSE mapping in a child, fstypes as given:
 * the child writes why.  Past the deadline the server is aborted.
 */
static void refused_in_child(struct fx *fx, bool with_fstypes, char *why, size_t size)
{
	long long deadline = tu_deadline();
	struct pollfd pfd;
	int out[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ms_fstypes *types = NULL;
		struct ms_mapping m;
		struct ms_error err;
		struct ours o;
		const char *w = NULL;
		int fd;

		if (!mapping_at(fx->mapper, fx->addr, &m))
			_exit(1);
		if (!ours_open(&o, fx->mapper))
			_exit(3);
		if (with_fstypes && ms_fstypes_load(o.proc, &types, &err) < 0)
			_exit(2);
		fd = ms_mapfiles_open(o.proc, &m, types, &o.root, NULL, &w);
		dprintf(out[1], "%s", fd >= 0 ? "opened" : w ? w : "no reason");
		_exit(0);
	}
	close(out[1]);
	pfd = (struct pollfd){ .fd = out[0], .events = POLLIN };
	while (poll(&pfd, 1, 50) == 0 && tu_now_ms() < deadline)
		;
	if (!(pfd.revents & (POLLIN | POLLHUP))) {
		fuse_server_abort(&fx->server);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("ms_mapfiles_open waited on the daemon (GETATTR %d, READ %d unanswered)",
			 fx->server.getattrs_hung, fx->server.reads_hung);
	}
	n = read(out[0], why, size - 1);
	why[n > 0 ? n : 0] = '\0';
	close(out[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(fx->server.modes->getattrs_hung, 0);
	assert_int_equal(fx->server.modes->reads_hung, 0);
	assert_int_equal(fx->server.modes->lookups_hung, 0);
}

/* By the link's mount alone: no device check to stop it first. */
static void test_fuse_by_mount(void **state)
{
	struct fx *fx = *state;
	char why[256];

	if (!fx->started)
		skip();
	refused_in_child(fx, false, why, sizeof(why));
	assert_string_equal(why, MS_WALK_WHY_SERVED);
}

static void test_fuse_by_device(void **state)
{
	struct fx *fx = *state;
	char why[256];

	if (!fx->started)
		skip();
	refused_in_child(fx, true, why, sizeof(why));
	assert_non_null(strstr(why, "fuse"));
}

/* The whole command, root's: finishes, and leaves the daemon nothing unanswered. */
static void test_fuse_at(void **state)
{
	struct fx *fx = *state;
	char pid[16], addr[32];
	const char *why;
	char *out;
	int status;

	if (!fx->started)
		skip();
	snprintf(pid, sizeof(pid), "%d", (int)fx->mapper);
	snprintf(addr, sizeof(addr), "%lx", fx->addr + 0x100);
	out = fuse_server_run(&fx->server, MSRUN_ARGS("at", pid, addr, "-o", "ADDR,SYMBOL"), &status, &why);
	if (why)
		fail_msg("mapscope at: %s", why);
	assert_non_null(out);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, addr));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replaced),
		cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_changed_mapping),
		cmocka_unit_test(test_memfd),
		cmocka_unit_test(test_needs_root),
		cmocka_unit_test_setup_teardown(test_fuse_by_mount, setup_fuse, teardown_fuse),
		cmocka_unit_test_setup_teardown(test_fuse_by_device, setup_fuse, teardown_fuse),
		cmocka_unit_test_setup_teardown(test_fuse_at, setup_fuse, teardown_fuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
