/*
 * The package answers on this machine: every file mapped by every process
 * the test can read (and by the test itself), one path per distinct
 * device and inode, is looked up the usual way (candidate lists first)
 * and by the full scan of every list (the seam full_scan of pkgdb.h).
 * Both must give the same package, architecture and version, or both
 * none.  It must have covered packaged files, libc.so.6 among them, so it
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

static struct ms_pkg *find(const struct mapped *m, bool full_scan)
{
	struct ms_pkgdb_opts opts = { .full_scan = full_scan };
	struct ms_pkg *out = calloc(m->n ? m->n : 1, sizeof(*out));
	struct ms_pkgdb *db;
	struct ms_error err;

	assert_non_null(out);
	assert_int_equal(ms_pkgdb_open(MS_PKGDB_DIR, &opts, &db, &err), 0);
	assert_int_equal(ms_pkgdb_find(db, (const char *const *)m->paths, m->lens, m->n, out, &err), 0);
	ms_pkgdb_close(db);
	return out;
}

static void test_candidates_as_full_scan(void **state)
{
	struct mapped *m = calloc(1, sizeof(*m));
	struct ms_pkg *usual, *full;
	size_t found = 0;
	bool libc = false;
	struct dirent *de;
	DIR *d = opendir("/proc");

	(void)state;
	assert_non_null(m);
	assert_non_null(d);
	collect(m, "self");
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			collect(m, de->d_name);
	closedir(d);
	usual = find(m, false);
	full = find(m, true);
	for (size_t i = 0; i < m->n; i++) {
		if (usual[i].found != full[i].found || strcmp(usual[i].name, full[i].name) ||
		    strcmp(usual[i].arch, full[i].arch) || strcmp(usual[i].version, full[i].version))
			fail_msg("%s: the usual lookup says %s:%s %s (%d), the full scan %s:%s %s (%d)", m->paths[i],
				 usual[i].name, usual[i].arch, usual[i].version, usual[i].found, full[i].name,
				 full[i].arch, full[i].version, full[i].found);
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
