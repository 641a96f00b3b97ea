/*
 * Fuzz target for dpkg's status reader (src/core/pkg/pkg_status.h) and the
 * package URLs made from its answers (src/core/pkg/purl.h).  The input is
 * a status file, read from an exact-size copy so ASan sees any read past
 * it, asked for five packages (names and architectures a status file
 * usually has, and one asked without an architecture).  Properties:
 *   - only a package asked about and found gets a version, an architecture
 *     or a source; a source name holds no blank, '(' or newline, a source
 *     version no ')' or newline, and is never the package's own version;
 *   - the same answers whether the text is parsed whole or read from a
 *     file descriptor a piece at a time (ms_pkg_status_versions_fd);
 *   - the same answers from the stanzas ms_pkg_status_stanzas places for
 *     the packages asked about, each ended by a blank line, as an index
 *     of them gives (status_index.h); every place lies within the text;
 *   - the purl of each answer has only the characters purl.h's canonical form writes,
 *     its qualifiers sorted, each at most once, and fits MS_PURL_MAX;
 *   - its one-line description is safe for a terminal.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/pkg/pkg_status.h"
#include "core/pkg/purl.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N 5

static void ask(struct ms_pkg *out)
{
	static const char *const names[N] = { "libssl3", "bash", "libssl3", "a", "tzdata" };
	static const char *const arches[N] = { "amd64", "", "i386", "", "" };

	memset(out, 0, N * sizeof(*out));
	for (size_t i = 0; i < N; i++) {
		out[i].found = true;
		out[i].source = MS_PKG_SOURCE_DPKG;
		strcpy(out[i].name, names[i]);
		strcpy(out[i].arch, arches[i]);
	}
}

static void check_purl(const struct ms_pkg *p, const uint8_t *data, size_t size)
{
	static const struct ms_osrelease os = { .id = "debian", .version_id = "12" };
	char purl[MS_PURL_MAX], last[16] = "", *q;
	size_t len = ms_purl_of(p, p->version, &os, purl, sizeof(purl));

	if (!len || strlen(purl) != len)
		fuzz_fail("no purl for a dpkg package", data, size);
	/* The separators, and what purl.h's canonical form keeps literal ("!*'()+" in names and versions). */
	if (strspn(purl, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_~%:/@?=&!*'()+") != len)
		fuzz_fail("a purl character outside the permitted set", data, size);
	q = strchr(purl, '?');
	for (char *key = q ? q + 1 : NULL; key; key = strchr(key, '&') ? strchr(key, '&') + 1 : NULL) {
		size_t klen = strcspn(key, "=");

		if (klen >= sizeof(last) || key[klen] != '=')
			fuzz_fail("a qualifier out of shape", data, size);
		if (last[0] && strncmp(last, key, klen) >= 0)
			fuzz_fail("qualifiers not sorted, or one twice", data, size);
		memcpy(last, key, klen);
		last[klen] = '\0';
	}
}

static void check(const struct ms_pkg *p, const uint8_t *data, size_t size)
{
	char line[8 * MS_PKG_NAME_MAX + 16 * MS_PKG_VERSION_MAX];
	size_t len;

	if (!p->version[0] && (p->src_name[0] || p->src_version[0]))
		fuzz_fail("a source without a stanza", data, size);
	if (strpbrk(p->src_name, " \t(\n") || strpbrk(p->src_version, ")\n") || strchr(p->arch, '\n'))
		fuzz_fail("a source or architecture out of shape", data, size);
	if (p->src_version[0] && !strcmp(p->src_version, p->version))
		fuzz_fail("a source version that is the package's own", data, size);
	if (p->version[0])
		check_purl(p, data, size);
	len = ms_pkg_describe(p, 0, line, sizeof(line));
	fuzz_check_safe_text(line, len);
}

static bool asked_about(const char *name, size_t len)
{
	static const char *const names[] = { "libssl3", "bash", "a", "tzdata" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return true;
	return false;
}

/* The stanzas of the packages asked about, one after the other, parsed: as whole. */
static void check_stanzas(const char *text, size_t size, const struct ms_pkg *whole, const uint8_t *data)
{
	struct ms_pkg_stanza *st;
	struct ms_pkg placed[N];
	size_t n, at = 0, last = SIZE_MAX;
	char *buf;

	if (ms_pkg_status_stanzas(text, size, &st, &n) < 0)
		return;
	buf = malloc(size + 2 * n + 1);
	for (size_t i = 0; buf && i < n; i++) {
		if (st[i].name < text || st[i].name + st[i].name_len > text + size || !st[i].len ||
		    st[i].off + st[i].len > size)
			fuzz_fail("a stanza placed outside the text", data, size);
		if (!asked_about(st[i].name, st[i].name_len) || st[i].off == last)
			continue;
		last = st[i].off;
		memcpy(buf + at, text + st[i].off, st[i].len);
		at += st[i].len;
		while (at < 2 || buf[at - 1] != '\n' || buf[at - 2] != '\n')
			buf[at++] = '\n';
	}
	if (buf) {
		ask(placed);
		ms_pkg_status_versions(buf, at, placed, N);
		if (memcmp(whole, placed, sizeof(placed)))
			fuzz_fail("read from the stanzas placed, not as whole", data, size);
	}
	free(buf);
	free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_pkg whole[N], pieces[N];
	char *copy = malloc(size ? size : 1);
	int fd;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ask(whole);
	ms_pkg_status_versions(copy, size, whole, N);
	for (size_t i = 0; i < N; i++)
		check(&whole[i], data, size);
	check_stanzas(copy, size, whole, data);
	fd = memfd_create("status", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) {
		ask(pieces);
		if (ms_pkg_status_versions_fd(fd, size + 1, pieces, N) == 0 && memcmp(whole, pieces, sizeof(whole)))
			fuzz_fail("read in pieces, not as whole", data, size);
	}
	if (fd >= 0)
		close(fd);
	free(copy);
	return 0;
}
