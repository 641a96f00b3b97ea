/*
 * The package answers on this machine: every file mapped by every process
 * the test can read (and by the test itself), one path per distinct
 * device and inode, is looked up the usual way (candidate lists first)
 * and by the full scan of every list (the seam full_scan of pkgdb.h).
 * Both must give the same package, architecture and version, or both
 * none.  So must the lookup with the negative index of the lists
 * (pkgindex.h), built by a first lookup in a directory of root's made
 * here (never under /var/cache) and used by a second; not being root, it
 * says so and compares the other two only.  Besides the mapped files,
 * the last line of every list that names a regular file is asked too:
 * some of those are in lists their names do not suggest, and the index
 * must send them to the full scan (the test checks the candidates alone
 * miss one, so the index is put to work).  It must have covered packaged files, libc.so.6 among them, so it
 * cannot pass on nothing.  Without dpkg's database it skips and says so.
 */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "pkg/pkgdb.h"
#include "testutil.h"

#define MAX_PATHS 20000

struct mapped {
	char *paths[MAX_PATHS];
	size_t lens[MAX_PATHS];
	unsigned long long dev[MAX_PATHS], ino[MAX_PATHS];
	size_t n;
};

static bool seen(const struct mapped *m, unsigned long long dev, unsigned long long ino)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->dev[i] == dev && m->ino[i] == ino)
			return true;
	return false;
}

/* The file-backed mappings of /proc/PID/maps: "start-end perms offset MAJ:MIN inode path". */
static void collect(struct mapped *m, const char *pid)
{
	char path[64], line[8192];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (m->n < MAX_PATHS && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino, dev;
		int at = 0;
		char *name;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &ino, &at) < 3 || !at || line[at] != '/')
			continue;
		name = line + at;
		name[strcspn(name, "\n")] = '\0';
		dev = (unsigned long long)maj << 32 | min;
		if (!ino || seen(m, dev, ino))
			continue;
		m->paths[m->n] = strdup(name);
		assert_non_null(m->paths[m->n]);
		m->lens[m->n] = strlen(name);
		/* "(deleted)" is no part of the path dpkg lists. */
		if (m->lens[m->n] > 10 && !strcmp(name + m->lens[m->n] - 10, " (deleted)"))
			m->lens[m->n] -= 10;
		m->dev[m->n] = dev;
		m->ino[m->n++] = ino;
	}
	fclose(f);
}

/* The last line of each list of dpkg's, when it names a regular file. */
static void add_listed(struct mapped *m)
{
	DIR *d = opendir(MS_PKGDB_DIR "/info");
	struct dirent *de;

	assert_non_null(d);
	while (m->n < MAX_PATHS && (de = readdir(d))) {
		char path[4096], line[4096], last[4096] = "";
		size_t len = strlen(de->d_name);
		struct stat st;
		FILE *f;

		if (len < 6 || strcmp(de->d_name + len - 5, ".list"))
			continue;
		snprintf(path, sizeof(path), "%s/info/%s", MS_PKGDB_DIR, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (line[0] == '/')
				memcpy(last, line, sizeof(last));
		fclose(f);
		last[strcspn(last, "\n")] = '\0';
		if (!last[0] || lstat(last, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		m->paths[m->n] = strdup(last);
		assert_non_null(m->paths[m->n]);
		m->lens[m->n++] = strlen(last);
	}
	closedir(d);
}

static struct ms_pkg *find_with(const struct mapped *m, struct ms_pkgdb_opts opts)
{
	struct ms_pkg *out = calloc(m->n ? m->n : 1, sizeof(*out));
	struct ms_pkgdb *db;
	struct ms_error err;

	assert_non_null(out);
	assert_int_equal(ms_pkgdb_open(MS_PKGDB_DIR, &opts, &db, &err), 0);
	assert_int_equal(ms_pkgdb_find(db, (const char *const *)m->paths, m->lens, m->n, out, &err), 0);
	ms_pkgdb_close(db);
	return out;
}

static struct ms_pkg *find(const struct mapped *m, bool full_scan, const char *index)
{
	return find_with(m, (struct ms_pkgdb_opts){ .full_scan = full_scan, .index_path = index });
}

static void expect_equal(const struct mapped *m, const char *how, const struct ms_pkg *usual,
			 const struct ms_pkg *full)
{
	for (size_t i = 0; i < m->n; i++)
		if (usual[i].found != full[i].found || strcmp(usual[i].name, full[i].name) ||
		    strcmp(usual[i].arch, full[i].arch) || strcmp(usual[i].version, full[i].version))
			fail_msg("%s: %s says %s:%s %s (%d), the full scan %s:%s %s (%d)", m->paths[i], how,
				 usual[i].name, usual[i].arch, usual[i].version, usual[i].found, full[i].name,
				 full[i].arch, full[i].version, full[i].found);
}

/* Built by the first lookup, used by the second: both answer as the full scan. */
static void expect_index_equal(const struct mapped *m, const struct ms_pkg *full)
{
	char *dir = tu_root_tmpdir(), *index;
	struct ms_pkg *building, *indexed;
	struct stat st;

	if (!dir) {
		print_message("not root, or the current directory is not root's alone: the index is not compared\n");
		return;
	}
	index = tu_join(dir, "dpkg-paths");
	building = find(m, false, index);
	assert_int_equal(lstat(index, &st), 0);
	indexed = find(m, false, index);
	expect_equal(m, "the lookup building the index", building, full);
	expect_equal(m, "the lookup with the index", indexed, full);
	free(building), free(indexed), free(index);
	tu_rmtree(dir);
	free(dir);
}

static void test_candidates_as_full_scan(void **state)
{
	struct mapped *m = calloc(1, sizeof(*m));
	struct ms_pkg *usual, *full, *only;
	size_t found = 0, missed = 0;
	bool libc = false;
	struct dirent *de;
	DIR *d = opendir("/proc");

	(void)state;
	assert_non_null(m);
	assert_non_null(d);
	/* First, so that processes mapping many files leave room for them. */
	add_listed(m);
	collect(m, "self");
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			collect(m, de->d_name);
	closedir(d);
	usual = find(m, false, NULL);
	full = find(m, true, NULL);
	only = find_with(m, (struct ms_pkgdb_opts){ .no_full_scan = true });
	for (size_t i = 0; i < m->n; i++)
		missed += full[i].found && !only[i].found;
	print_message("%zu packaged files the candidates alone miss\n", missed);
	assert_true(missed > 0);
	free(only);
	expect_equal(m, "the usual lookup", usual, full);
	expect_index_equal(m, full);
	for (size_t i = 0; i < m->n; i++) {
		found += full[i].found;
		if (full[i].found && m->lens[i] > 10 && !memcmp(m->paths[i] + m->lens[i] - 10, "/libc.so.6", 10))
			libc = true;
	}
	print_message("%zu mapped files, %zu packaged\n", m->n, found);
	assert_true(found >= 5);
	assert_true(libc);
	for (size_t i = 0; i < m->n; i++)
		free(m->paths[i]);
	free(usual);
	free(full);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidates_as_full_scan),
	};
	struct stat st;

	/* 77: the test harness reports a skip, with the reason. */
	if (stat(MS_PKGDB_DIR "/info", &st) < 0) {
		printf("test_pkgdb_real: SKIP: no dpkg database at " MS_PKGDB_DIR "\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
