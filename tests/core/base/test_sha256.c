/* ms_sha256: the FIPS 180-4 example digests, whatever the pieces fed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/sha256.h"

static void digest_of(const char *data, size_t len, size_t piece, char hex[MS_SHA256_HEX_LEN + 1])
{
	unsigned char d[MS_SHA256_LEN];
	struct ms_sha256 h;

	ms_sha256_init(&h);
	for (size_t at = 0; at < len; at += piece)
		ms_sha256_update(&h, data + at, len - at < piece ? len - at : piece);
	ms_sha256_final(&h, d);
	ms_sha256_hex(d, hex);
}

static void test_fips_vectors(void **state)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[MS_SHA256_HEX_LEN + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t piece = 1; piece <= 65; piece += 7) {
			digest_of(v[i].in, strlen(v[i].in), piece, hex);
			assert_string_equal(hex, v[i].out);
		}
}

/* A million 'a', fed in pieces that straddle the 64-byte blocks. */
static void test_million_a(void **state)
{
	char hex[MS_SHA256_HEX_LEN + 1], *a = malloc(1000000);

	(void)state;
	assert_non_null(a);
	memset(a, 'a', 1000000);
	digest_of(a, 1000000, 4099, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
