/*
 * Python distributions as owners of files (pydist.h), on site directories
 * laid out by hand: TMP/lib/python3.11/site-packages with a
 * mypkg-1.2.3.dist-info (METADATA, RECORD) around a real extension module
 * (a copy of the system's libbz2) and a vendored library in mypkg.libs/
 * (a copy of libz.so.1), both loaded by a real python3 process.  Then the
 * hostile site directories of a user (owned by nobody when we are root):
 * a symlinked RECORD or dist-info, a FIFO RECORD, a sparse 1 GB RECORD, a
 * huge METADATA, a RECORD that claims files outside its site directory, a
 * dist-info served by a FUSE daemon that never answers a LOOKUP; and
 * egg-info distributions (installed-files.txt relative to the egg-info
 * directory, PKG-INFO or the directory's name), with the same attacks on
 * their list.
 * Every lookup of a hostile tree runs in a child with a deadline, so a
 * hang fails the test instead of stalling it.  And the RECORD,
 * installed-files.txt and METADATA parsers on bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/pkg/owner.h"
#include "core/pkg/pydist.h"
#include "core/pkg/pymeta.h"
#include "core/pkg/pyrecord.h"
#include "fuse_server.h"
#include "linechild.h"
#include "msrun.h"
#include "testutil.h"

#define NOBODY 65534
#define SITE "lib/python3.11/site-packages"
#define MAXP 8

/* ---- the parsers, on bytes ----------------------------------------------------------------- */

static void test_record_fields(void **state)
{
	static const char rec[] = "a/b.py,sha256=x,10\r\n"
				  "\"quoted, \"\"with\"\" comma.so\",sha256=y,1\n"
				  "\"multi\nline.so\",,\n"
				  ",,\n"
				  "c.so,\"hash,\nwith newline\",3\r"
				  "last.so";
	const char *want[] = { "a/b.py", "quoted, \"with\" comma.so", "multi\nline.so", "c.so", "last.so" };
	struct ms_pyrecord_iter it = { .text = rec, .len = sizeof(rec) - 1 };
	char buf[64];
	size_t len, n = 0;

	(void)state;
	while (ms_pyrecord_next(&it, buf, sizeof(buf), &len)) {
		assert_true(n < 5);
		assert_int_equal(len, strlen(want[n]));
		assert_string_equal(buf, want[n]);
		n++;
	}
	assert_int_equal(n, 5);
	/* A path that does not fit is skipped, not cut; a quote that never closes ends it. */
	it = (struct ms_pyrecord_iter){ .text = "toolongpath.so,,\nok.so,,\n\"open", .len = 30 };
	assert_true(ms_pyrecord_next(&it, buf, 8, &len));
	assert_string_equal(buf, "ok.so");
	assert_false(ms_pyrecord_next(&it, buf, 8, &len));
}

/* installed-files.txt: each line under the egg-info directory, absolute ones as they are. */
static void test_egg_lines(void **state)
{
	static const char list[] = "../foo/_x.so\r\nPKG-INFO\n\n/abs/path.so\n../toolongtoolongtoolongtoolong\nlast.so";
	const char *want[] = { "foo-1.2.egg-info/../foo/_x.so", "foo-1.2.egg-info/PKG-INFO", "/abs/path.so",
			       "foo-1.2.egg-info/last.so" };
	struct ms_pyrecord_iter it = { .text = list, .len = sizeof(list) - 1 };
	const char *site = "/v/lib/python3.11/site-packages";
	char buf[40];
	size_t len, n = 0;

	(void)state;
	while (ms_pyrecord_egg_next(&it, "foo-1.2.egg-info", buf, sizeof(buf), &len)) {
		assert_true(n < 4);
		assert_int_equal(len, strlen(want[n]));
		assert_string_equal(buf, want[n]);
		n++;
	}
	assert_int_equal(n, 4);
	it = (struct ms_pyrecord_iter){ .text = list, .len = sizeof(list) - 1 };
	assert_true(ms_pyrecord_egg_next(&it, "foo-1.2.egg-info", buf, sizeof(buf), &len));
	len = ms_pyrecord_site_relative(site, strlen(site), buf, len);
	assert_int_equal(len, strlen("foo/_x.so"));
	assert_memory_equal(buf, "foo/_x.so", len);
}

static size_t rel(const char *site, const char *p, char *buf)
{
	size_t len = strlen(p);

	memcpy(buf, p, len + 1);
	len = ms_pyrecord_site_relative(site, strlen(site), buf, len);
	if (len != SIZE_MAX)
		buf[len] = '\0';
	return len;
}

static void test_record_site_relative(void **state)
{
	const char *site = "/v/lib/python3.11/site-packages";
	char buf[256];

	(void)state;
	assert_int_not_equal(rel(site, "./mypkg//x/../_ext.so", buf), SIZE_MAX);
	assert_string_equal(buf, "mypkg/_ext.so");
	assert_int_not_equal(rel(site, "/v/lib/python3.11/site-packages/./a.libs/l.so", buf), SIZE_MAX);
	assert_string_equal(buf, "a.libs/l.so");
	/* Out of the site directory, by climbing or by an absolute path elsewhere. */
	assert_int_equal(rel(site, "../../../bin/tool", buf), SIZE_MAX);
	assert_int_equal(rel(site, "a/../../site-packages/x.so", buf), SIZE_MAX);
	assert_int_equal(rel(site, "/usr/lib/x86_64-linux-gnu/libc.so.6", buf), SIZE_MAX);
	assert_int_equal(rel(site, "/v/lib/python3.11/site-packages-evil/x.so", buf), SIZE_MAX);
	assert_int_equal(rel(site, "/v/lib/python3.11/site-packages/../x.so", buf), SIZE_MAX);
	assert_int_equal(rel(site, ".", buf), SIZE_MAX);
}

static void test_metadata_headers(void **state)
{
	static const char meta[] = "Metadata-Version: 2.1\r\nname:  My_Pkg \r\nSummary: s\n"
				   "Version:\t1.2.3\nName: second\n\nVersion: body\n";
	char name[16], version[16];

	(void)state;
	assert_int_equal(ms_pymeta_parse(meta, sizeof(meta) - 1, true, name, sizeof(name), version, sizeof(version)),
			 MS_PYMETA_NAME | MS_PYMETA_VERSION);
	assert_string_equal(name, "My_Pkg");
	assert_string_equal(version, "1.2.3");
	/* After the blank line is the description. */
	assert_int_equal(ms_pymeta_parse("Name: a\n\nVersion: 1\n", 20, true, name, sizeof(name), version,
					 sizeof(version)), MS_PYMETA_NAME);
	/* A line cut by the read's cap is not a value; a value too long for the buffer is none. */
	assert_int_equal(ms_pymeta_parse("Name: a\nVersion: 1.2", 20, false, name, sizeof(name), version,
					 sizeof(version)), MS_PYMETA_NAME);
	assert_int_equal(ms_pymeta_parse("Name: abcdefghijklmnopq\n", 24, true, name, sizeof(name), version,
					 sizeof(version)), 0);
	/* A folded Name is not taken. */
	assert_int_equal(ms_pymeta_parse("Name: a\n b\nVersion: 1\n", 22, true, name, sizeof(name), version,
					 sizeof(version)), MS_PYMETA_VERSION);
	/* A lone CR ends a line, as in Python's email parser (found by fuzz-pymeta). */
	assert_int_equal(ms_pymeta_parse("Version:-V\r:1 2.\rName: a\r\rName: b\n", 34, true, name, sizeof(name),
					 version, sizeof(version)), MS_PYMETA_NAME | MS_PYMETA_VERSION);
	assert_string_equal(version, "-V");
	assert_string_equal(name, "a");
	/* No newline in a value, from a directory's name either (found by fuzz-pymeta). */
	assert_int_equal(ms_pymeta_from_dirname("a\nb-1.dist-info", 15, name, sizeof(name), version, sizeof(version)),
			 MS_PYMETA_VERSION);
	assert_int_equal(ms_pymeta_from_dirname("zope.interface-5.4.0.dist-info", 30, name, sizeof(name), version,
						sizeof(version)), MS_PYMETA_NAME | MS_PYMETA_VERSION);
	assert_string_equal(name, "zope.interface");
	assert_string_equal(version, "5.4.0");
	assert_int_equal(ms_pymeta_from_dirname("nodash.dist-info", 16, name, sizeof(name), version, sizeof(version)), 0);
	/* An egg's version ends at the next dash: its Python version and platform follow. */
	assert_int_equal(ms_pymeta_from_dirname("foo-1.2-py3.11.egg-info", 23, name, sizeof(name), version,
						sizeof(version)), MS_PYMETA_NAME | MS_PYMETA_VERSION);
	assert_string_equal(name, "foo");
	assert_string_equal(version, "1.2");
	assert_int_equal(ms_pymeta_from_dirname("a-1.egg-info", 12, name, sizeof(name), version, sizeof(version)),
			 MS_PYMETA_NAME | MS_PYMETA_VERSION);
	assert_string_equal(version, "1");
	assert_int_equal(ms_pymeta_from_dirname("a-1.egg", 7, name, sizeof(name), version, sizeof(version)), 0);
}

/* ---- laying out site directories ----------------------------------------------------------- */

/* Format into buf (PATH_MAX bytes), which must hold it all. */
static const char *fill(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *fill(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && n < PATH_MAX);
	return buf;
}

/* dir/name, into buf. */
static const char *at(char *buf, const char *dir, const char *name)
{
	return fill(buf, "%s/%s", dir, name);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX], parent[PATH_MAX];

	at(path, dir, name);
	fill(parent, "%s", path);
	*strrchr(parent, '/') = '\0';
	assert_int_equal(tu_mkdirs(parent), 0);
	assert_int_equal(tu_spit(path, text), 0);
}

static void put_copy(const char *dir, const char *name, const char *src)
{
	char path[PATH_MAX];

	put(dir, name, "");
	assert_int_equal(tu_copy(src, at(path, dir, name)), 0);
}

/* A file site/name, its path into path. */
static void put_file(const char *site, const char *name, char *path)
{
	put(site, name, "x");
	at(path, site, name);
}

/* A distribution NAME-VERSION in site, whose RECORD is record. */
static void put_dist(const char *site, const char *name, const char *version, const char *record)
{
	char file[PATH_MAX], meta[PATH_MAX];

	fill(meta, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n\nA test.\n", name, version);
	fill(file, "%s-%s.dist-info/METADATA", name, version);
	put(site, file, meta);
	fill(file, "%s-%s.dist-info/RECORD", name, version);
	put(site, file, record);
}

/* The tree is a user's, as a venv is: every entry nobody's (when we may chown). */
static void give_to_nobody(const char *dir)
{
	char cmd[PATH_MAX + 64];

	if (geteuid() != 0)
		return;
	fill(cmd, "chown -hR %d:%d '%s'", NOBODY, NOBODY, dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A library of the system named soname (python3 links with each of those
 * asked for), else the one we built named fallback.  The system's are not
 * built with the sanitizers, so a python3 that is not may load them.
 */
static char *system_library(const char *soname, const char *fallback)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
					    "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], soname);
		if (access(path, R_OK) == 0)
			return strdup(path);
	}
	return tu_built(fallback);
}

/* ---- lookups with a deadline ---------------------------------------------------------------- */

struct answer {
	struct ms_pkg pkg[MAXP];
	struct ms_pydist_stats st;
	int rc;
};

struct lookup_args {
	bool owner;
	const char *const *paths;
	size_t n;
};

static void lookup_child(void *arg, void *out)
{
	const struct lookup_args *la = arg;
	struct answer *mine = out;
	struct ms_pydist *pd;
	size_t lens[MAXP];

	for (size_t i = 0; i < la->n; i++)
		lens[i] = strlen(la->paths[i]);
	if (la->owner) {
		mine->rc = ms_owner_lookup(la->paths, lens, la->n, mine->pkg, NULL);
	} else if ((mine->rc = ms_pydist_open(&pd, NULL)) == 0) {
		mine->rc = ms_pydist_find(pd, la->paths, lens, la->n, mine->pkg, NULL);
		ms_pydist_stats(pd, &mine->st);
		ms_pydist_close(pd);
	}
}

/*
 * The answers for paths, from the whole owner lookup (owner) or from the
 * Python distributions alone (with their stats), in a child that must end
 * by the usual deadline.
 */
static void lookup(bool owner, const char *const *paths, size_t n, struct answer *a)
{
	struct lookup_args la = { .owner = owner, .paths = paths, .n = n };

	assert_true(n <= MAXP);
	assert_int_equal(tu_child_answer(lookup_child, &la, a, sizeof(*a)), 0);
	assert_int_equal(a->rc, 0);
}

static void assert_python(const struct ms_pkg *p, const char *name, const char *version, bool vendored)
{
	assert_true(p->found);
	assert_int_equal(p->source, MS_PKG_SOURCE_PYTHON);
	assert_string_equal(p->name, name);
	assert_string_equal(p->version, version);
	assert_string_equal(p->arch, "");
	assert_int_equal(p->vendored, vendored);
}

/* ---- a real process ------------------------------------------------------------------------- */

struct fx {
	char *dir;
	char site[PATH_MAX];
	char ext[PATH_MAX], vendored[PATH_MAX], stray[PATH_MAX];
	char libc[PATH_MAX]; /* the libc the process maps, as the kernel names it */
	struct linechild py;
};

static int fx_teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	linechild_stop(&fx->py);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* The name of the first file mapping of pid whose path ends in suffix, into out. */
static bool mapped(pid_t pid, const char *suffix, char *out)
{
	char path[64], line[PATH_MAX + 256];
	size_t slen = strlen(suffix);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		size_t len;

		if (!name)
			continue;
		len = strcspn(name, "\n");
		name[len] = '\0';
		if (len >= slen && !strcmp(name + len - slen, suffix)) {
			fill(out, "%s", name);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static int fx_setup(void **state)
{
	static const char script[] = "import ctypes, sys\n"
				     "for p in sys.argv[1:]:\n"
				     "    ctypes.CDLL(p)\n"
				     "print('ready', flush=True)\n"
				     "sys.stdin.readline()\n";
	const char *py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	/* A copy of libbz2 as the extension, of libz as the vendored libcrypto, of liblzma as a stray file. */
	char *sym = system_library("libbz2.so.1.0", "libms-fixture-sym.so");
	char *lib = system_library("libz.so.1", "libstale-a.so");
	char *stale = system_library("liblzma.so.5", "libstale-b.so");
	char line[256], buf[PATH_MAX];
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	*state = fx;
	fx->dir = tu_tmpdir();
	assert_non_null(fx->dir);
	fill(fx->site, "%s/" SITE, fx->dir);
	/* The RECORD quotes one path, names one through "..", and claims libc and a script outside. */
	put_dist(fx->site, "mypkg", "1.2.3",
		 "mypkg/__init__.py,sha256=a,0\n"
		 "mypkg/_ext.so,sha256=b,100\n"
		 "\"mypkg/../mypkg.libs/libcrypto-3a1b2c3d.so.3\",sha256=c,200\n"
		 "../../../../../../../../usr/lib/x86_64-linux-gnu/libc.so.6,,\n"
		 "../../../bin/mytool,,\n"
		 "mypkg-1.2.3.dist-info/RECORD,,\n");
	put_dist(fx->site, "other", "0.1", "other/__init__.py,,\n");
	put(fx->site, "mypkg/__init__.py", "");
	put_copy(fx->site, "mypkg/_ext.so", sym);
	put_copy(fx->site, "mypkg.libs/libcrypto-3a1b2c3d.so.3", lib);
	put_copy(fx->site, "stray.so", stale);
	fill(fx->ext, "%s", at(buf, fx->site, "mypkg/_ext.so"));
	fill(fx->vendored, "%s", at(buf, fx->site, "mypkg.libs/libcrypto-3a1b2c3d.so.3"));
	fill(fx->stray, "%s", at(buf, fx->site, "stray.so"));
	assert_int_equal(linechild_start(&fx->py, py,
					 (const char *const[]){ py, "-c", script, fx->ext, fx->vendored, fx->stray, NULL },
					 NULL), 0);
	assert_int_equal(linechild_line(&fx->py, line, sizeof(line), tu_deadline()), 0);
	assert_string_equal(line, "ready");
	assert_true(mapped(fx->py.pid, "/libc.so.6", fx->libc));
	free(sym);
	free(lib);
	free(stale);
	return 0;
}

/* The field of the file row named name: its string, "(null)", or "(not mapped)". */
static const char *field_of(json_t *root, const char *name, const char *field)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(root, "files"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "name")), name))
			return json_is_string(json_object_get(f, field)) ?
				       json_string_value(json_object_get(f, field)) : "(null)";
	return "(not mapped)";
}

/* What `mapscope list --by-file` says, and what the owner lookup says of the kernel's names. */
static void test_process_files(void **state)
{
	struct fx *fx = *state;
	char pid[16];
	struct msrun_result r;
	struct answer a, sys;
	json_error_t jerr;
	json_t *root;
	const char *paths[] = { fx->ext, fx->vendored, fx->stray, fx->libc };

	snprintf(pid, sizeof(pid), "%d", (int)fx->py.pid);
	r = MSRUN(NULL, "list", pid, "--by-file", "-o", "NAME,PACKAGE,VERSION,PKGSRC,VENDORED", "-J");
	assert_int_equal(r.status, 0);
	root = json_loads(r.out, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(field_of(root, fx->ext, "package"), "mypkg");
	assert_string_equal(field_of(root, fx->ext, "version"), "1.2.3");
	assert_string_equal(field_of(root, fx->ext, "pkgsrc"), "python");
	assert_string_equal(field_of(root, fx->ext, "vendored"), "(null)");
	assert_string_equal(field_of(root, fx->vendored, "package"), "mypkg");
	assert_string_equal(field_of(root, fx->vendored, "vendored"), "mypkg");
	assert_string_equal(field_of(root, fx->stray, "package"), "not packaged");
	assert_string_equal(field_of(root, fx->stray, "pkgsrc"), "none");
	json_decref(root);
	msrun_free(&r);

	lookup(true, paths, 4, &a);
	assert_python(&a.pkg[0], "mypkg", "1.2.3", false);
	assert_python(&a.pkg[1], "mypkg", "1.2.3", true);
	assert_false(a.pkg[2].found);
	/* libc is dpkg's where dpkg knows it, and never claimed by a RECORD from outside. */
	assert_int_not_equal(a.pkg[3].source, MS_PKG_SOURCE_PYTHON);
	if (access("/var/lib/dpkg/info", F_OK) == 0) {
		assert_true(a.pkg[3].found);
		assert_int_equal(a.pkg[3].source, MS_PKG_SOURCE_DPKG);
	}
	/* The Python distributions alone: libc is not under a site directory, not even asked. */
	lookup(false, paths, 4, &sys);
	assert_false(sys.pkg[3].found);
	assert_int_equal(sys.st.sites, 1);
	/* mypkg is named like the files' folders: its RECORD alone answers them all but stray.so. */
	assert_int_equal(sys.st.records, 2);
	assert_int_equal(sys.st.metas, 1);
}

/* ---- hostile site directories, a user's ----------------------------------------------------- */

static int tmp_setup(void **state)
{
	return tu_tmpdir_setup(state);
}

static int tmp_teardown(void **state)
{
	return tu_tmpdir_teardown(state);
}

/* site under dir, with good-1.0 owning good.so, so each lookup shows it still answers. */
static void hostile_site(const char *dir, char *site, char *good)
{
	fill(site, "%s/" SITE, dir);
	put_dist(site, "good", "1.0", "good/good.so,,\n");
	put_file(site, "good/good.so", good);
}

static void test_symlinked_record_and_dist_info(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], victim[PATH_MAX], elsewhere[PATH_MAX], buf[PATH_MAX], target[PATH_MAX];
	char linked[PATH_MAX];
	struct answer a;

	hostile_site(dir, site, good);
	put_file(site, "victim/v.so", victim);
	/* A RECORD elsewhere that names the victim, reached by a symlinked RECORD and dist-info. */
	fill(elsewhere, "%s/elsewhere/victim-6.6.dist-info", dir);
	put(elsewhere, "RECORD", "victim/v.so,,\n");
	put(elsewhere, "METADATA", "Name: victim\nVersion: 6.6\n\n");
	put(site, "victim-6.6.dist-info/METADATA", "Name: victim\nVersion: 6.6\n\n");
	assert_int_equal(symlink(at(target, elsewhere, "RECORD"), at(buf, site, "victim-6.6.dist-info/RECORD")), 0);
	assert_int_equal(symlink(elsewhere, at(buf, site, "victim_b-6.6.dist-info")), 0);
	/* A site directory that is a symlink now (to this one, whose RECORD names good.so). */
	fill(linked, "%s/linked/lib/python3.11", dir);
	assert_int_equal(tu_mkdirs(linked), 0);
	assert_int_equal(symlink(site, at(buf, linked, "site-packages")), 0);
	fill(linked, "%s/linked/" SITE "/good/good.so", dir);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ victim, good, linked }, 3, &a);
	assert_false(a.pkg[0].found);
	assert_python(&a.pkg[1], "good", "1.0", false);
	assert_false(a.pkg[2].found);
	assert_int_equal(a.st.records, 1);
	assert_int_equal(a.st.sites, 1);
}

static void test_fifo_record(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], buf[PATH_MAX], victim[PATH_MAX], meta[PATH_MAX];
	struct answer a;

	hostile_site(dir, site, good);
	put(site, "fifo-1.0.dist-info/METADATA", "Name: fifo\nVersion: 1.0\n\n");
	assert_int_equal(mkfifo(at(buf, site, "fifo-1.0.dist-info/RECORD"), 0666), 0);
	put_file(site, "fifo/f.so", victim);
	/* A FIFO METADATA: the name and version come from the directory's name. */
	put(site, "fifometa-3.0.dist-info/RECORD", "fifometa/m.so,,\n");
	assert_int_equal(mkfifo(at(buf, site, "fifometa-3.0.dist-info/METADATA"), 0666), 0);
	put_file(site, "fifometa/m.so", meta);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ victim, meta, good }, 3, &a);
	assert_false(a.pkg[0].found);
	assert_python(&a.pkg[1], "fifometa", "3.0", false);
	assert_python(&a.pkg[2], "good", "1.0", false);
	assert_int_equal(a.st.metas, 1);
}

/* A sparse 1 GB RECORD is not read at all; a huge METADATA only its first bytes. */
static void test_huge_files(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], buf[PATH_MAX], big[PATH_MAX], huge[PATH_MAX];
	char *junk = malloc(MS_PYDIST_META_MAX + 1);
	struct answer a;
	int fd;

	assert_non_null(junk);
	hostile_site(dir, site, good);
	put(site, "big-1.0.dist-info/RECORD", "big/b.so,,\n");
	assert_int_equal(truncate(at(buf, site, "big-1.0.dist-info/RECORD"), 1L << 30), 0);
	put_file(site, "big/b.so", big);
	/* Headers past the cap: the name comes from the directory, never from what lies beyond. */
	memset(junk, 'j', MS_PYDIST_META_MAX);
	memcpy(junk, "X-Junk: ", 8);
	junk[MS_PYDIST_META_MAX - 1] = '\n';
	junk[MS_PYDIST_META_MAX] = '\0';
	put(site, "huge-2.0.dist-info/RECORD", "huge/h.so,,\n");
	put(site, "huge-2.0.dist-info/METADATA", junk);
	fd = open(at(buf, site, "huge-2.0.dist-info/METADATA"), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "Name: evil\nVersion: 6.6.6\n\n", 27), 27);
	assert_int_equal(ftruncate(fd, 1L << 30), 0);
	close(fd);
	put_file(site, "huge/h.so", huge);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ big, huge, good }, 3, &a);
	assert_false(a.pkg[0].found);
	assert_python(&a.pkg[1], "huge", "2.0", false);
	assert_python(&a.pkg[2], "good", "1.0", false);
	assert_true(a.st.record_bytes < 4096);
	assert_true(a.st.meta_bytes <= MS_PYDIST_META_MAX + 64);
	free(junk);
}

/* A RECORD claims nothing outside its own site directory: not libc, not another site's file. */
static void test_claims_outside(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], buf[PATH_MAX], other[PATH_MAX], theirs[PATH_MAX], libc[PATH_MAX];
	struct answer a;

	hostile_site(dir, site, good);
	fill(other, "%s/venv/" SITE, dir);
	put_file(other, "theirs.so", theirs);
	assert_true(mapped(getpid(), "/libc.so.6", libc));
	fill(buf, "../../../venv/" SITE "/theirs.so,,\n"
		 "../../../../../../../../../../../..%s,,\n%s,,\n%s,,\n", libc, libc, theirs);
	put_dist(site, "claimer", "1.0", buf);
	give_to_nobody(dir);
	lookup(true, (const char *const[]){ theirs, libc, good }, 3, &a);
	assert_false(a.pkg[0].found);
	assert_int_not_equal(a.pkg[1].source, MS_PKG_SOURCE_PYTHON);
	assert_python(&a.pkg[2], "good", "1.0", false);
}

/* An egg-info distribution: its own list and PKG-INFO, or its directory's name; nothing without a list. */
static void test_egg_info(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], foo[PATH_MAX], bar[PATH_MAX], single[PATH_MAX], nolist[PATH_MAX];
	char linked[PATH_MAX], fifo[PATH_MAX], big[PATH_MAX], libc[PATH_MAX], buf[PATH_MAX], target[PATH_MAX];
	struct answer a;

	hostile_site(dir, site, good);
	put(site, "foo-1.2.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: foo\nVersion: 1.2\n\n");
	assert_true(mapped(getpid(), "/libc.so.6", libc));
	fill(buf, "../foo/_x.so\n./../foo/__init__.py\nPKG-INFO\n../../../../../../../../../../..%s\n", libc);
	put(site, "foo-1.2.egg-info/installed-files.txt", buf);
	put_file(site, "foo/_x.so", foo);
	/* No PKG-INFO: the name and version of the directory, its Python version left off. */
	put(site, "bar-0.9-py3.11.egg-info/installed-files.txt", "../bar/_b.so\n");
	put_file(site, "bar/_b.so", bar);
	/* A single-file egg-info, and one without a list: they own nothing. */
	put(site, "single-1.0.egg-info", "Name: single\nVersion: 1.0\n\n");
	put_file(site, "single/s.so", single);
	put(site, "nolist-1.0.egg-info/PKG-INFO", "Name: nolist\nVersion: 1.0\n\n");
	put_file(site, "nolist/n.so", nolist);
	/* A symlinked list, a FIFO list, a sparse 1 GB list. */
	put(dir, "elsewhere/installed-files.txt", "../linked/l.so\n");
	put(site, "linked-1.0.egg-info/PKG-INFO", "Name: linked\nVersion: 1.0\n\n");
	assert_int_equal(symlink(at(target, dir, "elsewhere/installed-files.txt"),
				 at(buf, site, "linked-1.0.egg-info/installed-files.txt")), 0);
	put_file(site, "linked/l.so", linked);
	put(site, "fifo-1.0.egg-info/PKG-INFO", "Name: fifo\nVersion: 1.0\n\n");
	assert_int_equal(mkfifo(at(buf, site, "fifo-1.0.egg-info/installed-files.txt"), 0666), 0);
	put_file(site, "fifo/f.so", fifo);
	put(site, "big-1.0.egg-info/installed-files.txt", "../big/b.so\n");
	assert_int_equal(truncate(at(buf, site, "big-1.0.egg-info/installed-files.txt"), 1L << 30), 0);
	put_file(site, "big/b.so", big);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ foo, bar, single, nolist, linked, fifo, big, good }, 8, &a);
	assert_python(&a.pkg[0], "foo", "1.2", false);
	assert_python(&a.pkg[1], "bar", "0.9", false);
	for (size_t i = 2; i < 7; i++)
		if (a.pkg[i].found)
			fail_msg("path %zu owned by %s", i, a.pkg[i].name);
	assert_python(&a.pkg[7], "good", "1.0", false);
	/* The lists read: good's RECORD, foo's, bar's; never the FIFO, the symlink or the big one. */
	assert_int_equal(a.st.records, 3);
	assert_true(a.st.record_bytes < 4096);
	/* A list claims nothing outside its site directory: libc stays the system's. */
	lookup(true, (const char *const[]){ libc, foo }, 2, &a);
	assert_int_not_equal(a.pkg[0].source, MS_PKG_SOURCE_PYTHON);
	assert_python(&a.pkg[1], "foo", "1.2", false);
}

/* A file in a NAME.libs folder that no RECORD names is no one's. */
static void test_unlisted_libs_folder(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], planted[PATH_MAX];
	struct answer a;

	hostile_site(dir, site, good);
	put_file(site, "good.libs/libplanted-12345678.so", planted);
	give_to_nobody(dir);
	lookup(false, (const char *const[]){ planted, good }, 2, &a);
	assert_false(a.pkg[0].found);
	assert_python(&a.pkg[1], "good", "1.0", false);
}

/*
 * A dist-info directory served by a user's FUSE daemon that answers no
 * LOOKUP, holding a file a process maps: the walk refuses the mount, so
 * nothing waits on the daemon, the name is not proven a path to the file
 * (nameproof.h), and no RECORD is looked for: the PACKAGE cell is empty,
 * never a package.
 */
static void test_fuse_site(void **state)
{
	const char *dir = *state;
	char site[PATH_MAX], good[PATH_MAX], pid[16], name[PATH_MAX], fused[PATH_MAX];
	struct fuse_server server = { 0 };
	const char *why = NULL;
	pid_t mapper = 0;
	char *lib = tu_built("libstale-a.so"), *out, *line;
	int status = -1;

	hostile_site(dir, site, good);
	at(fused, site, "fused-1.0.dist-info");
	assert_int_equal(tu_mkdirs(fused), 0);
	if (fuse_server_start_over(&server, lib, fused, &why) < 0) {
		free(lib);
		print_message("skipped: %s\n", why);
		skip();
	}
	free(lib);
	assert_int_equal(fuse_server_map_in_child(&server, &mapper, NULL), 0);
	server.modes->hang_lookups = 1;
	snprintf(pid, sizeof(pid), "%d", (int)mapper);
	out = fuse_server_run(&server, MSRUN_ARGS("list", pid, "--by-file", "-o", "PACKAGE,NAME", "-r", "-n"),
			      &status, &why);
	fuse_server_stop_mapped(&server, &mapper);
	if (why)
		fail_msg("%s", why);
	assert_non_null(out);
	assert_int_equal(status, 0);
	at(name, fused, FUSE_SERVER_NAME);
	line = strstr(out, name);
	assert_non_null(line);
	/* -r: an empty PACKAGE cell, then the name, at the start of a line. */
	assert_true(line - out >= 1 && line[-1] == ' ' && (line - out == 1 || line[-2] == '\n'));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_fields),
		cmocka_unit_test(test_record_site_relative),
		cmocka_unit_test(test_metadata_headers),
		cmocka_unit_test(test_egg_lines),
		cmocka_unit_test_setup_teardown(test_process_files, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_record_and_dist_info, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_record, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_huge_files, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_claims_outside, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_unlisted_libs_folder, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_egg_info, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_fuse_site, tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
