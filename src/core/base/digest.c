/* digest.c - SHA-256 through libcrypto, loaded at first use: see digest.h. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/dlload.h"

/*
 * OpenSSL 3's functions, as its headers declare them.  Only their types are
 * used (the pointers come from dlsym).  Where the headers are installed
 * they are included too, and a declaration here that differs from
 * OpenSSL's own is a compile error.
 */
#if defined(__has_include)
#if __has_include(<openssl/evp.h>) && __has_include(<openssl/crypto.h>)
#include <openssl/crypto.h>
#include <openssl/evp.h>
#define MS_HAVE_OPENSSL_HEADERS 1
#endif
#endif

struct evp_md_st;
struct evp_md_ctx_st;
struct ossl_lib_ctx_st;
struct ossl_param_st;
struct ossl_init_settings_st;

int OPENSSL_init_crypto(uint64_t opts, const struct ossl_init_settings_st *settings);
struct evp_md_st *EVP_MD_fetch(struct ossl_lib_ctx_st *ctx, const char *algorithm, const char *properties);
void EVP_MD_free(struct evp_md_st *md);
struct evp_md_ctx_st *EVP_MD_CTX_new(void);
void EVP_MD_CTX_free(struct evp_md_ctx_st *ctx);
int EVP_DigestInit_ex2(struct evp_md_ctx_st *ctx, const struct evp_md_st *type, const struct ossl_param_st *params);
int EVP_DigestUpdate(struct evp_md_ctx_st *ctx, const void *d, size_t cnt);
int EVP_DigestFinal_ex(struct evp_md_ctx_st *ctx, unsigned char *md, unsigned int *s);

/* OPENSSL_INIT_NO_LOAD_CONFIG: no openssl.cnf, whatever OPENSSL_CONF says. */
#define INIT_NO_LOAD_CONFIG 0x00000080u
#ifdef MS_HAVE_OPENSSL_HEADERS
_Static_assert(INIT_NO_LOAD_CONFIG == OPENSSL_INIT_NO_LOAD_CONFIG, "OpenSSL's flag");
#endif

#define CRYPTO_FUNCS(X) \
	X(OPENSSL_init_crypto) X(EVP_MD_fetch) X(EVP_MD_free) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) \
	X(EVP_DigestInit_ex2) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex)

static struct {
	struct ms_dl dl;
	char soname[128];  /* the one dl was tried with */
	char why[192];     /* why it is not available */
	bool initialised;  /* OPENSSL_init_crypto succeeded */
#define X(f) __typeof__(&f) f;
	CRYPTO_FUNCS(X)
#undef X
} lc;

struct ms_digest {
	struct evp_md_st *md;
	struct evp_md_ctx_st *ctx;
	unsigned char *buf; /* MS_DIGEST_CHUNK bytes */
};

static bool crypto_load(const char *soname)
{
	const struct ms_dl_sym syms[] = {
#define X(f) { #f, (void **)&lc.f },
		CRYPTO_FUNCS(X)
#undef X
	};

	if (strlen(soname) >= sizeof(lc.soname)) {
		snprintf(lc.why, sizeof(lc.why), "%s is not available: name too long", MS_DIGEST_SONAME);
		return false;
	}
	if (strcmp(lc.soname, soname) != 0) {
		ms_dl_forget(&lc.dl);
		lc.initialised = false;
		strcpy(lc.soname, soname);
	}
	if (lc.dl.tried)
		return lc.dl.loaded && lc.initialised;
	if (!ms_dl_load(&lc.dl, soname, syms, sizeof(syms) / sizeof(syms[0]))) {
		const char *e = dlerror();

		snprintf(lc.why, sizeof(lc.why), "%s is not available: %s", soname,
			 e ? e : "it lacks a function of OpenSSL 3");
		return false;
	}
	/* Before any other call: from here on no configuration file is read. */
	lc.initialised = lc.OPENSSL_init_crypto(INIT_NO_LOAD_CONFIG, NULL) == 1;
	if (!lc.initialised)
		snprintf(lc.why, sizeof(lc.why), "%s is not available: it did not initialise", soname);
	return lc.initialised;
}

struct ms_digest *ms_digest_new(const char *soname, char *why, size_t why_size)
{
	struct ms_digest *d;

	if (!crypto_load(soname ? soname : MS_DIGEST_SONAME)) {
		snprintf(why, why_size, "%s", lc.why);
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->buf = malloc(MS_DIGEST_CHUNK))) {
		snprintf(why, why_size, "out of memory");
		free(d);
		return NULL;
	}
	d->md = lc.EVP_MD_fetch(NULL, "SHA256", "provider=default");
	d->ctx = lc.EVP_MD_CTX_new();
	if (!d->md || !d->ctx) {
		snprintf(why, why_size, "%s is not available: it has no SHA-256", lc.soname);
		ms_digest_free(d);
		return NULL;
	}
	return d;
}

static void to_hex(const unsigned char *bin, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[bin[i] >> 4];
		hex[2 * i + 1] = digits[bin[i] & 15];
	}
	hex[2 * n] = '\0';
}

bool ms_digest_fd(struct ms_digest *d, int fd, uint64_t size, char *hex, char *why, size_t why_size)
{
	unsigned char out[MS_SHA256_LEN];
	unsigned int outlen = 0;
	uint64_t done = 0;

	if (lc.EVP_DigestInit_ex2(d->ctx, d->md, NULL) != 1) {
		snprintf(why, why_size, "libcrypto failed to hash");
		return false;
	}
	for (;;) {
		ssize_t n = read(fd, d->buf, MS_DIGEST_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_size, "reading the file failed: %s", strerror(errno));
			return false;
		}
		if (n == 0)
			break;
		done += (uint64_t)n;
		if (done > size) {
			snprintf(why, why_size, "the file grew while it was read");
			return false;
		}
		if (lc.EVP_DigestUpdate(d->ctx, d->buf, (size_t)n) != 1) {
			snprintf(why, why_size, "libcrypto failed to hash");
			return false;
		}
	}
	if (done != size) {
		snprintf(why, why_size, "the file shrank while it was read");
		return false;
	}
	if (lc.EVP_DigestFinal_ex(d->ctx, out, &outlen) != 1 || outlen != MS_SHA256_LEN) {
		snprintf(why, why_size, "libcrypto failed to hash");
		return false;
	}
	to_hex(out, MS_SHA256_LEN, hex);
	return true;
}

void ms_digest_free(struct ms_digest *d)
{
	if (!d)
		return;
	if (d->ctx)
		lc.EVP_MD_CTX_free(d->ctx);
	if (d->md)
		lc.EVP_MD_free(d->md);
	free(d->buf);
	free(d);
}
