/*
 * The one walk of user-controlled paths (src/core/untrusted/untrusted_walk.h), on a
 * tree the test builds under its temporary directory, which is the walk's
 * root: symlinks are resolved inside the root and counted, ".." never
 * leaves it, the no-symlink and root-owned-directory flags refuse what
 * they say, a refused mount point in the mount table stops the walk before
 * it steps there, and a mount the table does not know (seen by its mount
 * ID in fdinfo) is refused, on a directory or on the last name, whether
 * openat2 is there or not.  The mount tests need root (mount(2)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "untrusted/untrusted_walk.h"
#include "testutil.h"
#include "walkfix.h"

struct fx {
	struct walkfix w;
	struct stat file_st; /* of DIR/a/b/file */
	char *mounted;       /* a tmpfs mounted by the test, or NULL */
	char *bound;         /* a file bind-mounted over another, or NULL */
};

static char *at(struct fx *fx, const char *rel)
{
	return tu_join(fx->w.dir, rel);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char *file;

	assert_non_null(fx);
	*state = fx;
	walkfix_open(&fx->w, (const char *const[]){ "a", "a/b", NULL });
	file = at(fx, "a/b/file");
	assert_int_equal(tu_spit(file, "x"), 0);
	assert_int_equal(stat(file, &fx->file_st), 0);
	free(file);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->bound) {
		umount2(fx->bound, MNT_DETACH);
		free(fx->bound);
	}
	if (fx->mounted) {
		umount2(fx->mounted, MNT_DETACH);
		free(fx->mounted);
	}
	walkfix_close(&fx->w);
	free(fx);
	return 0;
}

/* Walk path; the errno (0 on success), with *st filled then. */
static int walk(const struct ms_walk_root *root, const char *path, unsigned flags, struct stat *st,
		const char **why)
{
	struct stat tmp;
	const char *w;
	int fd = ms_walk_open(root, path, flags, st ? st : &tmp, why ? why : &w);

	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static void assert_is_file(struct fx *fx, const struct stat *st)
{
	assert_true(st->st_ino == fx->file_st.st_ino && st->st_dev == fx->file_st.st_dev);
}

static void test_plain_path(void **state)
{
	struct fx *fx = *state;
	struct stat st;

	assert_int_equal(walk(&fx->w.root, "/a/b/file", 0, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "//a/./b//file", 0, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "/a/nope", 0, NULL, NULL), ENOENT);
	assert_int_equal(walk(&fx->w.root, "/a/b/file/x", 0, NULL, NULL), ENOTDIR);
}

/* An absolute target restarts at the walk's root, not at "/". */
static void test_symlink_inside_root(void **state)
{
	struct fx *fx = *state;
	struct stat st;

	tu_symlink_in(fx->w.dir, "/a", "abs");
	tu_symlink_in(fx->w.dir, "b/file", "a/rel");
	tu_symlink_in(fx->w.dir, "/a/b/file", "a/b/deep");
	assert_int_equal(walk(&fx->w.root, "/abs/b/file", 0, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "/a/b/deep", MS_WALK_FOLLOW_LAST, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "/a/rel", MS_WALK_FOLLOW_LAST, &st, NULL), 0);
	assert_is_file(fx, &st);
	/* Without FOLLOW_LAST, the last component is the link itself. */
	assert_int_equal(walk(&fx->w.root, "/a/rel", 0, &st, NULL), 0);
	assert_true(S_ISLNK(st.st_mode));
}

static void test_dotdot_stays_in_root(void **state)
{
	struct fx *fx = *state;
	struct stat st, root_st;

	assert_int_equal(fstat(fx->w.rootfd, &root_st), 0);
	assert_int_equal(walk(&fx->w.root, "/../../../a/b/file", 0, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "/a/b/../../..", 0, &st, NULL), 0);
	assert_true(st.st_ino == root_st.st_ino && st.st_dev == root_st.st_dev);
	/* Through a symlink too: "../../../.." from the root is the root. */
	tu_symlink_in(fx->w.dir, "../../../../../../../..", "a/up");
	assert_int_equal(walk(&fx->w.root, "/a/up/a/b/file", 0, &st, NULL), 0);
	assert_is_file(fx, &st);
	tu_symlink_in(fx->w.dir, "../../../../../../../../etc/passwd", "a/passwd");
	assert_int_equal(walk(&fx->w.root, "/a/passwd", MS_WALK_FOLLOW_LAST, NULL, NULL), ENOENT);
}

/* At most MS_WALK_MAX_SYMLINKS symlinks: a chain of 40 resolves, 41 and a loop give ELOOP. */
static void test_symlinks_counted(void **state)
{
	struct fx *fx = *state;
	char name[32], target[32];
	struct stat st;

	tu_symlink_in(fx->w.dir, "/a/b/file", "s40");
	for (int i = 39; i >= 0; i--) {
		snprintf(name, sizeof(name), "s%d", i);
		snprintf(target, sizeof(target), "s%d", i + 1);
		tu_symlink_in(fx->w.dir, target, name);
	}
	assert_int_equal(walk(&fx->w.root, "/s1", MS_WALK_FOLLOW_LAST, &st, NULL), 0);
	assert_is_file(fx, &st);
	assert_int_equal(walk(&fx->w.root, "/s0", MS_WALK_FOLLOW_LAST, NULL, NULL), ELOOP);
	tu_symlink_in(fx->w.dir, "l2", "l1");
	tu_symlink_in(fx->w.dir, "l1", "l2");
	assert_int_equal(walk(&fx->w.root, "/l1/x", 0, NULL, NULL), ELOOP);
}

static void test_no_symlinks(void **state)
{
	struct fx *fx = *state;
	const char *why = NULL;

	tu_symlink_in(fx->w.dir, "a", "via");
	assert_int_equal(walk(&fx->w.root, "/via/b/file", 0, NULL, NULL), 0);
	assert_int_equal(walk(&fx->w.root, "/via/b/file", MS_WALK_NO_SYMLINKS, NULL, &why), ELOOP);
	assert_non_null(why);
	assert_int_equal(walk(&fx->w.root, "/a/b/file", MS_WALK_NO_SYMLINKS, NULL, NULL), 0);
}

static void test_root_dirs(void **state)
{
	struct fx *fx = *state;
	const char *why = NULL;
	char *p;

	/* Directories of another user's (chown) and of root's: only root makes both. */
	if (geteuid() != 0) {
		print_message("skipped: needs root to give a directory to uid 65534\n");
		skip();
	}

	tu_mkdir_in(fx->w.dir, "user", 0755);
	tu_mkdir_in(fx->w.dir, "user/d", 0755);
	p = at(fx, "user/d/file");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
	p = at(fx, "user");
	assert_int_equal(chown(p, 65534, 65534), 0);
	free(p);
	assert_int_equal(walk(&fx->w.root, "/user/d/file", 0, NULL, NULL), 0);
	assert_int_equal(walk(&fx->w.root, "/user/d/file", MS_WALK_ROOT_DIRS, NULL, &why), EPERM);
	assert_non_null(why);
	/* Root's, but writable by others. */
	tu_mkdir_in(fx->w.dir, "open", 0777);
	p = at(fx, "open/file");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
	assert_int_equal(walk(&fx->w.root, "/open/file", MS_WALK_ROOT_DIRS, NULL, NULL), EPERM);
	assert_int_equal(walk(&fx->w.root, "/a/b/file", MS_WALK_ROOT_DIRS, NULL, NULL), 0);
	/* Sticky, as /tmp: others may add entries, never swap root's; theirs are refused. */
	tu_mkdir_in(fx->w.dir, "sticky", 0755);
	tu_mkdir_in(fx->w.dir, "sticky/mine", 0755);
	tu_mkdir_in(fx->w.dir, "sticky/theirs", 0755);
	p = at(fx, "sticky");
	assert_int_equal(chmod(p, 01777), 0);
	free(p);
	p = at(fx, "sticky/theirs");
	assert_int_equal(chown(p, 65534, 65534), 0);
	free(p);
	p = at(fx, "sticky/mine/file");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
	p = at(fx, "sticky/theirs/file");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
	assert_int_equal(walk(&fx->w.root, "/sticky/mine/file", MS_WALK_ROOT_DIRS, NULL, NULL), 0);
	assert_int_equal(walk(&fx->w.root, "/sticky/theirs/file", MS_WALK_ROOT_DIRS, NULL, NULL), EPERM);
}

/* Does a line of text start with head? */
static bool line_starts(const char *text, const char *head)
{
	size_t n = strlen(head);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, n))
			return true;
	return false;
}

/* Our mountinfo, plus extra lines. */
static struct ms_walk_mounts *table_with(const char *extra)
{
	struct ms_walk_mounts *m;
	char *text = tu_slurp("/proc/self/mountinfo", NULL);
	char *all = NULL;

	assert_non_null(text);
	/*
	 * Run in a chroot, our mountinfo leaves out the mount our root sits in
	 * (a walk of our own root takes it as it is; a table from text cannot
	 * know it is ours): name it, as a plain disk mount.
	 */
	{
		uint64_t id;
		int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		char head[32], *more = NULL;

		assert_true(fd >= 0);
		assert_int_equal(ms_walk_mnt_id(fd, &id), 0);
		close(fd);
		snprintf(head, sizeof(head), "%llu ", (unsigned long long)id);
		if (!line_starts(text, head)) {
			assert_true(asprintf(&more, "%s%s1 0:0 / / rw - ext4 /dev/root rw\n", text, head) > 0);
			free(text);
			text = more;
		}
	}
	assert_true(asprintf(&all, "%s%s", text, extra) > 0);
	assert_int_equal(ms_walk_mounts_from_text(all, strlen(all), &m, NULL), 0);
	free(all);
	free(text);
	return m;
}

/* A refused mount point, as the walk's root sees it, is never stepped into. */
static void test_refused_mount_point(void **state)
{
	struct fx *fx = *state;
	struct ms_walk_mounts *m = table_with("999999 1 0:999 / /a/b rw - fuse.evil evil rw\n"
					      "999998 1 0:998 / /sp\\040ace rw - nfs4 srv:/x rw\n");
	struct ms_walk_root root = { .fd = fx->w.rootfd, .mounts = m };
	const char *why = NULL;
	char *p;

	assert_int_equal(walk(&root, "/a/b/file", 0, NULL, &why), EREMOTE);
	assert_string_equal(why, MS_WALK_WHY_SERVED);
	assert_int_equal(walk(&root, "/a/b", 0, NULL, NULL), EREMOTE);
	assert_int_equal(walk(&root, "/a", 0, NULL, NULL), 0);
	tu_mkdir_in(fx->w.dir, "sp ace", 0755);
	p = at(fx, "sp ace/f");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
	assert_int_equal(walk(&root, "/sp ace/f", 0, NULL, NULL), EREMOTE);
	/* Reached through a symlink, the canonical path is what is checked. */
	tu_symlink_in(fx->w.dir, "a/./b", "sneak");
	assert_int_equal(walk(&root, "/sneak/file", 0, NULL, NULL), EREMOTE);
	ms_walk_mounts_free(m);
}

/* Mount the test's tmpfs at DIR/m, with a file f; skips without mount(2). */
static void mount_tmpfs(struct fx *fx)
{
	char *p;

	if (geteuid() != 0)
		skip();
	tu_mkdir_in(fx->w.dir, "m", 0755);
	fx->mounted = at(fx, "m");
	if (mount("ms-walk-test", fx->mounted, "tmpfs", 0, "size=64k") < 0) {
		free(fx->mounted);
		fx->mounted = NULL;
		skip();
	}
	p = at(fx, "m/f");
	assert_int_equal(tu_spit(p, "x"), 0);
	free(p);
}

/*
 * From our root, as our mountinfo prints paths.  A mount the table does not
 * know, seen only by its mount ID, is refused; so is one the table knows
 * at another place (a freed mount's ID, reused).
 */
static void test_unknown_mount_id(void **state)
{
	struct fx *fx = *state;
	struct ms_walk_mounts *before = table_with(""), *reread, *moved;
	struct ms_walk_root root = { .fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), .mounts = before };
	char *path = at(fx, "m/f"), *text, *line, *mnt_field, *moved_text = NULL;
	const char *why = NULL;

	assert_true(root.fd >= 0);
	/* Read before the mount, never again: the table cannot know it. */
	assert_int_equal(ms_walk_mounts_load(-1, &reread, NULL), 0);
	mount_tmpfs(fx);
	/* Refused, and said as it is: a mount the table lacks, not a daemon's. */
	assert_int_equal(walk(&root, path, 0, NULL, &why), EREMOTE);
	assert_string_equal(why, MS_WALK_WHY_UNLISTED);
	/* A table that may read mountinfo again learns the new mount: tmpfs is the kernel's. */
	root.mounts = reread;
	assert_int_equal(walk(&root, path, 0, NULL, NULL), 0);
	/* The same mount ID, said to be mounted elsewhere. */
	text = tu_slurp("/proc/self/mountinfo", NULL);
	assert_non_null(text);
	line = strstr(text, " ms-walk-test ");
	assert_non_null(line);
	while (line > text && line[-1] != '\n')
		line--;
	mnt_field = strchr(strchr(strchr(strchr(line, ' ') + 1, ' ') + 1, ' ') + 1, ' ') + 1;
	assert_true(asprintf(&moved_text, "%.*s/elsewhere%s", (int)(mnt_field - text), text,
			     strchr(mnt_field, ' ')) > 0);
	assert_int_equal(ms_walk_mounts_from_text(moved_text, strlen(moved_text), &moved, NULL), 0);
	root.mounts = moved;
	/*
	 * In a chroot our mountinfo leaves out the mount our root sits in, and
	 * a table from text does not take it on trust: the walk stops there,
	 * before the moved mount.
	 */
	if (walk(&root, fx->w.dir, 0, NULL, &why) == 0) {
		assert_int_equal(walk(&root, path, 0, NULL, &why), EREMOTE);
		assert_string_equal(why, MS_WALK_WHY_MOVED);
	} else {
		print_message("# in a chroot: the moved mount's case is not reached\n");
	}
	close(root.fd);
	ms_walk_mounts_free(before);
	ms_walk_mounts_free(reread);
	ms_walk_mounts_free(moved);
	free(moved_text);
	free(text);
	free(path);
}

/*
 * A mount made after the table was read on the last name of a path, a file
 * bind-mounted over a file: the step that lands on it crosses a mount, so
 * it is checked like a directory mount point (refused by a table that
 * cannot know it), while a name beside it in the same directory needs no
 * table at all.
 */
static void test_mount_on_last_name(void **state)
{
	struct fx *fx = *state;
	struct ms_walk_mounts *before = table_with(""), *reread;
	struct ms_walk_root root = { .fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), .mounts = before };
	char *target = at(fx, "g"), *plain = at(fx, "a/b/file"), *src;
	struct stat st, want;
	const char *why = NULL;

	assert_true(root.fd >= 0);
	assert_int_equal(tu_spit(target, "under"), 0);
	assert_int_equal(ms_walk_mounts_load(-1, &reread, NULL), 0);
	mount_tmpfs(fx);
	src = at(fx, "m/f");
	assert_int_equal(stat(src, &want), 0);
	if (mount(src, target, NULL, MS_BIND, NULL) < 0) {
		free(src);
		free(target);
		free(plain);
		close(root.fd);
		ms_walk_mounts_free(before);
		ms_walk_mounts_free(reread);
		skip();
	}
	fx->bound = strdup(target);
	assert_int_equal(walk(&root, target, 0, NULL, &why), EREMOTE);
	assert_string_equal(why, MS_WALK_WHY_UNLISTED);
	assert_int_equal(walk(&root, plain, 0, &st, NULL), 0);
	assert_int_equal(st.st_ino, fx->file_st.st_ino);
	/* A table read after the mount knows it: tmpfs, at exactly that path. */
	root.mounts = reread;
	assert_int_equal(walk(&root, target, 0, &st, NULL), 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(st.st_dev, want.st_dev);
	close(root.fd);
	ms_walk_mounts_free(before);
	ms_walk_mounts_free(reread);
	free(src);
	free(target);
	free(plain);
}

/*
 * Make system call nr fail with err in this process (a container's seccomp
 * profile does the like); err 0: kill the process at the call instead.
 */
static int refuse_call(long nr, int err)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, err ? SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)
					     : SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

/*
 * Where openat2 is missing (ENOSYS) or filtered (EPERM, or EACCES, which
 * it shares with a real refusal), the walk takes the checked way for every
 * step: the same answers, a refused mount point still refused.  Run in a
 * child, which the filter stays with; its exit status is the first check
 * that failed.
 */
static void test_without_openat2(void **state)
{
#ifdef SYS_openat2
	static const int errs[] = { ENOSYS, EPERM, EACCES };
	struct fx *fx = *state;
	struct ms_walk_mounts *m = table_with("999999 1 0:999 / /a/b rw - fuse.evil evil rw\n");
	struct ms_walk_root refusing = { .fd = fx->w.rootfd, .mounts = m };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		int status = -1;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			struct stat st;

			if (refuse_call(SYS_openat2, errs[i]) < 0)
				_exit(90);
			if (walk(&fx->w.root, "/a/b/file", 0, &st, NULL) != 0)
				_exit(1);
			if (st.st_ino != fx->file_st.st_ino || st.st_dev != fx->file_st.st_dev)
				_exit(2);
			if (walk(&fx->w.root, "/a/nope", 0, NULL, NULL) != ENOENT)
				_exit(3);
			if (walk(&refusing, "/a/b/file", 0, NULL, NULL) != EREMOTE)
				_exit(4);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 90)
			skip();
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	ms_walk_mounts_free(m);
#else
	(void)state;
	skip();
#endif
}

/*
 * Mount IDs two ways: of files that are no directory, by name_to_handle_at
 * (ms_walk_file_mnt_id) and from fdinfo, on every kind of mount at hand,
 * and by the fallback in children where a filter refuses the call (EPERM,
 * ENOSYS).  A directory's is read from fdinfo alone: a child that the
 * filter kills at any name_to_handle_at reads those of the walk's root and
 * of /, /proc, /dev and /tmp, and lives.
 */
static void test_mount_ids_agree(void **state)
{
	static const char *const files[] = { "/proc/self/exe", "/proc/self/status", "/dev/null",
					     "/sys/kernel/mm/transparent_hugepage/enabled", "/etc/passwd" };
	static const char *const dirs[] = { "/", "/proc", "/dev", "/tmp" };
	static const int errs[] = { EPERM, ENOSYS, 0 };
	struct fx *fx = *state;
	uint64_t ids[sizeof(files) / sizeof(files[0]) + 1];
	int fds[sizeof(files) / sizeof(files[0]) + 1], n = 0;
	char *file = at(fx, "a/b/file");

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = open(files[i], O_PATH | O_CLOEXEC);

		if (fd >= 0)
			fds[n++] = fd;
	}
	fds[n] = open(file, O_PATH | O_CLOEXEC);
	assert_true(fds[n++] >= 0);
	free(file);
	for (int i = 0; i < n; i++) {
		uint64_t by_handle = 0;

		assert_int_equal(ms_walk_mnt_id(fds[i], &ids[i]), 0);
		assert_int_equal(ms_walk_file_mnt_id(fds[i], &by_handle), 0);
		assert_int_equal(by_handle, ids[i]);
	}
	for (size_t e = 0; e < sizeof(errs) / sizeof(errs[0]); e++) {
		int status = -1;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			if (refuse_call(SYS_name_to_handle_at, errs[e]) < 0)
				_exit(90);
			for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
				uint64_t id;
				int fd = open(dirs[d], O_PATH | O_DIRECTORY | O_CLOEXEC);

				if (fd >= 0 && ms_walk_mnt_id(fd, &id) != 0)
					_exit(20);
			}
			if (ms_walk_mnt_id(fx->w.rootfd, &(uint64_t){ 0 }) != 0)
				_exit(21);
			for (int i = 0; errs[e] && i < n; i++) {
				uint64_t id = 0;

				if (ms_walk_file_mnt_id(fds[i], &id) != 0 || id != ids[i])
					_exit(1 + i);
			}
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status))
			fail_msg("the child died (signal %d): a directory's mount ID called name_to_handle_at?",
				 WIFSIGNALED(status) ? WTERMSIG(status) : -1);
		assert_int_not_equal(WEXITSTATUS(status), 90);
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * Run in a chroot that is no mount point, our mountinfo lacks the mount our
 * root sits in: walks from our own root still work.
 */
static void test_in_chroot(void **state)
{
	struct fx *fx = *state;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	tu_mkdir_in(fx->w.dir, "proc", 0555);
	fx->mounted = at(fx, "proc");
	assert_int_equal(mount("/proc", fx->mounted, NULL, MS_BIND | MS_REC, NULL), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ms_walk_mounts *m;
		struct ms_walk_root root;
		const char *why;
		int rc;

		if (chroot(fx->w.dir) < 0 || chdir("/") < 0 || ms_walk_mounts_load(-1, &m, NULL) < 0)
			_exit(100);
		root = (struct ms_walk_root){ .fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), .mounts = m };
		rc = walk(&root, "/a/b/file", 0, NULL, &why);
		_exit(rc);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_open_read(void **state)
{
	struct fx *fx = *state;
	const char *why = NULL;
	struct stat st;
	char *p = at(fx, "fifo");
	char c;
	int fd;

	fd = ms_walk_open_read(&fx->w.root, "/a/b/file", 0, &fx->file_st, NULL, NULL, &st, &why);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &c, 1), 1);
	assert_int_equal(c, 'x');
	close(fd);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	assert_int_equal(ms_walk_open_read(&fx->w.root, "/fifo", 0, NULL, NULL, NULL, NULL, &why), -1);
	assert_non_null(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_inside_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotdot_stays_in_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_mount_point, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_mount_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_on_last_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_without_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_ids_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_chroot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
