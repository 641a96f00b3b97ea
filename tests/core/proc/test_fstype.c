/*
 * Which files the kernel may be asked to read (src/core/proc/fstype.h), and the
 * engine's use of it: a build-ID query (a read of the file by the kernel)
 * is made only for devices the kernel serves itself.  The engine is driven
 * through its ioctl seam on this very process: the fake passes every query
 * to the kernel, counts the ones that carry a build-ID buffer, and can move
 * answers to a device no mount table lists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/compat.h"
#include "proc/fstype.h"
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

static size_t walk_self(size_t *with_id, size_t *skipped)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = fake_ioctl };
	struct ms_mapping m = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	uint64_t addr = 0;
	size_t files = 0;

	*with_id = *skipped = 0;
	build_id_queries = 0;
	assert_int_equal(ms_proc_open(getpid(), &proc, &err), 0);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
