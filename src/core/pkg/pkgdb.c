#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/grow.h"
#include "pkg/pkgdb.h"
#include "pkg/candidates.h"
#include "pkg/diversions.h"
#include "pkg/listlines.h"
#include "pkg/pathtable.h"
#include "pkg/pkgindex.h"
#include "pkg/pkg_status.h"
#include "pkg/status_index.h"
#include "base/saferead.h"

struct list_file {
	char *name;        /* the entry, PACKAGE[:ARCH].list */
	char *text;        /* read ahead into the arena; NULL if not */
	size_t len;
	uint32_t *lengths; /* in the arena: each line's, so the scan finds no newline */
	size_t nlines;
	bool deferred;     /* claimed by the reader past its budget: read it later */
	bool scanned;      /* by the caller, as a candidate: not again */
};

/*
 * The reader's memory: one reservation filled in order, never moved, so
 * nothing is allocated or copied per file, and asked for with huge pages,
 * so filling it faults a few times instead of once per 4 KiB.
 */
struct arena {
	char *map;
	size_t map_size;
	char *base;
	size_t size;
	size_t used;
};

struct ms_pkgdb {
	char *dir;
	DIR *d;
	bool direct;            /* entries read directly (saferead.h) */
	bool reverse_readdir;   /* opts: for tests */
	bool full_scan;         /* opts: for tests and benches */
	bool no_full_scan;
	char *index_path;       /* opts: the negative index (pkgindex.h), or NULL */
	struct ms_pkg_index_pins pins; /* the database at open, for the index */
	bool pinned;
	bool settled;           /* pins taken settled: an index may be written from them */
	struct ms_pkg_index index; /* open when sound and pinned to the database */
	struct ms_pkg_index_build build; /* the hashes of a full scan that will write the index */
	bool building;
	size_t lists_read;      /* atomic: list files read, by either thread */
	char *index_names;      /* the index's, that files[].name point into; NULL: each name is strdup'd */
	struct list_file *files; /* sorted by name: the first that lists a path owns it */
	size_t nfiles;
	bool nomem;
	bool dir_listed;        /* readdir ran (for tests) */
	bool begun;             /* the reader was started, or the caller searched */
	/* The reader thread, when there is one. */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool listed;            /* under lock: files and nfiles are final */
	size_t next;            /* atomic: the next file to claim, by either thread */
	int stop;               /* atomic: claim no more */
	size_t budget;          /* what the reader may keep */
	struct arena arena;     /* the reader's, until it is joined */
	char *status;           /* read ahead, or NULL */
	size_t status_len;
	int status_claimed;     /* atomic */
};

static bool is_list(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".list") && name[0] != '.';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct list_file *)a)->name, ((const struct list_file *)b)->name);
}

/*
 * The names of the list files, at most MS_PKGDB_LISTS, sorted: the owner
 * rule and the candidates' ranges never depend on readdir order.
 */
static void list_names(struct ms_pkgdb *db)
{
	size_t cap = 0;
	struct dirent *de;

	db->dir_listed = true;
	while (db->nfiles < MS_PKGDB_LISTS && (de = readdir(db->d))) {
		if (!is_list(de->d_name))
			continue;
		if (ms_grow((void **)&db->files, &cap, db->nfiles, sizeof(*db->files), 256) < 0) {
			db->nomem = true;
			return;
		}
		memset(&db->files[db->nfiles], 0, sizeof(db->files[db->nfiles]));
		db->files[db->nfiles].name = strdup(de->d_name);
		if (!db->files[db->nfiles].name) {
			db->nomem = true;
			return;
		}
		db->nfiles++;
	}
	/* The test seam: readdir's order turned round before the sort. */
	for (size_t i = 0; db->reverse_readdir && i < db->nfiles / 2; i++) {
		struct list_file f = db->files[i];

		db->files[i] = db->files[db->nfiles - 1 - i];
		db->files[db->nfiles - 1 - i] = f;
	}
	if (db->nfiles)
		qsort(db->files, db->nfiles, sizeof(*db->files), by_name);
}

/*
 * The names from a sound index, pinned to the directory as it is (no list
 * added, removed or renamed since: pkgindex.h), instead of a readdir,
 * which is most of a lookup's cost.  false: list the directory.
 */
static bool names_from_index(struct ms_pkgdb *db)
{
	size_t n;
	char *at;

	if (!db->index.open || db->reverse_readdir || ms_pkg_index_names(&db->index, &db->index_names, &n) < 0)
		return false;
	db->files = n <= MS_PKGDB_LISTS ? calloc(n, sizeof(*db->files)) : NULL;
	if (!db->files) {
		free(db->index_names);
		db->index_names = NULL;
		return false;
	}
	at = db->index_names;
	for (size_t i = 0; i < n; i++, at += strlen(at) + 1)
		db->files[i].name = at;
	db->nfiles = n;
	return true;
}

/*
 * dpkg's info directory is root's: its entries are read directly
 * (saferead.h).  Should it be writable by others, every file goes the
 * careful way, through O_PATH and a reopen.  *buf is reused when direct.
 */
static int read_list(struct ms_pkgdb *db, const char *name, char **buf, size_t *cap, size_t *len)
{
	struct ms_error ignored;
	char path[4096];
	char *text;

	__atomic_fetch_add(&db->lists_read, 1, __ATOMIC_RELAXED);
	if (db->direct)
		return ms_read_regular_entry(dirfd(db->d), name, MS_PKGDB_LIST_MAX, buf, cap, len, &ignored);
	if (snprintf(path, sizeof(path), "%s/info/%s", db->dir, name) >= (int)sizeof(path) ||
	    ms_read_regular(path, MS_PKGDB_LIST_MAX, &text, len, &ignored) < 0)
		return -1;
	free(*buf);
	*buf = text;
	*cap = *len;
	return 0;
}

static int read_status(const struct ms_pkgdb *db, char **text, size_t *len)
{
	struct ms_error ignored;
	char path[4096];

	snprintf(path, sizeof(path), "%s/status", db->dir);
	return ms_read_regular(path, MS_PKGDB_STATUS_MAX, text, len, &ignored);
}

/* The next file nobody has claimed; the reader takes none once told to stop. */
static size_t claim(struct ms_pkgdb *db, bool by_reader)
{
	if (by_reader && __atomic_load_n(&db->stop, __ATOMIC_ACQUIRE))
		return SIZE_MAX;
	return __atomic_fetch_add(&db->next, 1, __ATOMIC_ACQ_REL);
}

#define HUGE_PAGE (2u << 20)

static int arena_init(struct arena *a, size_t size)
{
	a->map_size = size + HUGE_PAGE;
	a->map = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		      -1, 0);
	if (a->map == MAP_FAILED) {
		a->map = NULL;
		return -1;
	}
	a->base = (char *)(((uintptr_t)a->map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	a->size = size;
	a->used = 0;
	/* Only a hint: without transparent huge pages it is filled a page at a time. */
	(void)madvise(a->base, size, MADV_HUGEPAGE);
	return 0;
}

static void arena_free(struct arena *a)
{
	if (a->map)
		munmap(a->map, a->map_size);
	a->map = NULL;
}

/*
 * Read list f into the arena, at its end.  The arena always has room for
 * the largest list (MS_PKGDB_LIST_MAX) and its terminating NUL, so the
 * direct read never grows the buffer it is given (saferead.h) and the text
 * stays where it was put.
 */
static int read_into_arena(struct ms_pkgdb *db, struct list_file *f)
{
	struct arena *a = &db->arena;
	char *at = a->base + a->used, *text = db->direct ? at : NULL;
	size_t cap = db->direct ? a->size - a->used - 1 : 0;

	if (read_list(db, f->name, &text, &cap, &f->len) < 0) {
		if (!db->direct)
			free(text);
		return -1;
	}
	/* The careful way reads into a buffer of its own. */
	if (!db->direct) {
		memcpy(at, text, f->len + 1);
		free(text);
	}
	f->text = at;
	a->used += f->len + 1;
	return 0;
}

/*
 * Each line's length, after the text.  The arena has room for the largest
 * list and as many lengths as it has bytes, whatever was read before.
 */
static void measure_lines(struct arena *a, struct list_file *f)
{
	size_t off = (a->used + 3) & ~(size_t)3;

	f->lengths = (uint32_t *)(void *)(a->base + off);
	f->nlines = ms_pkg_split_lines(f->text, f->len, f->lengths, f->len + 1);
	a->used = off + f->nlines * sizeof(*f->lengths);
}

/*
 * The reader: lists the files, then reads them into its arena while the
 * caller does its own work, until none is left, it is told to stop, or it
 * holds db->budget bytes.  It reads, never decides: the caller scans.
 */
static void *reader(void *arg)
{
	struct ms_pkgdb *db = arg;
	size_t i;

	list_names(db);
	pthread_mutex_lock(&db->lock);
	db->listed = true;
	pthread_cond_broadcast(&db->cond);
	pthread_mutex_unlock(&db->lock);
	while ((i = claim(db, true)) < db->nfiles) {
		struct list_file *f = &db->files[i];

		/* Over budget: the caller reads this one and the rest itself. */
		if (db->arena.used >= db->budget) {
			f->deferred = true;
			return NULL;
		}
		if (read_into_arena(db, f) == 0)
			measure_lines(&db->arena, f);
	}
	if (!__atomic_load_n(&db->stop, __ATOMIC_ACQUIRE) &&
	    !__atomic_exchange_n(&db->status_claimed, 1, __ATOMIC_ACQ_REL) &&
	    read_status(db, &db->status, &db->status_len) < 0)
		db->status = NULL;
	return NULL;
}

/*
 * The database as it is now, pinned before any list is read (a change
 * while they are read then invalidates the index written after), and the
 * index when it is sound and pinned to it.  Memory short: no index.
 */
static void open_index(struct ms_pkgdb *db, const char *path)
{
	struct timespec before;

	if (!path || !(db->index_path = strdup(path)))
		return;
	db->settled = clock_gettime(CLOCK_REALTIME_COARSE, &before) == 0;
	db->pinned = ms_pkg_index_pins_take(dirfd(db->d), db->dir, &db->pins) == 0;
	db->settled = db->settled && db->pinned && ms_pkg_index_pins_settled(&db->pins, &before);
	if (db->pinned)
		(void)ms_pkg_index_open(path, &db->pins, &db->index);
}

int ms_pkgdb_open(const char *dir, const struct ms_pkgdb_opts *opts, struct ms_pkgdb **out,
		  struct ms_error *err)
{
	struct ms_pkgdb *db = calloc(1, sizeof(*db));
	char path[4096];

	*out = NULL;
	if (!db || !(db->dir = strdup(dir))) {
		free(db);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	snprintf(path, sizeof(path), "%s/info", dir);
	db->d = opendir(path);
	if (!db->d) {
		free(db->dir);
		free(db);
		return ms_error_set(err, MS_ERR_NOTSUP, ENOENT, "%s/info: not a dpkg system", dir);
	}
	db->direct = ms_dir_only_root_changes(dirfd(db->d));
	db->reverse_readdir = opts && opts->reverse_readdir;
	db->full_scan = opts && opts->full_scan;
	db->no_full_scan = opts && opts->no_full_scan;
	db->budget = opts && opts->read_ahead_max ? opts->read_ahead_max : MS_PKGDB_READ_AHEAD_MAX;
	open_index(db, opts ? opts->index_path : NULL);
	*out = db;
	if (opts && opts->read_ahead)
		ms_pkgdb_read_ahead(db);
	return 0;
}

void ms_pkgdb_read_ahead(struct ms_pkgdb *db)
{
	sigset_t all, old;

	/* With an index, a full scan is rare: no list is read ahead. */
	if (!db || db->begun || db->index.open)
		return;
	db->begun = true;
	/* Room for the budget, then for the largest list and its line lengths. */
	if (arena_init(&db->arena, db->budget + 5 * ((size_t)MS_PKGDB_LIST_MAX + 8)) < 0)
		return;
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->cond, NULL);
	/* Signals are the caller's to take: the reader blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	db->threaded = pthread_create(&db->thread, NULL, reader, db) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!db->threaded) {
		pthread_cond_destroy(&db->cond);
		pthread_mutex_destroy(&db->lock);
		arena_free(&db->arena);
	}
}

static void join_reader(struct ms_pkgdb *db)
{
	if (!db->threaded)
		return;
	__atomic_store_n(&db->stop, 1, __ATOMIC_RELEASE);
	pthread_join(db->thread, NULL);
	pthread_cond_destroy(&db->cond);
	pthread_mutex_destroy(&db->lock);
	db->threaded = false;
}

void ms_pkgdb_close(struct ms_pkgdb *db)
{
	if (!db)
		return;
	join_reader(db);
	for (size_t i = 0; !db->index_names && i < db->nfiles; i++)
		free(db->files[i].name);
	free(db->index_names);
	arena_free(&db->arena);
	ms_pkg_index_close(&db->index);
	ms_pkg_index_build_free(&db->build);
	free(db->index_path);
	free(db->files);
	free(db->status);
	closedir(db->d);
	free(db->dir);
	free(db);
}

/* The caller's buffers for the lists it reads itself. */
struct scanner {
	char *buf;
	size_t cap;
	uint32_t *lengths;
	size_t lcap;
};

/* Read and scan list i (index into db->files) now, unless done. */
static void scan_one(struct ms_pkgdb *db, struct ms_pkg_table *t, struct scanner *sc, size_t i, struct ms_pkg *out,
		     size_t *owner)
{
	struct list_file *f = &db->files[i];
	size_t len, n;

	if (f->scanned)
		return;
	f->scanned = true;
	if (read_list(db, f->name, &sc->buf, &sc->cap, &len) < 0) {
		db->build.failed = true;
		return;
	}
	n = ms_pkg_table_split_scan(t, sc->buf, len, &sc->lengths, &sc->lcap, f->name, i, out, owner);
	if (n == SIZE_MAX)
		db->build.failed = true;
	else if (db->building)
		ms_pkg_index_add(&db->build, sc->buf, sc->lengths, n);
}

/* The file names, listed by the reader or here; the database is then searched. */
static void ensure_listed(struct ms_pkgdb *db)
{
	if (db->begun && !db->threaded)
		return;
	db->begun = true;
	if (db->threaded) {
		pthread_mutex_lock(&db->lock);
		while (!db->listed)
			pthread_cond_wait(&db->cond, &db->lock);
		pthread_mutex_unlock(&db->lock);
	} else if (!names_from_index(db)) {
		list_names(db);
	}
}

/* The first list (sorted) whose name starts with the len bytes of s. */
static size_t first_with(const struct ms_pkgdb *db, const char *s, size_t len)
{
	size_t lo = 0, hi = db->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(db->files[mid].name, s, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool starts_with(const char *name, const char *s, size_t len)
{
	return !strncmp(name, s, len);
}

/*
 * The lists the names of the wanted paths suggest (candidates.h); a
 * prefix that more than MS_PKG_CANDIDATES_MAX lists share says too little
 * and is passed over.  The lists of the packages the prefixes name
 * exactly (every architecture's) go first, and the others a prefix
 * begins (-dev and -dbg packages, often the largest) only when the path
 * is not found there: a regular file is in one package's lists alone
 * (pkgdb.h), so the owner is the same.
 */
static void scan_candidates(struct ms_pkgdb *db, struct ms_pkg_table *t, struct scanner *sc, const char *const *keys,
			    const size_t *klens, size_t n, struct ms_pkg *out, size_t *owner)
{
	char prefix[MS_PKG_PREFIXES][MS_PKG_PREFIX_MAX];

	for (size_t i = 0; i < n && t->left; i++) {
		size_t np;

		if (!keys[i] || out[i].found)
			continue;
		np = ms_pkg_prefixes(keys[i], klens[i], prefix);
		for (int exact = 1; exact >= 0 && !out[i].found; exact--)
			for (size_t k = 0; k < np && !out[i].found; k++) {
				size_t len = strlen(prefix[k]), lo = first_with(db, prefix[k], len), hi = lo;

				while (hi < db->nfiles && hi - lo <= MS_PKG_CANDIDATES_MAX &&
				       starts_with(db->files[hi].name, prefix[k], len))
					hi++;
				for (size_t f = lo; hi - lo <= MS_PKG_CANDIDATES_MAX && f < hi; f++)
					if ((ms_pkg_name_len(db->files[f].name) == len) == exact)
						scan_one(db, t, sc, f, out, owner);
			}
	}
}

/*
 * Claim and scan files until none is left or every path is found (every
 * file when building the index); then stop the reader and scan what it
 * read.  Claims go in name order, so every file left unclaimed comes
 * after every file scanned, and stopping early never misses an earlier
 * owner.
 */
static void scan_lists(struct ms_pkgdb *db, struct ms_pkg_table *t, struct scanner *sc, struct ms_pkg *out, size_t *owner)
{
	size_t i;

	while ((t->left || db->building) && (i = claim(db, false)) < db->nfiles)
		scan_one(db, t, sc, i, out, owner);
	join_reader(db);
	for (i = 0; i < db->nfiles; i++) {
		struct list_file *f = &db->files[i];

		if (f->text && !f->scanned) {
			ms_pkg_table_scan(t, f->text, f->lengths, f->nlines, f->name, i, out, owner);
			if (db->building)
				ms_pkg_index_add(&db->build, f->text, f->lengths, f->nlines);
		} else if (f->deferred) {
			scan_one(db, t, sc, i, out, owner);
		} else if (!f->scanned) {
			db->build.failed = true; /* the reader could not read it */
		}
	}
}

/*
 * Whether the index says no list holds any path still wanted, under its
 * spelling or its merged-/usr alias.  keys are what the lookup searches
 * for (a diverted-to path's diverted-from path).
 */
static bool index_rules_out(struct ms_pkgdb *db, const char *const *keys, const size_t *klens, size_t n,
			    const struct ms_pkg *out)
{
	if (!db->index.open)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t alen = 0;
		char *alias;
		bool hit;

		if (!keys[i] || out[i].found)
			continue;
		if (ms_pkg_index_may_hold(&db->index, keys[i], klens[i]))
			return false;
		errno = 0;
		alias = ms_pkg_alias_of(keys[i], klens[i], &alen);
		/* Out of memory, the alias unknown: it may be listed. */
		hit = alias ? ms_pkg_index_may_hold(&db->index, alias, alen) : errno == ENOMEM;
		free(alias);
		if (hit)
			return false;
	}
	return true;
}

/*
 * A sound index that rules out every path still wanted answers alone: no
 * list holds them, so no candidate would, and the lists need not even be
 * named and sorted, only counted (the index is sound for as many lists as
 * list_names would name).  Not once the lists are named (a reader
 * thread, or a search before).
 */
static bool index_alone(struct ms_pkgdb *db, const char *const *keys, const size_t *klens, size_t n,
			const struct ms_pkg *out)
{
	/*
	 * No list counted: the index was written from settled pins, and the
	 * info directory's ctime, still the same, says no list came or went
	 * since (pkgindex.h).
	 */
	return !db->begun && !db->full_scan && db->index.open && index_rules_out(db, keys, klens, n, out);
}

/*
 * What the index holds beside its hashes: the lists' names, in their
 * order, and the status file's stanzas.  0, or -1 when memory is short.
 */
static int take_extra(const struct ms_pkgdb *db, struct ms_pkg_index_extra *x)
{
	const char **names = calloc(db->nfiles ? db->nfiles : 1, sizeof(*names));

	memset(x, 0, sizeof(*x));
	if (!names)
		return -1;
	for (size_t i = 0; i < db->nfiles; i++)
		names[i] = db->files[i].name;
	x->names = names;
	x->nnames = db->nfiles;
	if (ms_status_index_collect(db->dir, &db->pins, &x->stanzas, &x->nstanzas) < 0) {
		free(names);
		return -1;
	}
	return 0;
}

static void free_extra(struct ms_pkg_index_extra *x)
{
	free((void *)x->names);
	free(x->stanzas);
}

/* Is the database still as pinned at open?  Then what was listed and read holds for the pins. */
static bool unchanged(const struct ms_pkgdb *db)
{
	struct ms_pkg_index_pins now;

	return ms_pkg_index_pins_take(dirfd(db->d), db->dir, &now) == 0 && ms_pkg_index_pins_equal(&now, &db->pins);
}

/* After a full scan that hashed every list: write the index, silently. */
static void write_index(struct ms_pkgdb *db)
{
	struct ms_pkg_index_extra x;

	if (!db->building)
		return;
	db->pins.nlists = db->nfiles;
	/*
	 * Every list hashed once, or nothing written; nor when dpkg changed
	 * the database during the scan (the index might miss what it added).
	 */
	if (take_extra(db, &x) == 0) {
		if (db->build.lists == db->nfiles && unchanged(db))
			(void)ms_pkg_index_write(db->index_path, &db->pins, &db->build, &x);
		free_extra(&x);
	}
	db->building = false;
	ms_pkg_index_build_free(&db->build);
}

/*
 * Root gives a sound index without names (format 1) the names it has just
 * listed, silently, so that the next lookup need not list them.
 */
static void add_names(struct ms_pkgdb *db)
{
	struct ms_pkg_index_extra x;

	if (!db->index.open || db->index.names_len || !db->settled || geteuid() != 0)
		return;
	db->pins.nlists = db->nfiles;
	if (take_extra(db, &x) == 0) {
		if (unchanged(db))
			(void)ms_pkg_index_add_names(&db->index, db->index_path, &db->pins, &x);
		free_extra(&x);
	}
}

/* The diverting package answers for the file at a diverted path. */
static void diverter(struct ms_pkgdb *db, const struct ms_pkg_diversion *v, struct ms_pkg *p)
{
	size_t f;

	if (!v->by)
		return;
	ensure_listed(db);
	p->found = true;
	p->source = MS_PKG_SOURCE_DPKG;
	ms_pkg_copy_field(p->name, sizeof(p->name), v->by, v->by_len);
	/* Its architecture from its list's name, the first sorted. */
	for (f = first_with(db, v->by, v->by_len); f < db->nfiles && starts_with(db->files[f].name, v->by, v->by_len); f++)
		if (ms_pkg_name_len(db->files[f].name) == v->by_len) {
			const char *colon = strchr(db->files[f].name, ':');

			if (colon)
				ms_pkg_copy_field(p->arch, sizeof(p->arch), colon + 1,
						  strlen(colon + 1) - strlen(".list"));
			break;
		}
}

/*
 * What each path is looked for as: itself, the path it is diverted from
 * (with its diverter left out), or nothing when a diversion answers it.
 */
static void divert(struct ms_pkgdb *db, const struct ms_pkg_diversions *dv, const char *const *paths,
		  const size_t *lens, size_t n, const char **keys, size_t *klens, const char **excl,
		  size_t *excl_len, struct ms_pkg *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct ms_pkg_diversion *v = NULL;
		size_t alen = 0;
		char *alias = dv->count ? ms_pkg_alias_of(paths[i], lens[i], &alen) : NULL;
		bool from = false;

		if (dv->count)
			v = ms_pkg_diversion_of(dv, paths[i], lens[i], alias, alen, &from);
		free(alias);
		keys[i] = paths[i], klens[i] = lens[i];
		if (v && from) {
			keys[i] = NULL;
			diverter(db, v, &out[i]);
		} else if (v) {
			keys[i] = v->from, klens[i] = v->from_len;
			excl[i] = v->by, excl_len[i] = v->by_len;
		}
	}
}

int ms_pkgdb_find(struct ms_pkgdb *db, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	struct ms_pkg_table t = { 0 };
	struct scanner sc = { 0 };
	struct ms_pkg_diversions dv = { 0 };
	size_t m = n ? n : 1;
	size_t *owner = malloc(m * sizeof(*owner)), *klens = calloc(m, sizeof(*klens));
	size_t *excl_len = calloc(m, sizeof(*excl_len));
	const char **keys = calloc(m, sizeof(*keys)), **excl = calloc(m, sizeof(*excl));
	bool any = false, nomem;
	int placed;

	memset(out, 0, n * sizeof(*out));
	nomem = !owner || !klens || !excl_len || !keys || !excl || ms_pkg_diversions_read(db->dir, &dv) < 0;
	if (!nomem) {
		for (size_t i = 0; i < n; i++)
			owner[i] = MS_PKG_NO_IDX;
		divert(db, &dv, paths, lens, n, keys, klens, excl, excl_len, out);
		if (index_alone(db, keys, klens, n, out))
			goto answered;
		t.excl = excl, t.excl_len = excl_len;
		nomem = ms_pkg_table_init(&t, keys, klens, n) < 0;
	}
	ensure_listed(db);
	/* An index of another number of lists is not sound. */
	if (db->index.open && db->index.nlists != db->nfiles)
		ms_pkg_index_close(&db->index);
	if (!nomem && !db->nomem)
		add_names(db);
	/* Root leaves an index behind from a full scan, when none was sound. */
	db->building = !nomem && db->index_path && db->settled && !db->index.open && !db->no_full_scan &&
		       geteuid() == 0;
	if (!nomem && !db->full_scan) {
		scan_candidates(db, &t, &sc, keys, klens, n, out, owner);
	}
	/* What no candidate holds: every list, the exact answer, unless the index says none holds it. */
	if (!nomem && t.left && !db->no_full_scan && !index_rules_out(db, keys, klens, n, out)) {
		scan_lists(db, &t, &sc, out, owner);
		write_index(db);
	}
	db->building = false;
answered:
	join_reader(db);
	ms_pkg_table_free(&t);
	ms_pkg_diversions_free(&dv);
	free(sc.buf);
	free(sc.lengths);
	free(owner), free(klens), free(excl_len), free(keys), free(excl);
	if (nomem || db->nomem)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		any |= out[i].found;
	if (!any)
		return 0;
	if (db->status) {
		ms_pkg_status_versions(db->status, db->status_len, out, n);
		return 0;
	}
	/* The stanzas the index places, else the file up to the last package asked about. */
	placed = ms_status_index_versions(db->dir, &db->index, &db->pins, out, n);
	if (placed < 0 || (!placed && ms_pkg_status_read_versions(db->dir, MS_PKGDB_STATUS_MAX, out, n) < 0))
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	return 0;
}

size_t ms_pkgdb_lists_read(const struct ms_pkgdb *db)
{
	return __atomic_load_n(&db->lists_read, __ATOMIC_RELAXED);
}

bool ms_pkgdb_dir_listed(const struct ms_pkgdb *db)
{
	return db->dir_listed;
}

int ms_pkgdb_lookup(const char *dir, const char *const *paths, const size_t *lens, size_t n,
		    struct ms_pkg *out, struct ms_error *err)
{
	return ms_pkgdb_lookup_with(dir, NULL, paths, lens, n, out, err);
}

int ms_pkgdb_lookup_with(const char *dir, const struct ms_pkgdb_opts *opts, const char *const *paths,
			 const size_t *lens, size_t n, struct ms_pkg *out, struct ms_error *err)
{
	struct ms_pkgdb *db;
	int rc = ms_pkgdb_open(dir, opts, &db, err);

	if (rc < 0) {
		memset(out, 0, n * sizeof(*out));
		return rc;
	}
	rc = ms_pkgdb_find(db, paths, lens, n, out, err);
	ms_pkgdb_close(db);
	return rc;
}
