/*
 * The ELF note reader (src/core/elf/buildid.h) on real files made here:
 *   - crafted sparse files that declare huge header counts through extended
 *     numbering are refused with a reason, in a forked child whose CPU time and
 *     peak RSS (getrusage ru_maxrss) are bounded: libelf took seconds and
 *     gigabytes on them;
 *   - real binaries (/bin/sh, the test fixture, a test library) give the
 *     build ID that PROCMAP_QUERY reports for their mappings and that
 *     `readelf -n` prints.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf/buildid.h"
#include "maps/maps.h"
#include "fixture_client.h"
#include "testutil.h"

#define SPARSE_SIZE (8ull << 30)
#define MAXRSS_KB_LIMIT (50 * 1024)

/* A sparse 8 GiB file whose ELF header (the test library's) is patched by patch. */
static char *crafted(const char *dir, const char *name, void (*patch)(Elf64_Ehdr *))
{
	char *lib = tu_built("libstale-a.so");
	char *path = tu_join(dir, name);
	Elf64_Ehdr eh;
	int fd;

	assert_non_null(lib);
	assert_non_null(path);
	assert_int_equal(tu_copy(lib, path), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	patch(&eh);
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	assert_int_equal(ftruncate(fd, (off_t)SPARSE_SIZE), 0);
	close(fd);
	free(lib);
	return path;
}

/* e_shnum 0 and the real count in section 0's sh_size, placed far away. */
static void patch_shnum(Elf64_Ehdr *eh)
{
	eh->e_shnum = 0;
	eh->e_shoff = SPARSE_SIZE - 4096;
}

static void patch_phnum(Elf64_Ehdr *eh)
{
	eh->e_phnum = PN_XNUM;
	eh->e_shoff = SPARSE_SIZE - 4096;
}

/* Put the real counts in section 0, as extended numbering says. */
static void write_section0(const char *path)
{
	Elf64_Shdr sh0 = { .sh_size = 0xffffffffu, .sh_link = 0xffffffffu, .sh_info = 0xffffffffu };
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &sh0, sizeof(sh0), (off_t)(SPARSE_SIZE - 4096)), (ssize_t)sizeof(sh0));
	close(fd);
}

struct bounded {
	int rc;
	long cpu_ms;            /* CPU time, which the machine's load does not stretch */
	long maxrss_kb;
	char why[MS_ERRMSG_MAX];
};

/* Read path's build ID in a forked child: the answer, its CPU time and its peak RSS. */
static struct bounded read_bounded(const char *path)
{
	struct bounded res = { 0 };
	int pipefd[2];
	pid_t pid;
	int status;

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char id[MS_BUILD_ID_MAX];
		struct ms_error err = { 0 };
		struct timespec a, b;
		struct rusage ru;
		size_t len;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

#ifndef __SANITIZE_ADDRESS__
		/* So a regression fails in this child instead of eating the machine. */
		struct rlimit as = { 512ul << 20, 512ul << 20 };

		setrlimit(RLIMIT_AS, &as);
#endif
		alarm(5);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		res.rc = fd < 0 ? -1000 : ms_buildid_read_fd(fd, id, &len, &err);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		getrusage(RUSAGE_SELF, &ru);
		res.cpu_ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
		res.maxrss_kb = ru.ru_maxrss;
		snprintf(res.why, sizeof(res.why), "%s", err.msg);
		_exit(write(pipefd[1], &res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		res.rc = -2000;
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("the reader was killed by signal %d (time or memory bound)", WTERMSIG(status));
	return res;
}

static void check_refused(void (*patch)(Elf64_Ehdr *), const char *name)
{
	char *dir = tu_tmpdir();
	char *path;
	struct bounded res;

	assert_non_null(dir);
	path = crafted(dir, name, patch);
	write_section0(path);
	res = read_bounded(path);
	print_message("%s: rc %d, %ld ms of CPU, peak RSS %ld KiB, \"%s\"\n", name, res.rc, res.cpu_ms,
		      res.maxrss_kb, res.why);
	assert_int_equal(res.rc, MS_ERR_LIMIT);
	assert_string_equal(res.why, "extended ELF numbering refused");
	assert_true(res.cpu_ms < 1000);
	assert_true(res.maxrss_kb < MAXRSS_KB_LIMIT);
	tu_rmtree(dir);
	free(path);
	free(dir);
}

static void test_sparse_shnum_zero_refused(void **state)
{
	check_refused(patch_shnum, "shnum-zero.so");
}

static void test_sparse_phnum_xnum_refused(void **state)
{
	check_refused(patch_phnum, "phnum-xnum.so");
}

/* Both header tables past the first 64 KiB: unknown, with that reason. */
static void test_notes_out_of_reach(void **state)
{
	char *dir = tu_tmpdir();
	char *lib = tu_built("libstale-a.so");
	char *path = tu_join(dir, "far.so");
	unsigned char id[MS_BUILD_ID_MAX];
	struct ms_error err = { 0 };
	Elf64_Ehdr eh;
	size_t len;
	int fd;

	assert_int_equal(tu_copy(lib, path), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	eh.e_phoff = 1 << 20;
	eh.e_shoff = 1 << 20;
	assert_int_equal(pwrite(fd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	assert_int_equal(ms_buildid_read_fd(fd, id, &len, &err), MS_ERR_LIMIT);
	assert_string_equal(err.msg, "notes beyond the first 64 KiB");
	assert_int_equal(len, 0);
	close(fd);
	tu_rmtree(dir);
	free(path);
	free(lib);
	free(dir);
}

/* `readelf -n path`'s "Build ID: hex", or "" */
static void readelf_build_id(const char *path, char *hex, size_t size)
{
	char *cmd, line[512];
	FILE *p;

	hex[0] = '\0';
	assert_true(asprintf(&cmd, "readelf -n '%s' 2>/dev/null", path) > 0);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *at = strstr(line, "Build ID: ");

		if (at && sscanf(at + 10, "%127[0-9a-f]", hex) == 1)
			break;
	}
	pclose(p);
	free(cmd);
	assert_true(size > 2 * MS_BUILD_ID_MAX);
}

static void file_build_id(const char *path, char *hex)
{
	unsigned char id[MS_BUILD_ID_MAX];
	struct ms_error err = { 0 };
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	if (ms_buildid_read_fd(fd, id, &len, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	close(fd);
	ms_buildid_hex(id, len, hex);
}

/*
 * Every mapping of pid that the kernel gives a build ID for: the reader
 * agrees (through map_files, the mapped inode itself).  Returns how many
 * mappings were compared, and whether want (a path) was among them.
 */
static size_t compare_with_kernel(pid_t pid, const char *want, bool *seen)
{
	struct ms_maps_opts mo = { .backend = MS_BACKEND_IOCTL };
	struct ms_mapping m = { 0 };
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	uint64_t addr = 0;
	size_t compared = 0;

	*seen = false;
	assert_int_equal(ms_proc_open(pid, &proc, &err), 0);
	assert_int_equal(ms_maps_open(proc, &mo, &maps, &err), 0);
	ms_maps_set_fields(maps, MS_FIELDS_ALL);
	while (ms_maps_next(maps, addr, MS_FILTER_FILE_BACKED, &m, &err) == 0) {
		char kernel[2 * MS_BUILD_ID_MAX + 1], ours[2 * MS_BUILD_ID_MAX + 1];

		addr = m.end;
		if (!m.build_id_len || !m.name || m.name[0] != '/')
			continue;
		ms_buildid_hex(m.build_id, m.build_id_len, kernel);
		file_build_id(m.name, ours);
		assert_string_equal(ours, kernel);
		if (!strcmp(m.name, want))
			*seen = true;
		compared++;
	}
	ms_mapping_reset(&m);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return compared;
}

static void test_real_binaries_match_kernel_and_readelf(void **state)
{
	const char *files[] = { "/bin/sh", NULL, NULL };
	char *fixture = realpath(getenv("MS_FIXTURE") ? getenv("MS_FIXTURE") : "tests/ms-fixture", NULL);
	char *lib_rel = tu_built("libstale-a.so");
	char *lib = realpath(lib_rel, NULL);
	char *sh = realpath("/bin/sh", NULL);
	struct fixture c;
	int to_sh[2];
	bool seen;
	pid_t pid;

	assert_non_null(fixture);
	assert_non_null(lib);
	assert_non_null(sh);
	files[1] = fixture;
	files[2] = lib;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char ours[2 * MS_BUILD_ID_MAX + 1], readelf[128];

		readelf_build_id(files[i], readelf, sizeof(readelf));
		if (!readelf[0]) {
			print_message("skip %s: readelf shows no build ID\n", files[i]);
			continue;
		}
		file_build_id(files[i], ours);
		assert_string_equal(ours, readelf);
	}

	/* The kernel's view: a shell waiting on its stdin, and a child that loaded the library. */
	assert_int_equal(pipe2(to_sh, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to_sh[0], 0);
		execl("/bin/sh", "sh", "-c", "read x", (char *)NULL);
		_exit(127);
	}
	close(to_sh[0]);
	for (int i = 0; i < 500; i++) {
		char exe[4096];
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0 && (exe[n] = '\0', !strcmp(exe, sh)))
			break;
		usleep(10000);
	}
	assert_true(compare_with_kernel(pid, sh, &seen) > 0);
	close(to_sh[1]);
	waitpid(pid, NULL, 0);
	assert_true(seen);

	assert_int_equal(fixture_start_with(&c, FIXTURE_STALE_CHILD), 0);
	assert_int_equal(fixture_commandf(&c, "dlopen %s", lib), 0);
	assert_true(compare_with_kernel(c.pid, lib, &seen) > 0);
	assert_true(seen);
	fixture_stop(&c);
	free(fixture);
	free(lib_rel);
	free(lib);
	free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_shnum_zero_refused),
		cmocka_unit_test(test_sparse_phnum_xnum_refused),
		cmocka_unit_test(test_notes_out_of_reach),
		cmocka_unit_test(test_real_binaries_match_kernel_and_readelf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
