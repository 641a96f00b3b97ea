/*
 * The versions from dpkg's status file read a piece at a time
 * (ms_pkg_status_read_versions, 64 KiB at a time) against the same file
 * parsed whole (ms_pkg_status_versions): 3,000 stanzas of varied lengths,
 * so that stanzas straddle every piece's end, one stanza of 200 KB (longer
 * than a piece), packages not installed, two architectures of one
 * package, a Version before its Package, "Source:" lines with and
 * without a version of their own.  Every package is asked for, some
 * without an architecture; the answers (version, architecture, source)
 * must be equal and the ones made here right.
 *
 * Then crafted stanzas for the architecture and source rules (a binNMU's
 * "Source: NAME (VERSION)", a source named as the package, "all", broken
 * Source lines), and this machine's own dpkg database: the owners of
 * files of bash, libssl3, libc6, coreutils, dash and tzdata, looked up as
 * mapscope does, must have the architecture and source package that
 * dpkg-query says, bash's though its list file names no architecture.
 */
#include "config.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pkg/pkg_status.h"
#include "pkg/pkgdb.h"
#include "pkg/status_index.h"
#include "testutil.h"

#define NPKG 3000

static char *status_text(size_t *len)
{
	size_t cap = 8u << 20, at = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (int i = 0; i < NPKG; i++) {
		int pad = i == 1234 ? 200000 : (i * 37) % 900;

		if (i % 3 == 1)
			at += (size_t)snprintf(t + at, cap - at, "Version: %d.%d\nPackage: p%04d\n", i, i % 7, i);
		else
			at += (size_t)snprintf(t + at, cap - at, "Package: p%04d\nVersion: %d.%d\n", i, i, i % 7);
		if (i % 4 == 0)
			at += (size_t)snprintf(t + at, cap - at, "Source: s%04d\n", i);
		else if (i % 4 == 2)
			at += (size_t)snprintf(t + at, cap - at, "Source: s%04d (%d.0)\n", i, i);
		at += (size_t)snprintf(t + at, cap - at, "Architecture: %s\nStatus: %s\nDescription: x\n",
				       i % 10 == 9 ? "i386" : "amd64",
				       i % 11 == 5 ? "deinstall ok config-files" : "install ok installed");
		for (int k = 0; k < pad; k++)
			at += (size_t)snprintf(t + at, cap - at, "%s", k % 70 == 69 ? "\n ." : "y");
		at += (size_t)snprintf(t + at, cap - at, "\n\n");
	}
	/* p0009 is installed for amd64 too: the architecture picks the stanza. */
	at += (size_t)snprintf(t + at, cap - at,
			       "Package: p0009\nVersion: 9.amd\nArchitecture: amd64\nStatus: install ok installed\n");
	*len = at;
	return t;
}

static void ask_all(struct ms_pkg *out)
{
	for (int i = 0; i < NPKG; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].found = true;
		snprintf(out[i].name, sizeof(out[i].name), "p%04d", i);
		/* Every fifth without an architecture, as for a list file without ":ARCH". */
		snprintf(out[i].arch, sizeof(out[i].arch), "%s", i % 10 == 9 ? "i386" : i % 5 ? "amd64" : "");
	}
	/* p0009 asked for amd64 as well. */
	out[NPKG] = out[9];
	snprintf(out[NPKG].arch, sizeof(out[NPKG].arch), "amd64");
}

/*
 * Package k's architecture and source, as status_text wrote them; version:
 * what it must have; amd64: p0009 asked for amd64 (its second stanza).
 */
static void assert_source(const struct ms_pkg *p, int k, const char *version, bool amd64)
{
	char src[32], srcv[32];

	if (!version[0]) { /* not installed: nothing from its stanza */
		assert_string_equal(p->src_name, "");
		assert_string_equal(p->arch, k % 10 == 9 ? "i386" : k % 5 ? "amd64" : "");
		return;
	}
	assert_string_equal(p->arch, k % 10 == 9 && !amd64 ? "i386" : "amd64");
	snprintf(src, sizeof(src), k % 2 ? "p%04d" : "s%04d", k);
	/* "Source: sK (K.0)": a version of its own unless the package's is K.0 too. */
	snprintf(srcv, sizeof(srcv), "%d.0", k);
	if (k % 4 != 2 || !strcmp(srcv, version))
		srcv[0] = '\0';
	assert_string_equal(p->src_name, src);
	assert_string_equal(p->src_version, srcv);
}

static void test_pieces_as_whole(void **state)
{
	char *dir = tu_tmpdir(), *path = tu_join(dir, "status");
	struct ms_pkg *whole = calloc(NPKG + 1, sizeof(*whole)), *pieces = calloc(NPKG + 1, sizeof(*pieces));
	size_t len;
	char *text = status_text(&len), want[32];

	(void)state;
	assert_true(len > 1000000);
	assert_int_equal(tu_spit(path, text), 0);
	ask_all(whole);
	ask_all(pieces);
	ms_pkg_status_versions(text, len, whole, NPKG + 1);
	assert_int_equal(ms_pkg_status_read_versions(dir, 64u << 20, pieces, NPKG + 1), 0);
	for (int i = 0; i <= NPKG; i++) {
		int k = i == NPKG ? 9 : i;

		if (k % 11 == 5)
			snprintf(want, sizeof(want), "%s", "");
		else if (i == NPKG)
			snprintf(want, sizeof(want), "9.amd");
		else
			snprintf(want, sizeof(want), "%d.%d", k, k % 7);
		assert_string_equal(whole[i].version, want);
		assert_string_equal(pieces[i].version, want);
		assert_source(&whole[i], k, want, i == NPKG);
		assert_source(&pieces[i], k, want, i == NPKG);
	}
	/* Bounded: only the first bytes are read, and the packages beyond say nothing. */
	ask_all(pieces);
	assert_int_equal(ms_pkg_status_read_versions(dir, 100000, pieces, NPKG + 1), 0);
	assert_string_equal(pieces[0].version, "0.0");
	assert_string_equal(pieces[NPKG - 1].version, "");
	free(text);
	free(whole);
	free(pieces);
	tu_rmtree(dir);
	free(path);
	free(dir);
}

/* The index of dir's status file that root would write (one list, no hashes), opened with pins. */
static void index_status(const char *dir, const char *ixpath, struct ms_pkg_index_pins *pins, struct ms_pkg_index *ix)
{
	static const char *const names[] = { "a.list" };
	struct ms_pkg_index_extra x = { .names = names, .nnames = 1 };
	struct ms_pkg_index_build b = { 0 };
	char *info = tu_join(dir, "info");
	int fd;

	(void)mkdir(info, 0755);
	fd = open(info, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(ms_pkg_index_pins_take(fd, dir, pins), 0);
	close(fd);
	free(info);
	pins->nlists = 1;
	assert_int_equal(ms_status_index_collect(dir, pins, &x.stanzas, &x.nstanzas), 0);
	assert_int_equal(x.nstanzas, NPKG + 1);
	assert_int_equal(ms_pkg_index_write(ixpath, pins, &b, &x), 0);
	free(x.stanzas);
	assert_true(ms_pkg_index_open(ixpath, pins, ix));
	assert_int_equal(ix->nstanzas, NPKG + 1);
}

/* Every package, and one alone, from the stanzas ix places, as from the whole text. */
static void placed_as_whole(const char *dir, const struct ms_pkg_index *ix, const struct ms_pkg_index_pins *pins,
			    const char *text, size_t len)
{
	static const int alone[] = { 0, 9, 1234, 2999, NPKG };
	struct ms_pkg *whole = calloc(NPKG + 1, sizeof(*whole)), *placed = calloc(NPKG + 1, sizeof(*placed));

	ask_all(whole);
	ask_all(placed);
	ms_pkg_status_versions(text, len, whole, NPKG + 1);
	assert_int_equal(ms_status_index_versions(dir, ix, pins, placed, NPKG + 1), 1);
	for (size_t k = 0; k <= sizeof(alone) / sizeof(alone[0]); k++) {
		for (int i = 0; i <= NPKG; i++) {
			assert_string_equal(placed[i].version, whole[i].version);
			assert_string_equal(placed[i].arch, whole[i].arch);
			assert_string_equal(placed[i].src_name, whole[i].src_name);
			assert_string_equal(placed[i].src_version, whole[i].src_version);
		}
		if (k == sizeof(alone) / sizeof(alone[0]))
			break;
		/* Then each of a few packages asked alone, the others found with their answers. */
		ask_all(placed);
		for (int i = 0; i <= NPKG; i++)
			if (i != alone[k])
				placed[i] = whole[i];
		assert_int_equal(ms_status_index_versions(dir, ix, pins, placed, NPKG + 1), 1);
	}
	free(whole);
	free(placed);
}

/*
 * The versions from the stanzas an index places (status_index.h), as root
 * writes it, against status_text parsed whole: the same answers for every
 * package, asked all at once and one at a time.  And none from the index
 * (0: the caller reads the file) once a stanza's place is past the file's
 * end, the file's mtime moved, or the file is another with the same bytes.
 */
static void test_stanzas_as_whole(void **state)
{
	char *cache = tu_root_tmpdir(), *dir, *path, *ixpath, *text, *fresh;
	struct ms_pkg_index_pins pins;
	struct ms_pkg_index ix;
	struct ms_pkg one;
	uint32_t past[2];
	size_t len;
	int fd;

	(void)state;
	if (!cache) {
		print_message("not root, or the current directory is not root's alone: no index can be written\n");
		skip();
	}
	dir = tu_tmpdir(), path = tu_join(dir, "status"), ixpath = tu_join(cache, "dpkg-paths");
	fresh = tu_join(dir, "status.new");
	text = status_text(&len);
	assert_int_equal(tu_spit(path, text), 0);
	index_status(dir, ixpath, &pins, &ix);
	placed_as_whole(dir, &ix, &pins, text, len);
	/* A package no stanza names: nothing, and answered. */
	memset(&one, 0, sizeof(one));
	one.found = true;
	snprintf(one.name, sizeof(one.name), "nobody-has-me");
	assert_int_equal(ms_status_index_versions(dir, &ix, &pins, &one, 1), 1);
	assert_string_equal(one.version, "");
	/* The first stanza's place past the end of the file: the table is not used. */
	past[0] = (uint32_t)len;
	past[1] = 10;
	fd = open(ixpath, O_WRONLY);
	assert_int_equal(pwrite(fd, past, sizeof(past), MS_PKG_INDEX_HEADER + 7 + 8), (ssize_t)sizeof(past));
	close(fd);
	assert_int_equal(ms_status_index_versions(dir, &ix, &pins, &one, 1), 0);
	ms_pkg_index_close(&ix);
	index_status(dir, ixpath, &pins, &ix);
	/* The same bytes in another file, renamed over it: not the pinned file. */
	assert_int_equal(tu_spit(fresh, text), 0);
	assert_int_equal(rename(fresh, path), 0);
	assert_int_equal(ms_status_index_versions(dir, &ix, &pins, &one, 1), 0);
	ms_pkg_index_close(&ix);
	index_status(dir, ixpath, &pins, &ix);
	/* Its mtime moved. */
	assert_int_equal(utimensat(AT_FDCWD, path, (struct timespec[2]){ { 0, UTIME_OMIT }, { 1, 0 } }, 0), 0);
	assert_int_equal(ms_status_index_versions(dir, &ix, &pins, &one, 1), 0);
	ms_pkg_index_close(&ix);
	tu_rmtree(dir);
	tu_rmtree(cache);
	free(text), free(fresh), free(path), free(ixpath), free(dir), free(cache);
}

static struct ms_pkg asked(const char *name, const char *arch)
{
	struct ms_pkg p = { .found = true, .source = MS_PKG_SOURCE_DPKG };

	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.arch, sizeof(p.arch), "%s", arch);
	return p;
}

/*
 * The architecture and the source from crafted stanzas: a list file
 * without ":ARCH" still gets the stanza's ("all" too); a binNMU names its
 * source's own version, one equal to the package's is no version of its
 * own; a broken Source line gives its name and no version; a stanza not
 * installed gives nothing; an architecture asked is never replaced.
 */
static void test_source_and_arch(void **state)
{
	static const char text[] =
		"Package: bash\nStatus: install ok installed\nArchitecture: amd64\nSource: bash (5.2.15-2)\n"
		"Version: 5.2.15-2+b8\n\n"
		"Package: libssl3\nStatus: install ok installed\nArchitecture: amd64\nSource: openssl\n"
		"Version: 3.0.19-1~deb12u2\n\n"
		"Package: tzdata\nStatus: install ok installed\nArchitecture: all\nVersion: 2025b-0+deb12u1\n\n"
		"Package: same\nStatus: install ok installed\nArchitecture: amd64\nSource: same-src (1.0)\nVersion: 1.0\n\n"
		"Package: broken\nStatus: install ok installed\nArchitecture: amd64\nSource: evil (1.0\nVersion: 2\n\n"
		"Package: gone\nStatus: deinstall ok config-files\nArchitecture: amd64\nSource: x\nVersion: 1\n\n"
		"Package: multi\nStatus: install ok installed\nArchitecture: i386\nSource: m\nVersion: 1\n\n"
		"Package: multi\nStatus: install ok installed\nArchitecture: amd64\nSource: m (0.9)\nVersion: 1\n";
	struct ms_pkg out[] = { asked("bash", ""),   asked("libssl3", "amd64"), asked("tzdata", ""),
				asked("same", ""),   asked("broken", ""),       asked("gone", ""),
				asked("multi", "amd64") };

	(void)state;
	ms_pkg_status_versions(text, strlen(text), out, sizeof(out) / sizeof(out[0]));
	assert_string_equal(out[0].arch, "amd64");
	assert_string_equal(out[0].src_name, "bash");
	assert_string_equal(out[0].src_version, "5.2.15-2");
	assert_string_equal(out[1].src_name, "openssl");
	assert_string_equal(out[1].src_version, "");
	assert_string_equal(out[2].arch, "all");
	assert_string_equal(out[2].src_name, "tzdata");
	assert_string_equal(out[3].src_name, "same-src");
	assert_string_equal(out[3].src_version, "");
	assert_string_equal(out[4].src_name, "evil");
	assert_string_equal(out[4].src_version, "");
	assert_string_equal(out[5].arch, "");
	assert_string_equal(out[5].src_name, "");
	assert_string_equal(out[6].arch, "amd64");
	assert_string_equal(out[6].src_version, "0.9");
}

/*
 * The search for "Package:" lines by their capital P: the word inside a
 * line (another field's name, a description, a continuation line) gives
 * no package its version, and the stanzas after it are still found; text
 * that starts inside a stanza's first word finds that stanza nowhere.
 */
static void test_package_only_at_line_start(void **state)
{
	static const char text[] =
		"Package: a\nStatus: install ok installed\nVersion: 1\nX-Package: b\n"
		"Description: see Package: c\n Package: b is another\n\n"
		"Package: c\nStatus: install ok installed\nVersion: 3\n\n"
		"Package: b\nStatus: install ok installed\nVersion: 2\n";
	struct ms_pkg out[] = { asked("b", ""), asked("c", ""), asked("a", ""), asked("b", "") };

	(void)state;
	ms_pkg_status_versions(text, strlen(text), out, sizeof(out) / sizeof(out[0]));
	assert_string_equal(out[0].version, "2");
	assert_string_equal(out[1].version, "3");
	assert_string_equal(out[2].version, "1");
	assert_string_equal(out[3].version, "2");
	out[0] = asked("b", "");
	ms_pkg_status_versions(text + 1, strlen(text) - 1, out, 1);
	assert_string_equal(out[0].version, "2");
	out[2] = asked("a", "");
	ms_pkg_status_versions(text + 1, strlen(text) - 1, &out[2], 1);
	assert_string_equal(out[2].version, "");
}

/* The first regular file (not a symlink) that dpkg lists for pkg, or NULL. */
static char *regular_file_of(const char *pkg)
{
	char cmd[256], line[4096], *found = NULL;
	struct stat st;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "dpkg-query -L %s 2>/dev/null", pkg);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (lstat(line, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1)
			found = strdup(line);
	}
	pclose(f);
	return found;
}

/*
 * This machine's database: the owner of one file of each package, looked
 * up as mapscope does (list files, then the status stanza), has dpkg's
 * own architecture and source package (dpkg-query ${source:Package},
 * ${source:Version}).  bash's list file is bash.list (no ":ARCH"), yet its
 * architecture is known; libssl3's source is openssl, libc6's glibc.
 */
static void test_real_dpkg(void **state)
{
	static const char *const pkgs[] = { "bash", "libssl3", "libc6", "coreutils", "dash", "tzdata" };
	enum { N = sizeof(pkgs) / sizeof(pkgs[0]) };
	char *paths[N] = { 0 }, *said[N] = { 0 };
	const char *cpaths[N];
	size_t lens[N], n = 0, other_source = 0, no_arch_list = 0, idx[N];
	struct ms_pkg out[N];
	struct ms_error err;
	struct stat st;

	(void)state;
	if (stat("/var/lib/dpkg/info", &st) != 0 || system("dpkg-query --version >/dev/null 2>&1") != 0) {
		print_message("no dpkg database or dpkg-query here: nothing to compare with\n");
		skip();
	}
	for (size_t i = 0; i < N; i++) {
		char cmd[256], list[128];

		snprintf(cmd, sizeof(cmd),
			 "dpkg-query -W -f '${Architecture}|${source:Package}|${source:Version}|${Version}' %s 2>/dev/null",
			 pkgs[i]);
		said[n] = tu_command_line(cmd);
		paths[n] = said[n] ? regular_file_of(pkgs[i]) : NULL;
		if (!said[n] || !paths[n]) {
			free(said[n]);
			free(paths[n]);
			continue;
		}
		snprintf(list, sizeof(list), "/var/lib/dpkg/info/%s.list", pkgs[i]);
		no_arch_list += stat(list, &st) == 0;
		cpaths[n] = paths[n];
		lens[n] = strlen(paths[n]);
		idx[n++] = i;
	}
	assert_true(n > 0);
	assert_int_equal(ms_pkgdb_lookup("/var/lib/dpkg", cpaths, lens, n, out, &err), 0);
	for (size_t k = 0; k < n; k++) {
		char want[512], got[512];
		char *f[4] = { said[k] }, *bar;

		for (int j = 1; j < 4 && f[j - 1] && (bar = strchr(f[j - 1], '|')); j++) {
			*bar = '\0';
			f[j] = bar + 1;
		}
		assert_non_null(f[3]);
		print_message("%s: %s -> %s %s source %s %s\n", pkgs[idx[k]], paths[k], out[k].name, out[k].arch,
			      out[k].src_name, out[k].src_version);
		assert_true(out[k].found);
		assert_string_equal(out[k].name, pkgs[idx[k]]);
		snprintf(want, sizeof(want), "%s|%s|%s", f[0], f[1], strcmp(f[2], f[3]) ? f[2] : "");
		snprintf(got, sizeof(got), "%s|%s|%s", out[k].arch, out[k].src_name, out[k].src_version);
		assert_string_equal(got, want);
		other_source += strcmp(out[k].src_name, out[k].name) != 0;
		free(said[k]);
		free(paths[k]);
	}
	/* The cases that matter were there: a list without ":ARCH", a source of another name. */
	assert_true(no_arch_list > 0);
	assert_true(other_source > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_as_whole),
		cmocka_unit_test(test_stanzas_as_whole),
		cmocka_unit_test(test_source_and_arch),
		cmocka_unit_test(test_package_only_at_line_start),
		cmocka_unit_test(test_real_dpkg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
