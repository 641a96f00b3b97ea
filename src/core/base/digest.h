/*
 * digest.h - SHA-256 through OpenSSL's libcrypto, for the SBOM's hashes of
 * files no package owns (files/sbom.h).  mapscope carries no cryptography
 * of its own: libcrypto's SHA-256 is the one distributions audit, patch
 * and certify, and it uses the CPU's SHA instructions where there are
 * some (several times faster than portable C).
 *
 * Loaded, not linked: libcrypto.so.3 (MS_DIGEST_SONAME, OpenSSL 3's
 * stable ABI) is opened with dlopen the first time a digest is asked for
 * (dlload.h), as libdw and librpm are.  Only `libs --format=cyclonedx`
 * hashes; linked, libcrypto (4.3 MB of code, 21,000 relocations)
 * would be mapped and relocated at every start of every command, `list`
 * and `at` included, which are timed against pmap.  Loading it late also
 * needs no header and no library at build time: the few functions used
 * are declared in digest.c with OpenSSL's own types (checked against
 * OpenSSL's headers when they are installed, so a wrong declaration does
 * not build).
 *
 * Initialised for a root process: OPENSSL_init_crypto with
 * OPENSSL_INIT_NO_LOAD_CONFIG before anything else, so no openssl.cnf (an
 * OPENSSL_CONF that sudo -E or su -m kept from a user) can load a
 * provider or engine module, or change the default properties; and
 * "SHA256" is fetched explicitly from the built-in default provider
 * (EVP_MD_fetch, properties "provider=default"), never looked up by a name
 * or object a file gives.  OpenSSL's own safe getenv already ignores its
 * variables in a set-user-ID process.
 *
 * The bytes hashed are data, never parsed: hashing runs in-process.
 *
 * ms_digest_new loads the library once per program (a missing library, or
 * one that lacks a function or SHA-256, is "not available": NULL with the
 * reason, e.g. "libcrypto.so.3 is not available: ..."); the caller then
 * gives no hash and says why, never a wrong one.  ms_digest_fd hashes one
 * open regular file whose size the caller checked: it reads in
 * MS_DIGEST_CHUNK pieces into the digest's one buffer (read(2), never
 * mmap: a file truncated under mmap would raise SIGBUS) and fails when
 * the file gives more or fewer bytes than size (it changed while read).
 * Not thread-safe: mapscope hashes from its one thread.
 */
#ifndef MAPSCOPE_DIGEST_H
#define MAPSCOPE_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MS_DIGEST_SONAME "libcrypto.so.3"
#define MS_SHA256_LEN 32
#define MS_SHA256_HEX_LEN (2 * MS_SHA256_LEN)
#define MS_DIGEST_CHUNK (512u << 10)

struct ms_digest;

/*
 * A SHA-256 digest, loading soname (NULL: MS_DIGEST_SONAME; tests name
 * another) if not loaded.  NULL with why when libcrypto is not available
 * or memory runs out.
 */
struct ms_digest *ms_digest_new(const char *soname, char *why, size_t why_size);
/*
 * fd read from its offset to its end, as lower-case hex (MS_SHA256_HEX_LEN
 * + 1 bytes, NUL-terminated).  false with why when reading fails or the
 * file has not exactly size bytes left.
 */
bool ms_digest_fd(struct ms_digest *d, int fd, uint64_t size, char *hex, char *why, size_t why_size);
void ms_digest_free(struct ms_digest *d);

#endif
