#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <sys/mman.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/grow.h"
#include "base/hash.h"
#include "pkg/pkgdb.h"
#include "base/saferead.h"

/* The directories merged /usr made aliases, each both ways. */
static const char *const merged[] = { "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/" };

/*
 * One spelling of a wanted path.  Several of the caller's paths may be
 * spelled so (the same file mapped by many processes, or a path and its
 * merged-/usr alias both asked for): head[0] chains those whose own path
 * it is, head[1] those whose alias it is, through the table's next[].
 */
struct want {
	const char *path; /* NULL: an empty slot */
	size_t len;
	size_t head[2];   /* into the caller's arrays; NO_IDX ends a chain */
	char *own;        /* an alias we made, freed with the table */
};

#define NO_IDX SIZE_MAX

#define LEN_BUCKETS 4096u

struct table {
	struct want *slots;
	size_t mask;
	size_t left;      /* caller's paths not found yet */
	size_t *next[2];  /* per caller's path: the next in its spelling's chain */
	/*
	 * The lengths wanted (modulo LEN_BUCKETS): a list line of another
	 * length is skipped unhashed, and most of the database's lines are.
	 */
	unsigned char len_wanted[LEN_BUCKETS];
};

/* Keyed per run (hash.h): the wanted paths are named by the processes judged. */
static struct want *slot_for(struct table *t, const char *s, size_t len)
{
	size_t i = (size_t)ms_hash_bytes(ms_hash_seed(), s, len) & t->mask;

	while (t->slots[i].path && (t->slots[i].len != len || memcmp(t->slots[i].path, s, len)))
		i = (i + 1) & t->mask;
	return &t->slots[i];
}

/* Chain idx to spelling s (its own path, kind 0, or its alias, kind 1). */
static void add(struct table *t, const char *s, size_t len, size_t idx, int kind, char *own)
{
	struct want *w = slot_for(t, s, len);

	if (!w->path) {
		*w = (struct want){ .path = s, .len = len, .head = { NO_IDX, NO_IDX }, .own = own };
		t->len_wanted[len % LEN_BUCKETS] = 1;
	} else {
		free(own);
	}
	t->next[kind][idx] = w->head[kind];
	w->head[kind] = idx;
}

/* The other spelling of a path under merged /usr, malloc'd; NULL if none. */
static char *alias_of(const char *p, size_t len, size_t *alias_len)
{
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
		size_t m = strlen(merged[i]);
		char *a;

		if (len > 4 + m && !memcmp(p, "/usr", 4) && !memcmp(p + 4, merged[i], m)) {
			*alias_len = len - 4;
			return strndup(p + 4, len - 4);
		}
		if (len > m && !memcmp(p, merged[i], m)) {
			a = malloc(len + 5);
			if (!a)
				return NULL;
			memcpy(a, "/usr", 4);
			memcpy(a + 4, p, len);
			a[len + 4] = '\0';
			*alias_len = len + 4;
			return a;
		}
	}
	return NULL;
}

static int table_init(struct table *t, const char *const *paths, const size_t *lens, size_t n)
{
	size_t size = 16;

	while (size < 4 * n)
		size *= 2;
	t->slots = calloc(size, sizeof(*t->slots));
	t->next[0] = calloc(n ? n : 1, sizeof(*t->next[0]));
	t->next[1] = calloc(n ? n : 1, sizeof(*t->next[1]));
	if (!t->slots || !t->next[0] || !t->next[1])
		return MS_ERR_NOMEM;
	t->mask = size - 1;
	t->left = n;
	for (size_t i = 0; i < n; i++) {
		size_t alen;
		char *alias;

		add(t, paths[i], lens[i], i, 0, NULL);
		alias = alias_of(paths[i], lens[i], &alen);
		if (alias)
			add(t, alias, alen, i, 1, alias);
	}
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; t->slots && i <= t->mask; i++)
		free(t->slots[i].own);
	free(t->slots);
	free(t->next[0]);
	free(t->next[1]);
}

static void copy_field(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Spelling w is in list file (index file_idx): it owns every path spelled so, unless an earlier list does. */
static void found_in(struct table *t, const struct want *w, const char *file, size_t file_idx,
		     struct ms_pkg *out, size_t *owner)
{
	const char *colon = strchr(file, ':');
	size_t base = strlen(file) - strlen(".list");

	for (int kind = 0; kind < 2; kind++)
		for (size_t i = w->head[kind]; i != NO_IDX; i = t->next[kind][i]) {
			struct ms_pkg *p = &out[i];

			/* Files are read in any order; the list whose name sorts first wins. */
			if (p->found && owner[i] <= file_idx)
				continue;
			if (!p->found)
				t->left--;
			p->found = true;
			owner[i] = file_idx;
			memset(p->arch, 0, sizeof(p->arch));
			copy_field(p->name, sizeof(p->name), file, colon ? (size_t)(colon - file) : base);
			if (colon)
				copy_field(p->arch, sizeof(p->arch), colon + 1, base - (size_t)(colon + 1 - file));
		}
}


struct list_file {
	char *name;        /* the entry, PACKAGE[:ARCH].list */
	char *text;        /* read ahead into the arena; NULL if not */
	size_t len;
	uint32_t *lengths; /* in the arena: each line's, so the scan finds no newline */
	size_t nlines;
	bool deferred;     /* claimed by the reader past its budget: read it later */
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
	struct list_file *files; /* sorted by name: the first that lists a path owns it */
	size_t nfiles;
	bool nomem;
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

/*
 * Newlines are found a block at a time, as bits: byte k of the block sets
 * bit k << MARK_SHIFT.  A memchr per line of 60 bytes is mostly call, and
 * finding newlines is most of a scan.
 */
#if defined(__SSE2__)
#define BLOCK 16
#define MARK_SHIFT 0
static uint64_t block_marks(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
}
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BLOCK 8
#define MARK_SHIFT 3
/* Exact: a byte that is not a newline never sets its bit (no carry crosses a byte). */
static uint64_t block_marks(const char *p)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t x;

	memcpy(&x, p, 8);
	x ^= 0x0a0a0a0a0a0a0a0aull;
	return ~(((x & low7) + low7) | x | low7);
}
#else
#define BLOCK 1
#define MARK_SHIFT 0
static uint64_t block_marks(const char *p)
{
	return *p == '\n';
}
#endif

/*
 * The length of each line of t into out (at most cap): their number, or
 * SIZE_MAX when there are more.  A last line without a newline counts.
 */
static size_t split_lines(const char *t, size_t len, uint32_t *out, size_t cap)
{
	size_t n = 0, start = 0, i = 0;

	for (; i + BLOCK <= len; i += BLOCK)
		for (uint64_t m = block_marks(t + i); m; m &= m - 1) {
			size_t at = i + ((size_t)__builtin_ctzll(m) >> MARK_SHIFT);

			if (n == cap)
				return SIZE_MAX;
			out[n++] = (uint32_t)(at - start);
			start = at + 1;
		}
	for (; i < len; i++)
		if (t[i] == '\n') {
			if (n == cap)
				return SIZE_MAX;
			out[n++] = (uint32_t)(i - start);
			start = i + 1;
		}
	if (start < len) {
		if (n == cap)
			return SIZE_MAX;
		out[n++] = (uint32_t)(len - start);
	}
	return n;
}

/* Every line of one list file that names a wanted path: that path is the package's. */
static void scan_list(struct table *t, const char *text, const uint32_t *lengths, size_t nlines,
		      const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner)
{
	size_t pos = 0;

	for (size_t line = 0; line < nlines; pos += lengths[line++] + 1) {
		size_t n = lengths[line];
		struct want *w = n && t->len_wanted[n % LEN_BUCKETS] ? slot_for(t, text + pos, n) : NULL;

		if (w && w->path)
			found_in(t, w, file, file_idx, out, owner);
	}
}

/* Split then scan, with *lengths (*cap entries) grown as needed. */
static void split_scan(struct table *t, const char *text, size_t len, uint32_t **lengths, size_t *cap,
		       const char *file, size_t file_idx, struct ms_pkg *out, size_t *owner)
{
	size_t n;

	while ((n = split_lines(text, len, *lengths, *cap)) == SIZE_MAX) {
		size_t want = *cap ? *cap * 2 : 4096;
		uint32_t *grown = want < SIZE_MAX / sizeof(**lengths) ? realloc(*lengths, want * sizeof(**lengths))
								     : NULL;

		if (!grown)
			return;
		*lengths = grown;
		*cap = want;
	}
	scan_list(t, text, *lengths, n, file, file_idx, out, owner);
}

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
 * dpkg's info directory is root's: its entries are read directly
 * (saferead.h).  Should it be writable by others, every file goes the
 * careful way, through O_PATH and a reopen.  *buf is reused when direct.
 */
static int read_list(struct ms_pkgdb *db, const char *name, char **buf, size_t *cap, size_t *len)
{
	struct ms_error ignored;
	char path[4096];
	char *text;

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
	f->nlines = split_lines(f->text, f->len, f->lengths, f->len + 1);
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
	db->budget = opts && opts->read_ahead_max ? opts->read_ahead_max : MS_PKGDB_READ_AHEAD_MAX;
	*out = db;
	if (opts && opts->read_ahead)
		ms_pkgdb_read_ahead(db);
	return 0;
}

void ms_pkgdb_read_ahead(struct ms_pkgdb *db)
{
	sigset_t all, old;

	if (!db || db->begun)
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
	for (size_t i = 0; i < db->nfiles; i++)
		free(db->files[i].name);
	arena_free(&db->arena);
	free(db->files);
	free(db->status);
	closedir(db->d);
	free(db->dir);
	free(db);
}

/* A field of one stanza: its value, without the name and leading blanks. */
static bool field(const char *line, size_t n, const char *name, const char **val, size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || memcmp(line, name, k))
		return false;
	*val = line + k;
	*vlen = n - k;
	while (*vlen && (**val == ' ' || **val == '\t'))
		(*val)++, (*vlen)--;
	return true;
}

struct stanza {
	const char *pkg, *arch, *version;
	size_t pkg_len, arch_len, version_len;
	bool installed;
};

static void apply(const struct stanza *s, struct ms_pkg *out, size_t n)
{
	if (!s->installed || !s->pkg || !s->version)
		return;
	for (size_t i = 0; i < n; i++) {
		struct ms_pkg *p = &out[i];

		if (!p->found || p->version[0] || strlen(p->name) != s->pkg_len ||
		    memcmp(p->name, s->pkg, s->pkg_len))
			continue;
		if (p->arch[0] && s->arch && (strlen(p->arch) != s->arch_len || memcmp(p->arch, s->arch, s->arch_len)))
			continue;
		copy_field(p->version, sizeof(p->version), s->version, s->version_len);
	}
}

static void scan_status(const char *text, size_t len, struct ms_pkg *out, size_t n)
{
	struct stanza s = { 0 };
	size_t pos = 0;

	while (pos <= len) {
		const char *nl = pos < len ? memchr(text + pos, '\n', len - pos) : NULL;
		size_t k = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *line = text + pos, *v;
		size_t vl;

		if (k == 0) {
			apply(&s, out, n);
			memset(&s, 0, sizeof(s));
		} else if (field(line, k, "Package:", &v, &vl)) {
			s.pkg = v, s.pkg_len = vl;
		} else if (field(line, k, "Architecture:", &v, &vl)) {
			s.arch = v, s.arch_len = vl;
		} else if (field(line, k, "Version:", &v, &vl)) {
			s.version = v, s.version_len = vl;
		} else if (field(line, k, "Status:", &v, &vl)) {
			s.installed = vl >= 9 && !memcmp(v + vl - 9, "installed", 9) &&
				      (vl < 16 || memcmp(v + vl - 16, "not-installed", 13));
		}
		pos += k + 1;
	}
	apply(&s, out, n);
}

/*
 * Claim and scan files until none is left or every path is found; then
 * stop the reader and scan what it read.  Claims go in name order, so
 * every file left unclaimed comes after every file scanned, and stopping
 * early never misses an earlier owner.
 */
static void scan_lists(struct ms_pkgdb *db, struct table *t, struct ms_pkg *out, size_t *owner)
{
	size_t cap = 0, lcap = 0, len, i;
	uint32_t *lengths = NULL;
	char *buf = NULL;

	db->begun = true;
	if (db->threaded) {
		pthread_mutex_lock(&db->lock);
		while (!db->listed)
			pthread_cond_wait(&db->cond, &db->lock);
		pthread_mutex_unlock(&db->lock);
	} else {
		list_names(db);
	}
	while (t->left && (i = claim(db, false)) < db->nfiles)
		if (read_list(db, db->files[i].name, &buf, &cap, &len) == 0)
			split_scan(t, buf, len, &lengths, &lcap, db->files[i].name, i, out, owner);
	join_reader(db);
	for (i = 0; i < db->nfiles; i++) {
		struct list_file *f = &db->files[i];

		if (f->text)
			scan_list(t, f->text, f->lengths, f->nlines, f->name, i, out, owner);
		else if (f->deferred && read_list(db, f->name, &buf, &cap, &len) == 0)
			split_scan(t, buf, len, &lengths, &lcap, f->name, i, out, owner);
	}
	free(lengths);
	free(buf);
}

int ms_pkgdb_find(struct ms_pkgdb *db, const char *const *paths, const size_t *lens, size_t n,
		  struct ms_pkg *out, struct ms_error *err)
{
	struct table t = { 0 };
	size_t *owner = calloc(n ? n : 1, sizeof(*owner));
	bool any = false;
	char *text;
	size_t len;

	memset(out, 0, n * sizeof(*out));
	if (!owner || table_init(&t, paths, lens, n) < 0) {
		free(owner);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	scan_lists(db, &t, out, owner);
	table_free(&t);
	free(owner);
	if (db->nomem)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		any |= out[i].found;
	if (!any)
		return 0;
	if (db->status) {
		scan_status(db->status, db->status_len, out, n);
	} else if (read_status(db, &text, &len) == 0) {
		scan_status(text, len, out, n);
		free(text);
	}
	return 0;
}

int ms_pkgdb_lookup(const char *dir, const char *const *paths, const size_t *lens, size_t n,
		    struct ms_pkg *out, struct ms_error *err)
{
	struct ms_pkgdb *db;
	int rc = ms_pkgdb_open(dir, NULL, &db, err);

	if (rc < 0) {
		memset(out, 0, n * sizeof(*out));
		return rc;
	}
	rc = ms_pkgdb_find(db, paths, lens, n, out, err);
	ms_pkgdb_close(db);
	return rc;
}

size_t ms_pkg_describe(const struct ms_pkg *p, unsigned esc_flags, char *buf, size_t size)
{
	size_t at;
	int more;

	if (size == 0)
		return 0;
	at = ms_escape(p->name, strnlen(p->name, sizeof(p->name)), buf, size, esc_flags);
	if (!p->version[0] || at + 8 >= size)
		return at;
	more = snprintf(buf + at, size - at, " (now ");
	if (more < 0 || (size_t)more >= size - at)
		return at;
	at += (size_t)more;
	at += ms_escape(p->version, strnlen(p->version, sizeof(p->version)), buf + at, size - at - 1, esc_flags);
	buf[at++] = ')';
	buf[at] = '\0';
	return at;
}
