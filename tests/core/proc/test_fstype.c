/*
 * Which files the kernel may be asked to read (src/core/proc/fstype.h), and the
 * engine's use of it: a build-ID query (a read of the file by the kernel)
 * is made only for devices the kernel serves itself.  The engine is driven
 * through its ioctl seam on this very process: the fake passes every query
 * to the kernel, counts the ones that carry a build-ID buffer, and can move
 * answers to a device no mount table lists.  A walk's shared tables
 * (fstype_shared.h) are asked about this process and a forked child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/compat.h"
#include "proc/fstype.h"
#include "proc/fstype_shared.h"
#include "maps/maps.h"

static const char mountinfo[] =
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	"60 27 0:50 / /mnt/a rw,nosuid,nodev,relatime shared:5 - fuse.sshfs host:/ rw,user_id=0\n"
	"61 27 0:51 / /mnt/b rw master:2 - fuse mapscope rw\n"
	"62 27 8:17 / /mnt/ntfs rw - fuseblk /dev/sdb1 rw\n"
	"63 27 0:52 / /mnt/n rw - nfs4 server:/export rw\n"
	"64 27 0:53 / /mnt/c rw - cifs //srv/share rw\n"
	"65 27 0:54 / /mnt/9 rw - 9p tag rw\n"
	"66 27 0:55 / /tmp rw - tmpfs tmpfs rw\n"
	/* The same device mounted twice, once through a served type: refused. */
	"67 27 0:56 / /x rw - tmpfs tmpfs rw\n"
	"68 27 0:56 / /y rw - virtiofs tag rw\n"
	/* Malformed lines are skipped, not fatal. */
	"garbage\n"
	"69 27 1:x / /bad rw - fuse x rw\n"
	"70 27 0:57 / /nosep rw fuse x rw\n";

static void test_classify_mountinfo(void **state)
{
	struct ms_fstypes *t;
	struct ms_error err;

	assert_int_equal(ms_fstypes_parse(mountinfo, strlen(mountinfo), &t, &err), 0);
	assert_null(ms_fstypes_refuse(t, 254, 0));
	assert_null(ms_fstypes_refuse(t, 0, 55));
	assert_string_equal(ms_fstypes_refuse(t, 0, 50), "file on a fuse file system");
	assert_string_equal(ms_fstypes_refuse(t, 0, 51), "file on a fuse file system");
	assert_string_equal(ms_fstypes_refuse(t, 8, 17), "file on a fuseblk file system");
	assert_string_equal(ms_fstypes_refuse(t, 0, 52), "file on an nfs file system");
	assert_string_equal(ms_fstypes_refuse(t, 0, 53), "file on a cifs file system");
	assert_string_equal(ms_fstypes_refuse(t, 0, 54), "file on a 9p file system");
	assert_string_equal(ms_fstypes_refuse(t, 0, 56), "file on a virtiofs file system");
	/* Unlisted anonymous devices (every FUSE and network one), and lines that did not parse, are refused. */
	assert_non_null(strstr(ms_fstypes_refuse(t, 0, 57), "missing from the process's mount table"));
	/* An unlisted real block device is read: in a chroot, the host's disk is not listed. */
	assert_null(ms_fstypes_refuse(t, 1, 0));
	assert_non_null(ms_fstypes_refuse(NULL, 254, 0));
	ms_fstypes_free(t);
}

/* Mount points (unescaped) and mount IDs, for the path walk (untrusted_walk.h). */
static void test_points_and_ids(void **state)
{
	static const char text[] =
		"40 27 0:99 / /home/u/my\\040mnt rw,nosuid - fuse.sshfs u@h:/ rw\n"
		"41 27 8:1 / /data rw - ext4 /dev/sda1 rw\n"
		"42 40 0:98 / /home/u/in\\134side rw - nfs4 srv:/ rw\n"
		"43 27 0:97 / /bad\\9x rw - 9p x rw\n";
	struct ms_fstypes *t;
	bool known;

	(void)state;
	assert_int_equal(ms_fstypes_parse(text, sizeof(text) - 1, &t, NULL), 0);
	assert_non_null(ms_fstypes_refuse_point(t, "/home/u/my mnt", 14));
	assert_null(ms_fstypes_refuse_point(t, "/home/u/my\\040mnt", 17));
	assert_non_null(ms_fstypes_refuse_point(t, "/home/u/in\\side", 15));
	/* Not an escape: kept as it is. */
	assert_non_null(ms_fstypes_refuse_point(t, "/bad\\9x", 7));
	/* Allowed types are no refused points. */
	assert_null(ms_fstypes_refuse_point(t, "/data", 5));
	assert_non_null(ms_fstypes_refuse_mount(t, 40, &known));
	assert_true(known);
	assert_null(ms_fstypes_refuse_mount(t, 41, &known));
	assert_true(known);
	assert_null(ms_fstypes_refuse_mount(t, 44, &known));
	assert_false(known);
	ms_fstypes_free(t);
}

static void test_classify_magic(void **state)
{
	assert_string_equal(ms_fstypes_refuse_magic(0x65735546), "file on a fuse file system");
	assert_string_equal(ms_fstypes_refuse_magic(0x6969), "file on an nfs file system");
	assert_non_null(ms_fstypes_refuse_magic(0xfe534d42));
	assert_non_null(ms_fstypes_refuse_magic(0xff534d42));
	assert_non_null(ms_fstypes_refuse_magic(0x01021997));
	assert_non_null(ms_fstypes_refuse_magic(0x00c36400));
	assert_null(ms_fstypes_refuse_magic(0xef53));       /* ext4 */
	assert_null(ms_fstypes_refuse_magic(0x01021994));   /* tmpfs */
}

/* A mount table far past the line bound is read up to the bound, no further. */
static void test_line_bound(void **state)
{
	size_t lines = MS_FSTYPES_LINES_MAX + 10, len = 0;
	char *text = malloc(lines * 64);
	struct ms_fstypes *t;
	struct ms_error err;

	assert_non_null(text);
	for (size_t i = 0; i < lines; i++)
		len += (size_t)sprintf(text + len, "%zu 1 0:%zu / /m%zu rw - tmpfs x rw\n", i, i, i);
	assert_int_equal(ms_fstypes_parse(text, len, &t, &err), 0);
	assert_null(ms_fstypes_refuse(t, 0, 0));
	assert_null(ms_fstypes_refuse(t, 0, MS_FSTYPES_LINES_MAX - 1));
	assert_non_null(ms_fstypes_refuse(t, 0, MS_FSTYPES_LINES_MAX));
	ms_fstypes_free(t);
	free(text);
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The ioctl seam: count build-ID queries; optionally move every file to device 0:1048575. */
static size_t build_id_queries;
static int move_files;

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct procmap_query *q = arg;
	int rc;

	if (request == PROCMAP_QUERY && q->build_id_size)
		build_id_queries++;
	rc = ioctl(fd, request, arg);
	if (rc == 0 && request == PROCMAP_QUERY && move_files && q->inode) {
		q->dev_major = 0;
		q->dev_minor = 0xfffff;
	}
	return rc;
}

static size_t walk_pid(pid_t pid, struct ms_fstypes_shared *shared, size_t *with_id, size_t *skipped)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = fake_ioctl, .fstypes_shared = shared };
	struct ms_mapping m = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	uint64_t addr = 0;
	size_t files = 0;

	*with_id = *skipped = 0;
	build_id_queries = 0;
	assert_int_equal(ms_proc_open(pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	ms_maps_set_fields(maps, MS_FIELDS_ALL);
	while (ms_maps_next(maps, addr, MS_FILTER_FILE_BACKED, &m, &err) == 0) {
		addr = m.end;
		files++;
		*with_id += m.build_id_len > 0;
		*skipped += m.build_id_skipped != NULL;
	}
	assert_int_equal(ms_maps_stats(maps)->build_ids_skipped, *skipped);
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return files;
}

static size_t walk_self(size_t *with_id, size_t *skipped)
{
	return walk_pid(getpid(), NULL, with_id, skipped);
}

static void test_engine_asks_only_for_local_files(void **state)
{
	size_t with_id, skipped, files;

	move_files = 0;
	files = walk_self(&with_id, &skipped);
	assert_true(files > 0);
	assert_true(with_id >= 2); /* this test and libc carry build IDs */
	assert_int_equal(skipped, 0);
	assert_true(build_id_queries > 0);

	move_files = 1;
	files = walk_self(&with_id, &skipped);
	assert_true(files > 0);
	assert_int_equal(with_id, 0);
	assert_int_equal(skipped, files);
	assert_int_equal(build_id_queries, 0);
}

/*
 * A child of ours, forked (so it maps what we map) and waiting; in a mount
 * namespace of its own when own_ns.  0 when it could not have one.
 */
static pid_t start_child(bool own_ns)
{
	int fds[2];
	char c = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		c = !own_ns || unshare(CLONE_NEWNS) == 0 ? 'r' : 'n';
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	if (c != 'r') {
		stop_child(pid);
		return 0;
	}
	return pid;
}

/*
 * A walk's shared mount tables: a second process in our namespace is
 * answered from the first one's table, with the same build IDs; an
 * anonymous device is never answered from it.
 */
static void test_shared_tables(void **state)
{
	struct ms_fstypes_shared *shared = ms_fstypes_shared_new();
	size_t with_id, skipped, files, alone_id, alone_skipped;
	pid_t child = start_child(false);
	const char *why = "unset";
	struct ms_proc *proc;
	struct ms_error err;

	assert_non_null(shared);
	move_files = 0;
	walk_self(&alone_id, &alone_skipped);
	assert_true(alone_id >= 2);
	files = walk_pid(getpid(), shared, &with_id, &skipped);
	assert_int_equal(ms_fstypes_shared_loaded(shared), 1);
	assert_int_equal(with_id, alone_id);
	assert_int_equal(skipped, alone_skipped);
	assert_true(files > 0);
	walk_pid(child, shared, &with_id, &skipped);
	assert_int_equal(ms_fstypes_shared_loaded(shared), 1);
	assert_int_equal(with_id, alone_id);

	/* Anonymous devices: the set does not answer; each handle's own table refuses them. */
	assert_int_equal(ms_proc_open(child, &proc, &err), 0);
	assert_false(ms_fstypes_shared_refuse(ms_fstypes_shared_table(shared, proc), 0, 0xfffff, &why));
	assert_string_equal(why, "unset");
	ms_proc_close(proc);
	move_files = 1;
	files = walk_pid(child, shared, &with_id, &skipped);
	assert_int_equal(with_id, 0);
	assert_int_equal(skipped, files);
	assert_int_equal(build_id_queries, 0);
	move_files = 0;
	stop_child(child);
	ms_fstypes_shared_free(shared);
}

/* A process in another mount namespace gets that namespace's own table. */
static void test_shared_tables_per_namespace(void **state)
{
	struct ms_fstypes_shared *shared = ms_fstypes_shared_new();
	size_t with_id, skipped;
	pid_t child = start_child(true);

	assert_non_null(shared);
	if (!child) {
		ms_fstypes_shared_free(shared);
		skip(); /* no mount namespace of its own: not root, or a seccomp filter */
	}
	move_files = 0;
	walk_pid(getpid(), shared, &with_id, &skipped);
	assert_int_equal(ms_fstypes_shared_loaded(shared), 1);
	walk_pid(child, shared, &with_id, &skipped);
	assert_int_equal(ms_fstypes_shared_loaded(shared), 2);
	assert_true(with_id >= 2);
	walk_pid(child, shared, &with_id, &skipped);
	assert_int_equal(ms_fstypes_shared_loaded(shared), 2);
	stop_child(child);
	ms_fstypes_shared_free(shared);
}

/* Names only (the default): never a build-ID buffer, whatever the device. */
static void test_default_asks_no_build_id(void **state)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = fake_ioctl };
	struct ms_maplist list = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;

	move_files = 0;
	build_id_queries = 0;
	assert_int_equal(ms_proc_open(getpid(), &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	assert_true(list.count > 0);
	assert_int_equal(build_id_queries, 0);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_mountinfo),
		cmocka_unit_test(test_classify_magic),
		cmocka_unit_test(test_points_and_ids),
		cmocka_unit_test(test_line_bound),
		cmocka_unit_test(test_engine_asks_only_for_local_files),
		cmocka_unit_test(test_default_asks_no_build_id),
		cmocka_unit_test(test_shared_tables),
		cmocka_unit_test(test_shared_tables_per_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
