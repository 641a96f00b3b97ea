/*
 * sha256.h - SHA-256 (FIPS 180-4), for the SBOM's hashes of files no
 * package owns (core/files/sbom.h).  Incremental: init, update any number
 * of times with pieces of any size, final.  No allocation, no I/O; the
 * caller bounds what it feeds.  Checked against the FIPS test vectors
 * (tests/core/base/test_sha256.c).
 */
#ifndef MAPSCOPE_SHA256_H
#define MAPSCOPE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define MS_SHA256_LEN 32
#define MS_SHA256_HEX_LEN (2 * MS_SHA256_LEN)

struct ms_sha256 {
	uint32_t state[8];
	uint64_t bytes;          /* fed so far */
	unsigned char block[64];
	size_t used;             /* bytes of block filled */
};

void ms_sha256_init(struct ms_sha256 *h);
void ms_sha256_update(struct ms_sha256 *h, const void *data, size_t len);
void ms_sha256_final(struct ms_sha256 *h, unsigned char out[MS_SHA256_LEN]);
/* The digest as lower-case hex, NUL-terminated (MS_SHA256_HEX_LEN + 1 bytes). */
void ms_sha256_hex(const unsigned char digest[MS_SHA256_LEN], char *out);

#endif
