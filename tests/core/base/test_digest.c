/*
 * digest: SHA-256 through libcrypto.  Real files of sizes around the read
 * chunk hash to what sha256sum says of them, run now; a file that shrinks
 * or grows under the read gives no hash; a library that is missing or is
 * not libcrypto is "not available", with the reason; and an OPENSSL_CONF
 * that would change which SHA-256 is fetched is never read.  Skips (naming
 * why) where libcrypto.so.3 or sha256sum is not installed.
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/base/digest.h"
#include "testutil.h"

/* sha256sum's answer for path (a test's own file: no quote in its name), or false. */
static bool sha256sum_of(const char *path, char hex[MS_SHA256_HEX_LEN + 1])
{
	char cmd[4096], line[256];
	FILE *f;
	bool ok;

	snprintf(cmd, sizeof(cmd), "sha256sum -- '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) && strlen(line) > MS_SHA256_HEX_LEN && line[MS_SHA256_HEX_LEN] == ' ';
	if (pclose(f) != 0)
		ok = false;
	if (ok)
		snprintf(hex, MS_SHA256_HEX_LEN + 1, "%s", line);
	return ok;
}

static struct ms_digest *digest_or_skip(void)
{
	char why[256];
	struct ms_digest *d = ms_digest_new(NULL, why, sizeof(why));

	if (!d) {
		print_message("skip: %s\n", why);
		skip();
	}
	return d;
}

/* A file of size pseudo-random bytes (seeded by size) at dir/name. */
static char *make_file(const char *dir, const char *name, size_t size)
{
	char *path = tu_join(dir, name);
	unsigned char *b = malloc(size ? size : 1);
	uint32_t x = (uint32_t)size * 2654435761u + 1;
	FILE *f;

	assert_non_null(b);
	for (size_t i = 0; i < size; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
	free(b);
	return path;
}

static void test_matches_sha256sum(void **state)
{
	const char *dir = *state;
	const size_t sizes[] = { 0, 1, 55, 56, 63, 64, 65, MS_DIGEST_CHUNK - 1, MS_DIGEST_CHUNK,
				 MS_DIGEST_CHUNK + 1, 3 * MS_DIGEST_CHUNK + 17 };
	struct ms_digest *d = digest_or_skip();

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char name[32], want[MS_SHA256_HEX_LEN + 1], got[MS_SHA256_HEX_LEN + 1], why[160];
		char *path;
		int fd;

		snprintf(name, sizeof(name), "f%zu", sizes[i]);
		path = make_file(dir, name, sizes[i]);
		if (!sha256sum_of(path, want)) {
			free(path);
			ms_digest_free(d);
			print_message("skip: sha256sum did not answer\n");
			skip();
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		/* The same digest object, reused from file to file. */
		if (!ms_digest_fd(d, fd, sizes[i], got, why, sizeof(why)))
			fail_msg("%zu bytes: %s", sizes[i], why);
		assert_string_equal(got, want);
		close(fd);
		free(path);
	}
	ms_digest_free(d);
}

/* Size checked, then the file cut (or grown) before it is read: no hash, and why. */
static void test_changed_under_read(void **state)
{
	const char *dir = *state;
	struct ms_digest *d = digest_or_skip();
	size_t size = 2 * MS_DIGEST_CHUNK + 5;
	char *path = make_file(dir, "cut", size), hex[MS_SHA256_HEX_LEN + 1] = "", why[160] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(truncate(path, MS_DIGEST_CHUNK + 3), 0);
	assert_false(ms_digest_fd(d, fd, size, hex, why, sizeof(why)));
	assert_string_equal(why, "the file shrank while it was read");
	assert_string_equal(hex, "");
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(truncate(path, size + 1), 0);
	assert_false(ms_digest_fd(d, fd, size, hex, why, sizeof(why)));
	assert_string_equal(why, "the file grew while it was read");
	/* The digest is still good for the next file. */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_true(ms_digest_fd(d, fd, size + 1, hex, why, sizeof(why)));
	assert_int_equal(strlen(hex), MS_SHA256_HEX_LEN);
	close(fd);
	free(path);
	ms_digest_free(d);
}

static void test_not_available(void **state)
{
	char why[256] = "";

	(void)state;
	assert_null(ms_digest_new("libmapscope-none.so.0", why, sizeof(why)));
	if (!strstr(why, "libmapscope-none.so.0 is not available: "))
		fail_msg("why: %s", why);
	/* Asked again: the same answer, not a crash. */
	assert_null(ms_digest_new("libmapscope-none.so.0", why, sizeof(why)));
	assert_non_null(strstr(why, "is not available"));
	/* A library that is not libcrypto lacks its functions. */
	assert_null(ms_digest_new("libc.so.6", why, sizeof(why)));
	if (!strstr(why, "libc.so.6 is not available: "))
		fail_msg("why: %s", why);
	/* And libcrypto itself still loads after those. */
	ms_digest_free(digest_or_skip());
}

/*
 * A configuration whose default properties ask for a FIPS provider: read,
 * it would leave "provider=default" with no SHA-256 (or load a module).
 * In a child, where libcrypto is loaded for the first time.
 */
static void fetch_under_conf(void *arg, void *out)
{
	char why[256];
	struct ms_digest *d;

	setenv("OPENSSL_CONF", arg, 1);
	if (dlopen(MS_DIGEST_SONAME, RTLD_NOW | RTLD_NOLOAD)) {
		snprintf(out, 256, "libcrypto was loaded before the test");
		return;
	}
	d = ms_digest_new(NULL, why, sizeof(why));
	snprintf(out, 256, "%s", d ? "ok" : why);
	ms_digest_free(d);
}

/* Whether libcrypto loads at all, asked in a child so that this process has not loaded it. */
static void probe(void *arg, void *out)
{
	(void)arg;
	*(bool *)out = dlopen(MS_DIGEST_SONAME, RTLD_NOW | RTLD_LOCAL) != NULL;
}

static void test_config_never_read(void **state)
{
	const char *dir = *state;
	char *conf = tu_join(dir, "openssl.cnf"), answer[256] = "";
	bool installed = false;

	assert_int_equal(tu_child_answer(probe, NULL, &installed, sizeof(installed)), 0);
	if (!installed) {
		free(conf);
		print_message("skip: %s is not installed\n", MS_DIGEST_SONAME);
		skip();
	}
	assert_int_equal(tu_spit(conf, "openssl_conf = conf_sect\n"
				       "[conf_sect]\nalg_section = alg_sect\nproviders = prov_sect\n"
				       "[alg_sect]\ndefault_properties = fips=yes\n"
				       "[prov_sect]\nevil = evil_sect\n"
				       "[evil_sect]\nmodule = /nonexistent/evil.so\nactivate = 1\n"),
			 0);
	assert_int_equal(tu_child_answer(fetch_under_conf, conf, answer, sizeof(answer)), 0);
	assert_string_equal(answer, "ok");
	free(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: its child must be the first to load libcrypto. */
		cmocka_unit_test_setup_teardown(test_config_never_read, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_matches_sha256sum, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_changed_under_read, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test(test_not_available),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
