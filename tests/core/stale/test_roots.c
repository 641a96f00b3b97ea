/*
 * Verdicts across roots.  A path in a mapping's name means a file under one
 * root or another, and the same path can hold different files in a chroot
 * and on the host.  Each case maps a copy of one test library at a path P,
 * with a different build of it at the same P inside a small root made here,
 * then replaces one of the two and checks which one the verdict follows:
 *   - mapscope inside a chroot judges a host process by the host's files;
 *   - mapscope on the host judges a chrooted process by the chroot's files;
 *   - a process in its own mount namespace after pivot_root is judged by its
 *     own root, whichever copy is replaced;
 *   - `stale` says where a process under another root lives: "other root",
 *     or the machine its cgroup names (a real cgroup made here), but never a
 *     container for a cgroup a user named inside their user manager's tree.
 * They need root (chroot, mounts); without it they skip and say why.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "core/stale/stale.h"
#include "msrun.h"
#include "fixture_client.h"
#include "testutil.h"

struct fx {
	char *dir;      /* the temp dir: P lives below it on the host */
	char *root;     /* dir/root: the other root, with its own copy at P */
	char *lib;      /* P */
	char *lib_in;   /* root + P: the other root's copy, seen from the host */
	char *lib_a, *lib_b;
	char *procdir;  /* root/proc, /proc bound there for mapscope in the chroot */
	bool proc_bound;
	struct fixture child;
};

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* Is our root a mount point?  In a chroot below one, no mount is at "/". */
static bool root_is_a_mount(void)
{
	char line[1024], point[512];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %*s %*s %511s", point) == 1 && !strcmp(point, "/");
	if (f)
		fclose(f);
	return found;
}

static int setup(void **state)
{
	struct fx *fx;
	char *libdir, *inner;


	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	fx->dir = tu_tmpdir();
	fx->root = tu_join(fx->dir, "root");
	libdir = tu_join(fx->dir, "lib");
	fx->lib = tu_join(libdir, "libroots.so");
	assert_true(asprintf(&inner, "%s%s", fx->root, libdir) > 0);
	assert_true(asprintf(&fx->lib_in, "%s%s", fx->root, fx->lib) > 0);
	assert_int_equal(mkdirs(libdir), 0);
	assert_int_equal(mkdirs(inner), 0);
	fx->lib_a = tu_built("libstale-a.so");
	fx->lib_b = tu_built("libstale-b.so");
	/* Two builds: the host holds a, the other root b, at the same path. */
	assert_int_equal(tu_copy(fx->lib_a, fx->lib), 0);
	assert_int_equal(tu_copy(fx->lib_b, fx->lib_in), 0);
	fx->procdir = tu_join(fx->root, "proc");
	assert_int_equal(mkdir(fx->procdir, 0555), 0);
	free(libdir);
	free(inner);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	fixture_stop(&fx->child);
	if (fx->proc_bound)
		umount2(fx->procdir, MNT_DETACH);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->root);
	free(fx->lib);
	free(fx->lib_in);
	free(fx->lib_a);
	free(fx->lib_b);
	free(fx->procdir);
	free(fx);
	return 0;
}

/* Put a copy of src at dst by rename, as package managers do. */
static void rename_over(const char *src, const char *dst)
{
	char *tmp;

	assert_true(asprintf(&tmp, "%s.incoming", dst) > 0);
	assert_int_equal(tu_copy(src, tmp), 0);
	assert_int_equal(rename(tmp, dst), 0);
	free(tmp);
}

/* The kernel's name for a mapped file unlinked from path (a static buffer). */
static const char *deleted(const char *path)
{
	static char name[PATH_MAX + 16];

	snprintf(name, sizeof(name), "%s (deleted)", path);
	return name;
}

/* The verdict on the child's mapping named name, judged here and now; -1 if absent. */
static int verdict_of(pid_t pid, const char *name)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL, .ioctl_fn = NULL };
	struct ms_stale_list list = { 0 };
	struct ms_stale_ctx *ctx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	int v = -1;

	if (ms_stale_ctx_new(NULL, &ctx, &err) < 0 || ms_proc_open(pid, &proc, &err) < 0)
		return -2;
	if (ms_maps_open(proc, &mo, &maps, &err) == 0 &&
	    ms_stale_scan(ctx, maps, 0, &list, &err) == 0)
		for (size_t i = 0; i < list.count; i++)
			if (!strcmp(list.items[i].name, name)) {
				v = (int)list.items[i].result.verdict;
				print_message("  %s: %s: %s\n", name, ms_stale_verdict_name(list.items[i].result.verdict),
					      list.items[i].result.why);
			}
	ms_stale_list_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	ms_stale_ctx_free(ctx);
	return v;
}

/* The same, from a process chrooted into root, which sees /proc bound there. */
static int verdict_from_chroot(const char *root, pid_t pid, const char *name)
{
	int status;
	pid_t judge = fork();

	assert_true(judge >= 0);
	if (judge == 0)
		_exit(chroot(root) == 0 && chdir("/") == 0 ? verdict_of(pid, name) + 10 : 1);
	assert_int_equal(waitpid(judge, &status, 0), judge);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) < 8)
		fail_msg("the judge in the chroot could not read pid %d (status %d)", (int)pid,
			 WEXITSTATUS(status));
	return WEXITSTATUS(status) - 10;
}

static void test_chroot_judges_host_process(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(mount("/proc", fx->procdir, NULL, MS_BIND | MS_REC, NULL), 0);
	fx->proc_bound = true;
	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->lib), 0);
	/* The chroot's own copy at that path is another build: not what counts. */
	assert_int_equal(verdict_from_chroot(fx->root, fx->child.pid, fx->lib), MS_STALE_OK);
	/* Replacing the chroot's copy changes nothing for a host process... */
	rename_over(fx->lib_a, fx->lib_in);
	assert_int_equal(verdict_from_chroot(fx->root, fx->child.pid, fx->lib), MS_STALE_OK);
	/* ...replacing the host's does. */
	rename_over(fx->lib_b, fx->lib);
	assert_int_equal(verdict_from_chroot(fx->root, fx->child.pid, deleted(fx->lib)), MS_STALE_REPLACED);
}

static void test_host_judges_chrooted_process(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "chroot %s", fx->root), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->lib), 0);
	/* From the host the kernel names the chroot's file by its host path. */
	assert_int_equal(verdict_of(fx->child.pid, fx->lib_in), MS_STALE_OK);
	rename_over(fx->lib_b, fx->lib);
	assert_int_equal(verdict_of(fx->child.pid, fx->lib_in), MS_STALE_OK);
	rename_over(fx->lib_a, fx->lib_in);
	assert_int_equal(verdict_of(fx->child.pid, deleted(fx->lib_in)), MS_STALE_REPLACED);
}

/* The CONTAINER cell of pid in `mapscope stale PID --show=all -J`, malloc'd; NULL for null. */
static char *container_cell(pid_t pid)
{
	char pidstr[16], *out, *at, *end, *cell = NULL;
	const char *args[] = { "stale", pidstr, "--show=all", "-J", "-o", "NAME,PID,CONTAINER", NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	msrun_capture(args, NULL, &out, NULL);
	assert_non_null(out);
	at = strstr(out, "\"container\": ");
	if (!at)
		fail_msg("no container key in: %s", out);
	at += strlen("\"container\": ");
	if (*at == '"' && (end = strchr(at + 1, '"')))
		cell = strndup(at + 1, (size_t)(end - at - 1));
	free(out);
	return cell;
}

/*
 * A cgroup v2 tree made here: the test's own top directory (*top), the
 * components of rel below it, and pid moved into the last; the list of
 * directories made, deepest last, in *made (*nmade).  NULL if none can be made.
 */
static char *cgroup_move(pid_t pid, const char *rel, char **made, size_t *nmade)
{
	char line[512], mnt[256] = "", path[PATH_MAX], *procs = NULL;
	FILE *f = fopen("/proc/self/mounts", "re");
	int fd, len;

	*nmade = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %255s cgroup2", mnt) == 1 && strstr(line, " cgroup2 "))
			break;
		else
			mnt[0] = '\0';
	if (f)
		fclose(f);
	/* Unique per run: a run killed before its cleanup leaves its directories behind. */
	len = snprintf(path, sizeof(path), "%s/ms-roots-%d-%lld/%s", mnt, (int)getpid(), tu_now_ms(), rel);
	if (!mnt[0] || len < 0 || (size_t)len >= sizeof(path))
		return NULL;
	for (char *p = path + strlen(mnt) + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		made[*nmade] = strndup(path, (size_t)(p - path));
		if (!made[*nmade] || mkdir(made[*nmade], 0755) < 0) {
			free(made[*nmade]);
			goto fail;
		}
		++*nmade;
		if (!*p)
			break;
	}
	if (asprintf(&procs, "%s/cgroup.procs", path) < 0 || (fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0)
		goto fail;
	if (dprintf(fd, "%d\n", (int)pid) < 0 || close(fd) < 0)
		goto fail;
	free(procs);
	return made[*nmade - 1];
fail:
	print_message("test_roots: no cgroup v2 directory to move a process into: %s\n", strerror(errno));
	free(procs);
	return NULL;
}

/* Remove what cgroup_move made, deepest first (the process left it or exited). */
static void cgroup_remove(char **made, size_t nmade)
{
	while (nmade--) {
		rmdir(made[nmade]);
		free(made[nmade]);
	}
}

#define CGROUP_DEPTH_MAX 8

/* The CONTAINER cell of a process under another root in cgroup rel, or NULL when no cgroup could be made. */
static char *cell_in_cgroup(struct fx *fx, const char *rel, bool *made_one)
{
	char *made[CGROUP_DEPTH_MAX], *cell = NULL;
	size_t nmade;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->lib), 0);
	assert_int_equal(fixture_commandf(&fx->child, "pivot %s", fx->root), 0);
	*made_one = cgroup_move(fx->child.pid, rel, made, &nmade) != NULL;
	if (*made_one)
		cell = container_cell(fx->child.pid);
	fixture_stop(&fx->child);
	cgroup_remove(made, nmade);
	return cell;
}

static void test_stale_says_where_it_lives(void **state)
{
	struct fx *fx = *state;
	char *cell;
	bool made;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->lib), 0);
	assert_null(container_cell(fx->child.pid));
	assert_int_equal(fixture_commandf(&fx->child, "pivot %s", fx->root), 0);
	cell = container_cell(fx->child.pid);
	assert_non_null(cell);
	assert_string_equal(cell, "other root");
	free(cell);
	fixture_stop(&fx->child);
	cell = cell_in_cgroup(fx, "machine-mstest.scope", &made);
	if (made) {
		assert_non_null(cell);
		assert_string_equal(cell, "machine:mstest");
	}
	free(cell);
}

/*
 * nobody's user manager delegates its tree to nobody, who names a cgroup
 * like a docker container and moves a process in: it is nobody's, not a container.
 */
static void test_user_tree_is_no_container(void **state)
{
	char *cell;
	bool made;

	cell = cell_in_cgroup(*state, "user@65534.service/app.slice/docker-"
				      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
			      &made);
	if (made) {
		assert_non_null(cell);
		assert_string_equal(cell, "other root (user@65534.service)");
	} else {
		skip();
	}
	free(cell);
}

static void test_pivot_root_judged_by_own_root(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(fixture_start_with(&fx->child, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&fx->child, "pivot %s", fx->root), 0);
	assert_int_equal(fixture_commandf(&fx->child, "mapx %s", fx->lib), 0);
	/* Its own namespace: the name is the path in its root. */
	assert_int_equal(verdict_of(fx->child.pid, fx->lib), MS_STALE_OK);
	rename_over(fx->lib_b, fx->lib);
	assert_int_equal(verdict_of(fx->child.pid, fx->lib), MS_STALE_OK);
	rename_over(fx->lib_a, fx->lib_in);
	assert_int_equal(verdict_of(fx->child.pid, deleted(fx->lib)), MS_STALE_REPLACED);
}

int main(void)
{
	/* 77: the test harness reports a skip, with the reason above it. */
	if (geteuid() != 0) {
		printf("test_roots: SKIP: chroot and mounts need root\n");
		return 77;
	}
	/*
	 * Run from inside a chroot, the tests' own paths are not the names the
	 * kernel gives (it names files against the namespace's root), and
	 * pivot_root refuses a root that is not a mount point.
	 */
	if (!root_is_a_mount()) {
		printf("test_roots: SKIP: the tests run inside a chroot; run them at the namespace's root\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chroot_judges_host_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_judges_chrooted_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pivot_root_judged_by_own_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_says_where_it_lives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_tree_is_no_container, setup, teardown),
	};

	return cmocka_run_group_tests_name("roots", tests, NULL, NULL);
}
