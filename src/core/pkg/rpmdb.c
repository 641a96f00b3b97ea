/* rpmdb.c - rpm's database, checked, then asked through librpm: see rpmdb.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/saferead.h"
#include "pkg/pathtable.h"
#include "pkg/rpmdb.h"
#include "pkg/rpmlib.h"

/* Where rpm keeps its database, relative to the root, in the order looked at. */
static const char *const rpm_dirs[] = { "/usr/lib/sysimage/rpm", "/var/lib/rpm" };
/* The file each backend keeps (sqlite, ndb, bdb): one of them makes a database. */
static const char *const rpm_files[] = { "rpmdb.sqlite", "Packages.db", "Packages" };

struct ms_rpmdb {
	char *root;         /* resolved, no trailing slash but for "/" */
	size_t prefix;      /* what paths under root begin with: strlen(root), 0 for "/" */
	const char *dbpath; /* one of rpm_dirs */
	const char *soname;
	bool opened;        /* librpm was tried */
	struct ms_rpmlib *lib;
};

static int refuse(struct ms_error *err, const char *root, const char *what, const struct stat *st)
{
	char shown[PATH_MAX + 64];

	ms_escape(root, strlen(root), shown, sizeof(shown), MS_ESC_ASCII);
	return ms_error_set(err, MS_ERR_NOACCESS, EPERM,
			    "rpm: %s under %s is owned by uid %u, mode %04o: not root's alone, not read", what,
			    shown, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
}

static bool only_root(const struct stat *st)
{
	return st->st_uid == 0 && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/*
 * Walk rel (no leading slash) down from fd, one directory at a time, no
 * symlink followed.  0 with *dirfd (O_PATH) when every step is a
 * directory only root changes; MS_ERR_NOTSUP when a step is missing or
 * not a directory; MS_ERR_NOACCESS when someone else may change one.
 */
static int walk(int fd, const char *root, const char *rel, int *dirfd, struct ms_error *err)
{
	char step[64];
	struct stat st;
	int at = fd, next;

	*dirfd = -1;
	while (*rel) {
		size_t len = strcspn(rel, "/");

		memcpy(step, rel, len);
		step[len] = '\0';
		rel += len + (rel[len] == '/');
		next = openat(at, step, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (at != fd)
			close(at);
		if (next < 0)
			return MS_ERR_NOTSUP;
		if (fstat(next, &st) < 0 || !S_ISDIR(st.st_mode)) {
			close(next);
			return MS_ERR_NOTSUP;
		}
		if (!only_root(&st)) {
			close(next);
			return refuse(err, root, "a directory on the way to the database", &st);
		}
		at = next;
	}
	*dirfd = at;
	return 0;
}

static bool is_db_file(const char *name)
{
	for (size_t i = 0; i < sizeof(rpm_files) / sizeof(rpm_files[0]); i++)
		if (!strcmp(name, rpm_files[i]))
			return true;
	return false;
}

/*
 * Every entry of the database directory regular and root's alone: 0 when
 * a database file is among them, MS_ERR_NOTSUP when none is (Debian's
 * empty /var/lib/rpm), MS_ERR_NOACCESS or MS_ERR_LIMIT otherwise.
 */
static int check_entries(int dirfd, const char *root, struct ms_error *err)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool has_db = false;
	size_t entries = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return MS_ERR_NOTSUP;
	}
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++entries > MS_RPMDB_ENTRIES)
			rc = ms_error_set(err, MS_ERR_LIMIT, E2BIG, "rpm: more than %d entries in the database directory",
					  MS_RPMDB_ENTRIES);
		else if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = ms_error_set(err, MS_ERR_IO, errno, "rpm: the database directory changed while read");
		else if (!S_ISREG(st.st_mode) || !only_root(&st))
			rc = refuse(err, root, S_ISREG(st.st_mode) ? "a database file" : "a database entry that is not a file", &st);
		else
			has_db |= is_db_file(e->d_name);
	}
	closedir(d);
	return rc ? rc : has_db ? 0 : MS_ERR_NOTSUP;
}

/* The first of rpm_dirs that holds a database, checked: its index, or a negative code. */
static int locate(const char *root, struct ms_error *err)
{
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), dirfd, rc = MS_ERR_NOTSUP;
	struct stat st;

	if (rootfd < 0)
		return ms_error_set(err, MS_ERR_NOTSUP, errno, "rpm: the root cannot be opened");
	if (fstat(rootfd, &st) < 0)
		st = (struct stat){ .st_uid = (uid_t)-1 };
	if (!only_root(&st)) {
		rc = refuse(err, root, "the root", &st);
		close(rootfd);
		return rc;
	}
	for (size_t i = 0; i < sizeof(rpm_dirs) / sizeof(rpm_dirs[0]); i++) {
		rc = walk(rootfd, root, rpm_dirs[i] + 1, &dirfd, err);
		if (rc == 0) {
			rc = check_entries(dirfd, root, err);
			close(dirfd);
		}
		if (rc != MS_ERR_NOTSUP) {
			close(rootfd);
			return rc == 0 ? (int)i : rc;
		}
	}
	close(rootfd);
	return ms_error_set(err, MS_ERR_NOTSUP, ENOENT, "rpm: no database: not an rpm system");
}

int ms_rpmdb_open(const struct ms_rpmdb_opts *opts, struct ms_rpmdb **out, struct ms_error *err)
{
	const char *root = opts && opts->root ? opts->root : "/";
	struct ms_rpmdb *db;
	int at;

	*out = NULL;
	if (root[0] != '/')
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "rpm: the root must be an absolute path");
	db = calloc(1, sizeof(*db));
	if (!db)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "rpm: out of memory");
	/* Resolved once: the kernel names files by resolved paths, and librpm opens this one. */
	db->root = realpath(root, NULL);
	at = db->root ? locate(db->root, err)
		      : ms_error_set(err, errno == ENOMEM ? MS_ERR_NOMEM : MS_ERR_NOTSUP, errno,
				     "rpm: the root cannot be resolved");
	if (at < 0) {
		ms_rpmdb_close(db);
		return at;
	}
	db->prefix = strcmp(db->root, "/") ? strlen(db->root) : 0;
	db->dbpath = rpm_dirs[at];
	db->soname = opts ? opts->soname : NULL;
	*out = db;
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One path under the root, as rpm recorded it, then its merged-/usr spelling. */
static void ask(const struct ms_rpmdb *db, const char *path, size_t len, struct ms_pkg *out)
{
	char buf[PATH_MAX];
	size_t alias_len;
	char *alias;

	if (db->prefix) {
		if (len <= db->prefix || memcmp(path, db->root, db->prefix) || path[db->prefix] != '/')
			return;
		path += db->prefix;
		len -= db->prefix;
	}
	if (len == 0 || len >= sizeof(buf) || path[0] != '/' || memchr(path, '\0', len))
		return;
	memcpy(buf, path, len);
	buf[len] = '\0';
	if (ms_rpmlib_owner(db->lib, buf, out))
		return;
	alias = ms_pkg_alias_of(buf, len, &alias_len);
	if (alias)
		ms_rpmlib_owner(db->lib, alias, out);
	free(alias);
}

int ms_rpmdb_find(struct ms_rpmdb *db, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	long long deadline;
	size_t asked = 0;

	(void)err;
	for (size_t i = 0; i < n && !asked; i++)
		asked = !out[i].found;
	if (!asked)
		return 0;
	if (!db->opened) {
		db->opened = true;
		db->lib = ms_rpmlib_open(db->root, db->dbpath, db->soname);
	}
	if (!db->lib)
		return 0;
	deadline = now_ms() + MS_RPMDB_DEADLINE_MS;
	asked = 0;
	for (size_t i = 0; i < n && asked < MS_RPMDB_PATHS && now_ms() < deadline; i++)
		if (!out[i].found) {
			ask(db, paths[i], lens[i], &out[i]);
			asked++;
		}
	return 0;
}

void ms_rpmdb_close(struct ms_rpmdb *db)
{
	if (!db)
		return;
	ms_rpmlib_close(db->lib);
	free(db->root);
	free(db);
}
