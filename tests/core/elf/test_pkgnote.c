/*
 * The ELF package note reader (src/core/elf/pkgnote.h) and its owner
 * source (src/core/pkg/notepkg.h), on real files made here:
 *   - shared libraries linked by the system's linker with
 *     --package-metadata give back the JSON's fields, with escapes decoded
 *     (ESC, a bidi override, a surrogate pair) and shown escaped;
 *   - the same libraries with their descriptor patched in place (a key
 *     twice, no NUL, a number for a version, a lone surrogate), a note of
 *     70 KB, nesting past the cap: each refused with its reason;
 *   - the owner lookup answers a noted file by its note, and refuses a
 *     symlink to it and a FIFO at the path, in a child that must finish.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/escape.h"
#include "elf/pkgnote.h"
#include "pkg/owner.h"
#include "notelib.h"
#include "testutil.h"

/* A C compiler to link the test libraries with: else each test skips, before it allocates. */
static void need_cc(void)
{
	if (!tu_have_cc()) {
		print_message("no C compiler (cc) to link a library with a package note\n");
		skip();
	}
}

/* DIR/NAME linked with the note json; NULL when the linker refused it. */
static char *build_so(const char *dir, const char *name, const char *json)
{
	return tu_build_so(dir, name, json);
}

static int read_path(const char *path, struct ms_pkgnote *n, struct ms_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	assert_true(fd >= 0);
	rc = ms_pkgnote_read_fd(fd, n, err);
	close(fd);
	return rc;
}

/* Replace the first from (as long as to) in path's bytes by to. */
static void patch(const char *path, const char *from, const char *to, size_t len)
{
	size_t size;
	char *bytes = tu_slurp(path, &size);
	char *at;
	int fd;

	assert_non_null(bytes);
	at = memmem(bytes, size, from, len);
	assert_non_null(at);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, to, len, at - bytes), (ssize_t)len);
	close(fd);
	free(bytes);
}

static void test_real_note(void **state)
{
	struct ms_pkgnote n;
	struct ms_error err = { 0 };
	char *so;

	need_cc();
	so = build_so(*state, "libreal.so",
		      "{\"type\":\"rpm\",\"name\":\"curl\",\"version\":\"8.6.0-7.fc40\","
		      "\"architecture\":\"x86_64\",\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\","
		      "\"debugInfoUrl\":\"https://debuginfod.fedoraproject.org/\",\"x\":[1,{\"y\":null}]}");

	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), 0);
	assert_string_equal(n.type, "rpm");
	assert_string_equal(n.name, "curl");
	assert_string_equal(n.version, "8.6.0-7.fc40");
	assert_string_equal(n.architecture, "x86_64");
	assert_string_equal(n.os_cpe, "cpe:/o:fedoraproject:fedora:40");
	/* A file without the note, and one that is not ELF. */
	assert_int_equal(read_path("/bin/sh", &n, &err), MS_END);
	assert_int_equal(read_path("/etc/hostname", &n, &err), MS_END);
	free(so);
}

static void test_escapes_decoded_then_escaped(void **state)
{
	struct ms_pkgnote n;
	struct ms_error err = { 0 };
	char shown[256];
	char *so;

	need_cc();
	so = build_so(*state, "libesc.so",
		      "{\"name\":\"ev\\u001b[2Jil\\u202e\\ud83d\\ude00\\\"\\\\\\/\",\"version\":\"1\\t2\"}");

	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), 0);
	assert_string_equal(n.name, "ev\x1b[2Jil\xe2\x80\xae\xf0\x9f\x98\x80\"\\/");
	assert_string_equal(n.version, "1\t2");
	ms_escape(n.name, strlen(n.name), shown, sizeof(shown), 0);
	assert_null(strchr(shown, '\x1b'));
	assert_null(strstr(shown, "\xe2\x80\xae"));
	assert_non_null(strstr(shown, "\\x1b[2J"));
	free(so);
}

/* A real library whose descriptor is then patched into each hostile form. */
static void test_patched_notes_refused(void **state)
{
	static const char json[] = "{\"name\":\"aaaa\",\"nbme\":\"bbbb\",\"version\":\"1.0\",\"w\":\"\\u0041x\"}";
	static const struct {
		const char *from, *to;
		int rc;
		const char *why;
	} cases[] = {
		{ "\"nbme\"", "\"name\"", MS_ERR_PROTO, "\"name\" is given twice" },
		{ "\"1.0\"", "12345", MS_ERR_PROTO, "\"version\" is not a string" },
		{ "\\u0041", "\\ud800", MS_ERR_PROTO, "a high surrogate without its low half" },
		{ "\\u0041", "\\u0000", MS_ERR_PROTO, "a NUL in a string" },
		{ "\\u0041", "\\q0041", MS_ERR_PROTO, "an unknown escape" },
		{ "aaaa", "a\xff\xfe" "a", MS_ERR_PROTO, "not UTF-8" },
		{ "aaaa", "a\na\x01", MS_ERR_PROTO, "a control byte" },
	};

	need_cc();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		char *so;
		struct ms_pkgnote n;
		struct ms_error err = { 0 };

		snprintf(name, sizeof(name), "libp%zu.so", i);
		so = build_so(*state, name, json);
		assert_non_null(so);
		patch(so, cases[i].from, cases[i].to, strlen(cases[i].from));
		assert_int_equal(read_path(so, &n, &err), cases[i].rc);
		if (!strstr(err.msg, cases[i].why))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].why);
		assert_string_equal(n.name, "");
		free(so);
	}
}

/* The NUL and its padding overwritten: the JSON never ends inside the descriptor. */
static void test_unterminated(void **state)
{
	struct ms_pkgnote n;
	struct ms_error err = { 0 };
	char *so;

	need_cc();
	so = build_so(*state, "libunterm.so", "{\"name\":\"u\"}");

	assert_non_null(so);
	/* 12 bytes of JSON, descsz 16: the NUL and three bytes of padding. */
	patch(so, "{\"name\":\"u\"}\0\0\0\0", "{\"name\":\"u\"}    ", 16);
	assert_int_equal(read_path(so, &n, &err), MS_ERR_PROTO);
	assert_non_null(strstr(err.msg, "not NUL-terminated"));
	free(so);
}

/* A note named name whose "pad" member holds pad bytes: caller frees. */
static char *padded_note(const char *name, size_t pad)
{
	char *json = malloc(pad + strlen(name) + 64);
	size_t at;

	assert_non_null(json);
	at = (size_t)sprintf(json, "{\"name\":\"%s\",\"pad\":\"", name);
	memset(json + at, 'a', pad);
	strcpy(json + at + pad, "\"}");
	return json;
}

static void test_huge_and_deep(void **state)
{
	size_t pad = 70000, depth = MS_PKGNOTE_DEPTH_MAX + 1;
	char *json, *deep, *so;
	struct ms_pkgnote n;
	struct ms_error err = { 0 };
	size_t at;

	need_cc();
	json = padded_note("big", pad);
	deep = malloc(4 * depth + 64);

	assert_non_null(deep);
	so = build_so(*state, "libhuge.so", json);
	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), MS_ERR_LIMIT);
	assert_string_equal(err.msg, "notes beyond the first 64 KiB");
	free(so);

	at = (size_t)sprintf(deep, "{\"name\":\"deep\",\"v\":");
	for (size_t i = 1; i < depth; i++)
		deep[at++] = '[';
	deep[at++] = '1';
	for (size_t i = 1; i < depth; i++)
		deep[at++] = ']';
	strcpy(deep + at, "}");
	so = build_so(*state, "libdeep.so", deep);
	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), MS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "nested deeper than"));
	free(so);
	/* One level less is fine. */
	deep[strlen("{\"name\":\"deep\",\"v\":")] = ' ';
	deep[strlen(deep) - 2] = ' ';
	so = build_so(*state, "libdeep2.so", deep);
	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), 0);
	assert_string_equal(n.name, "deep");
	free(so);
	free(json);
	free(deep);
}

/*
 * A note that ends past the first 4 KiB read: the second read finds it,
 * and the answer is the same as over the bytes in memory, with no reason
 * left over from the first read's "beyond" (fuzz-pkgnote found that).
 */
static void test_past_first_read(void **state)
{
	size_t pad = 6000, size;
	struct ms_pkgnote n, mem;
	struct ms_error err = { 0 }, merr = { 0 };
	char *json, *so, *bytes;

	need_cc();
	json = padded_note("wide", pad);
	so = build_so(*state, "libwide.so", json);
	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), 0);
	assert_string_equal(n.name, "wide");
	assert_string_equal(err.msg, "");
	bytes = tu_slurp(so, &size);
	assert_non_null(bytes);
	assert_true(size > MS_PKGNOTE_FIRST_READ);
	assert_int_equal(ms_pkgnote_parse((const unsigned char *)bytes, size, &mem, &merr), 0);
	assert_memory_equal(&n, &mem, sizeof(n));
	free(bytes);
	free(so);
	free(json);
}

static void test_field_too_long(void **state)
{
	char json[512], *so;
	struct ms_pkgnote n;
	struct ms_error err = { 0 };

	need_cc();

	snprintf(json, sizeof(json), "{\"name\":\"x\",\"version\":\"%0*d\"}", MS_PKGNOTE_VERSION_MAX, 7);
	so = build_so(*state, "liblong.so", json);
	assert_non_null(so);
	assert_int_equal(read_path(so, &n, &err), MS_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "\"version\" is longer than 127 bytes"));
	free(so);
}

/* The owner lookup of paths (gone: the caller's hint, or NULL), in a child that must answer within its alarm. */
static void lookup_bounded(const char *const *paths, const bool *gone, size_t n, struct ms_pkg *out)
{
	int pipefd[2], status;
	pid_t pid;

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ms_owner_opts opts = { .dpkg_dir = "/nonexistent-dpkg", .rpm_root = "/nonexistent-rpm" };
		struct ms_owner *o;
		struct ms_error err = { 0 };
		size_t lens[8];
		struct ms_pkg got[8];

		alarm(10);
		for (size_t i = 0; i < n; i++)
			lens[i] = strlen(paths[i]);
		if (ms_owner_open(&opts, &o, &err) < 0 || ms_owner_find_seen(o, paths, lens, gone, n, got, &err) < 0)
			_exit(2);
		ms_owner_close(o);
		_exit(write(pipefd[1], got, n * sizeof(got[0])) == (ssize_t)(n * sizeof(got[0])) ? 0 : 3);
	}
	close(pipefd[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the owner lookup did not finish (status %#x): a FIFO blocked it?", status);
	assert_int_equal(read(pipefd[0], out, n * sizeof(out[0])), (ssize_t)(n * sizeof(out[0])));
	close(pipefd[0]);
}

static void test_owner_source(void **state)
{
	char *so, *link, *fifo, *sub, *via = NULL;
	struct ms_pkg got[4];

	need_cc();
	so = build_so(*state, "libowned.so",
		      "{\"type\":\"deb\",\"name\":\"ms-owned\",\"version\":\"4.2-1\",\"architecture\":\"amd64\"}");
	link = tu_join(*state, "liblink.so");
	fifo = tu_join(*state, "libfifo.so");
	sub = tu_join(*state, "sub");

	assert_non_null(so);
	assert_int_equal(symlink(so, link), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink(*state, sub), 0);
	assert_true(asprintf(&via, "%s/libowned.so", sub) > 0);
	{
		const char *paths[] = { so, link, fifo, via };

		lookup_bounded(paths, NULL, 4, got);
	}
	assert_true(got[0].found);
	assert_int_equal(got[0].source, MS_PKG_SOURCE_NOTE);
	assert_string_equal(got[0].name, "ms-owned");
	assert_string_equal(got[0].version, "4.2-1");
	assert_string_equal(got[0].arch, "amd64");
	assert_string_equal(got[0].note_type, "deb");
	assert_false(got[0].note_differs);
	/* A symlink, last or on the way, is not followed; a FIFO is not opened. */
	assert_false(got[1].found);
	assert_false(got[2].found);
	assert_false(got[3].found);
	free(so);
	free(link);
	free(fifo);
	free(sub);
	free(via);
}

/*
 * A path the caller saw nothing at (a deleted file's, ms_owner_find_seen)
 * is not opened for its note: here a file is there after all, and only the
 * paths not marked gone are answered.
 */
static void test_owner_source_gone(void **state)
{
	char *a, *b;
	struct ms_pkg got[2];

	need_cc();
	a = build_so(*state, "libgone.so", "{\"type\":\"deb\",\"name\":\"ms-gone\",\"version\":\"1\"}");
	b = build_so(*state, "libhere.so", "{\"type\":\"deb\",\"name\":\"ms-here\",\"version\":\"2\"}");
	assert_non_null(a);
	assert_non_null(b);
	{
		const char *paths[] = { a, b };
		const bool mixed[] = { true, false }, all[] = { true, true };

		lookup_bounded(paths, mixed, 2, got);
		assert_false(got[0].found);
		assert_true(got[1].found);
		assert_string_equal(got[1].name, "ms-here");
		lookup_bounded(paths, all, 2, got);
		assert_false(got[0].found);
		assert_false(got[1].found);
		lookup_bounded(paths, NULL, 2, got);
		assert_true(got[0].found);
		assert_string_equal(got[0].name, "ms-gone");
	}
	free(a);
	free(b);
}

/*
 * Each distinct question goes to the sources once, and every asker gets
 * its answer: paths asked several times, with and without the gone hint,
 * interleaved; then copies dated, three of one copy (only one of them with
 * a mapping to read it through) and one of another.
 */
static void test_owner_asks_once(void **state)
{
	struct ms_owner_opts opts = { .dpkg_dir = "/nonexistent-dpkg", .rpm_root = "/nonexistent-rpm" };
	char *a, *b;
	struct ms_pkg got[6], pkgs[4];
	struct ms_copy copies[4];
	struct ms_owner *o;
	struct ms_error err = { 0 };
	size_t asked, dated, lens[6], len;
	struct stat st;
	void *at;
	int fd;

	need_cc();
	a = build_so(*state, "libonce.so", "{\"type\":\"deb\",\"name\":\"ms-once\",\"version\":\"3\"}");
	b = build_so(*state, "libtwice.so", "{\"type\":\"deb\",\"name\":\"ms-twice\",\"version\":\"4\"}");
	assert_non_null(a);
	assert_non_null(b);
	{
		const char *paths[] = { a, b, a, a, b, a };
		const bool gone[] = { false, false, true, false, false, true };

		for (size_t i = 0; i < 6; i++)
			lens[i] = strlen(paths[i]);
		assert_int_equal(ms_owner_open(&opts, &o, &err), 0);
		assert_int_equal(ms_owner_find_seen(o, paths, lens, gone, 6, got, &err), 0);
	}
	ms_owner_counts(o, &asked, &dated);
	assert_int_equal(asked, 3); /* a, b, and a marked gone */
	for (size_t i = 0; i < 6; i++) {
		bool is_a = i == 0 || i == 2 || i == 3 || i == 5, is_gone = i == 2 || i == 5;

		assert_int_equal(got[i].found, !is_gone);
		if (!is_gone)
			assert_string_equal(got[i].name, is_a ? "ms-once" : "ms-twice");
	}

	/* Dating: a's copy, mapped here, asked by three holders (one with the mapping). */
	fd = open(a, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	len = ((size_t)st.st_size + 4095) & ~(size_t)4095;
	at = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(at != MAP_FAILED);
	close(fd);
	for (size_t i = 0; i < 4; i++) {
		pkgs[i] = got[0];
		copies[i] = (struct ms_copy){ .start = 1000, .ino = st.st_ino, .dev_major = major(st.st_dev),
					      .dev_minor = minor(st.st_dev) };
	}
	copies[1].pid = getpid();
	copies[1].addr = (uintptr_t)at;
	copies[1].end = (uintptr_t)at + len;
	copies[3].start = 2000; /* another question: its holders started later */
	assert_int_equal(ms_owner_running(o, pkgs, copies, 4, &err), 0);
	ms_owner_counts(o, &asked, &dated);
	assert_int_equal(dated, 2);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(pkgs[i].running_state, pkgs[1].running_state);
		assert_string_equal(pkgs[i].running, pkgs[1].running);
		assert_string_equal(pkgs[i].running_why, pkgs[1].running_why);
	}
	/* Read through the one mapping: root may open map_files, others are refused. */
	if (geteuid() == 0) {
		assert_int_equal(pkgs[0].running_state, MS_PKG_RUNNING_KNOWN);
		assert_string_equal(pkgs[0].running, "3");
	}
	/* The fourth had no mapping of its own to read. */
	assert_int_equal(pkgs[3].running_state, MS_PKG_RUNNING_UNKNOWN);
	assert_non_null(strstr(pkgs[3].running_why, "no mapping of the running copy is known"));
	munmap(at, len);
	ms_owner_close(o);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_past_first_read, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_real_note, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_escapes_decoded_then_escaped, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_patched_notes_refused, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_unterminated, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_huge_and_deep, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_field_too_long, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_owner_source, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_owner_source_gone, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_owner_asks_once, tu_tmpdir_setup, tu_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
