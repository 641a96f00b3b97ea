#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/saferead.h"
#include "base/safewrite.h"
#include "pkg/pkgindex.h"

#define MAGIC 0x7870646b7067736dull /* "msgpkdpx" as a little-endian word */
/*
 * 2: the list names follow the hashes.  Format 1 had none (its last
 * header word was 0): still read, and rewritten with names by root.
 */
#define FORMAT 2u
/* A list's name is a directory entry: at most NAME_MAX bytes. */
#define NAME_MAX_LEN 255u

/* The header, MS_PKG_INDEX_HEADER bytes of native words. */
struct header {
	uint64_t magic, version, nlists, count;
	struct ms_pkg_index_pins pins; /* nlists repeated there */
	uint64_t names_len;            /* bytes of names after the hashes; 0: none */
};

_Static_assert(sizeof(struct header) == MS_PKG_INDEX_HEADER, "the index header is 160 bytes");

static void pin_file(const struct stat *st, uint64_t p[4])
{
	p[0] = (uint64_t)st->st_ino;
	p[1] = (uint64_t)st->st_size;
	p[2] = (uint64_t)st->st_mtim.tv_sec;
	p[3] = (uint64_t)st->st_mtim.tv_nsec;
}

/* A file's pins, all 0 when it is missing.  0, or -1 when stat fails otherwise. */
static int pin_entry(const char *dir, const char *name, uint64_t p[4])
{
	char path[4096];
	struct stat st;

	memset(p, 0, 4 * sizeof(*p));
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	pin_file(&st, p);
	return 0;
}

int ms_pkg_index_pins_take(int infofd, const char *dir, struct ms_pkg_index_pins *p)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (fstat(infofd, &st) < 0)
		return -1;
	p->info[0] = (uint64_t)st.st_dev;
	p->info[1] = (uint64_t)st.st_ino;
	p->info[2] = (uint64_t)st.st_mtim.tv_sec;
	p->info[3] = (uint64_t)st.st_mtim.tv_nsec;
	p->info_ctime[0] = (uint64_t)st.st_ctim.tv_sec;
	p->info_ctime[1] = (uint64_t)st.st_ctim.tv_nsec;
	if (pin_entry(dir, "status", p->status) < 0 || pin_entry(dir, "diversions", p->diversions) < 0)
		return -1;
	return 0;
}

bool ms_pkg_index_pins_settled(const struct ms_pkg_index_pins *p, const struct timespec *before)
{
	return before->tv_sec >= 0 && (uint64_t)before->tv_sec > p->info_ctime[0];
}

bool ms_pkg_index_pins_equal(const struct ms_pkg_index_pins *a, const struct ms_pkg_index_pins *b)
{
	return !memcmp(a->info, b->info, sizeof(a->info)) &&
	       !memcmp(a->info_ctime, b->info_ctime, sizeof(a->info_ctime)) &&
	       !memcmp(a->status, b->status, sizeof(a->status)) &&
	       !memcmp(a->diversions, b->diversions, sizeof(a->diversions));
}

/* Fixed and unkeyed: the format depends on it. */
uint64_t ms_pkg_index_hash(const char *p, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0x6d617073636f7065ull ^ ((uint64_t)len * k), w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w) * k;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

bool ms_pkg_index_open(const char *path, const struct ms_pkg_index_pins *pins, struct ms_pkg_index *ix)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct header h;
	struct stat st;

	memset(ix, 0, sizeof(*ix));
	ix->fd = -1;
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < (off_t)sizeof(h) ||
	    st.st_size > (off_t)MS_PKG_INDEX_MAX || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != MAGIC || (h.version != FORMAT && (h.version != 1 || h.names_len)) ||
	    h.count > ((uint64_t)st.st_size - sizeof(h)) / 8 || h.nlists > MS_PKG_INDEX_MAX ||
	    h.names_len > (uint64_t)st.st_size - sizeof(h) - h.count * 8 ||
	    ((uint64_t)st.st_size - sizeof(h) - h.count * 8 - h.names_len) % sizeof(struct ms_pkg_index_stanza) ||
	    h.names_len > h.nlists * (NAME_MAX_LEN + 1) || h.pins.nlists != h.nlists ||
	    !ms_pkg_index_pins_equal(&h.pins, pins)) {
		close(fd);
		return false;
	}
	ix->open = true;
	ix->fd = fd;
	ix->count = (size_t)h.count;
	ix->nlists = h.nlists;
	ix->names_len = (size_t)h.names_len;
	ix->nstanzas = (size_t)(((uint64_t)st.st_size - sizeof(h) - h.count * 8 - h.names_len) /
				sizeof(struct ms_pkg_index_stanza));
	ix->status_size = h.pins.status[1];
	return true;
}

static bool read_at(const struct ms_pkg_index *ix, off_t at, void *buf, size_t want);

/* A list file's name as readdir gives it and pkgdb.c takes it: NAME.list, no '/', no leading '.'. */
static bool list_name_ok(const char *name, size_t len)
{
	return len > 5 && len <= NAME_MAX_LEN && name[0] != '.' && !memchr(name, '/', len) &&
	       !memcmp(name + len - 5, ".list", 5);
}

int ms_pkg_index_names(const struct ms_pkg_index *ix, char **blob, size_t *nnames)
{
	size_t len = ix->open ? ix->names_len : 0, n = 0;
	const char *prev = NULL;
	bool whole;
	char *buf;

	*blob = NULL;
	*nnames = 0;
	if (!len || !(buf = malloc(len + 1)))
		return -1;
	whole = read_at(ix, (off_t)(MS_PKG_INDEX_HEADER + ix->count * 8), buf, len);
	buf[len] = '\0';
	/* Every name whole, sound and after the one before, and as many as the header says. */
	for (size_t off = 0; whole && off < len; n++) {
		size_t l = strnlen(buf + off, len - off);

		if (off + l == len || !list_name_ok(buf + off, l) || (prev && strcmp(prev, buf + off) >= 0))
			break;
		prev = buf + off;
		off += l + 1;
		if (off == len && n + 1 == ix->nlists) {
			*blob = buf;
			*nnames = n + 1;
			return 0;
		}
	}
	free(buf);
	return -1;
}

#define STANZA_MAX (1u << 20)

static bool stanza_before(const struct ms_pkg_index_stanza *a, const struct ms_pkg_index_stanza *b)
{
	return a->key < b->key || (a->key == b->key && a->off < b->off);
}

int ms_pkg_index_stanzas(const struct ms_pkg_index *ix, struct ms_pkg_index_stanza **tab, size_t *n)
{
	size_t count = ix->open ? ix->nstanzas : 0;
	struct ms_pkg_index_stanza *t;

	*tab = NULL;
	*n = 0;
	if (!count || !(t = malloc(count * sizeof(*t))))
		return -1;
	if (!read_at(ix, (off_t)(MS_PKG_INDEX_HEADER + ix->count * 8 + ix->names_len), t, count * sizeof(*t))) {
		free(t);
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (!t[i].len || t[i].len > STANZA_MAX || (uint64_t)t[i].off + t[i].len > ix->status_size ||
		    (i && !stanza_before(&t[i - 1], &t[i]))) {
			free(t);
			return -1;
		}
	*tab = t;
	*n = count;
	return 0;
}

static int by_stanza(const void *a, const void *b)
{
	const struct ms_pkg_index_stanza *x = a, *y = b;

	return stanza_before(x, y) ? -1 : stanza_before(y, x);
}

void ms_pkg_index_close(struct ms_pkg_index *ix)
{
	if (ix->open)
		close(ix->fd);
	memset(ix, 0, sizeof(*ix));
	ix->fd = -1;
}


static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* want bytes of the index at at into buf.  false if the file no longer has them. */
static bool read_at(const struct ms_pkg_index *ix, off_t at, void *buf, size_t want)
{
	return ms_pread_all(ix->fd, buf, want, at);
}

/* n hashes from index first into buf.  false if the file no longer has them. */
static bool read_hashes(const struct ms_pkg_index *ix, size_t first, uint64_t *buf, size_t n)
{
	return read_at(ix, (off_t)(MS_PKG_INDEX_HEADER + first * sizeof(*buf)), buf, n * sizeof(*buf));
}

/*
 * A window of WINDOW hashes (one page) is read into the stack, first where
 * h would sit were the hashes spread evenly (they are a hash's outputs).
 * A miss gallops on in its direction, the next window beside it, then
 * skipping one, three, seven windows..., until a window holds h or h lies
 * between two, and bisects what is left: most lookups read one page, some
 * two, and none touches new memory.  The file is not mapped, because
 * every page of a mapping touched for the first time costs a fault, and a
 * fault costs more than a read where page tables are shadowed (a virtual
 * machine): a lookup that bisected a 1 MiB mapping faulted on up to 17.
 */
#define WINDOW 512u

bool ms_pkg_index_may_hold(const struct ms_pkg_index *ix, const char *p, size_t len)
{
	uint64_t h = ms_pkg_index_hash(p, len), buf[WINDOW];
	size_t lo = 0, hi = ix->open ? ix->count : 0; /* h, if held, is in [lo, hi) */
	size_t skip = 0;
	int dir = 0; /* 0: the first read; 1, -1: galloping up, down; 2: bisecting */

	while (lo < hi) {
		size_t start, n, mid;
		int next;

		if (dir == 1 || dir == -1) {
			/* The window skip past the last one, or the last window left. */
			if (hi - lo <= WINDOW)
				start = lo;
			else if (hi - lo - WINDOW <= skip)
				start = dir == 1 ? hi - WINDOW : lo;
			else
				start = dir == 1 ? lo + skip : hi - skip - WINDOW;
		} else {
			/* count is at most MS_PKG_INDEX_MAX / 8, below 2^32: no overflow. */
			mid = dir == 0 ? (size_t)(((h >> 32) * (uint64_t)hi) >> 32) : lo + (hi - lo) / 2;
			start = mid > lo + WINDOW / 2 ? mid - WINDOW / 2 : lo;
			/* A window that would run past hi ends there. */
			if (hi - start < WINDOW)
				start = hi - lo > WINDOW ? hi - WINDOW : lo;
		}
		n = hi - start < WINDOW ? hi - start : WINDOW;
		/* Unreadable now (truncated in place): say nothing, the lists answer. */
		if (!read_hashes(ix, start, buf, n))
			return true;
		if (h < buf[0]) {
			hi = start;
			next = -1;
		} else if (h > buf[n - 1]) {
			lo = start + n;
			next = 1;
		} else {
			return bsearch(&h, buf, n, sizeof(h), by_value) != NULL;
		}
		if (dir == 2 || (dir != 0 && next != dir)) {
			dir = 2; /* bracketed */
		} else {
			if (dir == next)
				skip = 2 * skip + WINDOW;
			dir = next;
		}
	}
	return false;
}

void ms_pkg_index_add(struct ms_pkg_index_build *b, const char *text, const uint32_t *lengths, size_t nlines)
{
	if (b->failed)
		return;
	b->lists++;
	if (b->count + nlines > b->cap) {
		size_t want = b->cap ? b->cap : 65536;
		uint64_t *grown;

		while (want < b->count + nlines)
			want *= 2;
		grown = want < SIZE_MAX / 8 ? realloc(b->hashes, want * sizeof(*grown)) : NULL;
		if (!grown) {
			b->failed = true;
			return;
		}
		b->hashes = grown;
		b->cap = want;
	}
	for (size_t i = 0; i < nlines; i++) {
		b->hashes[b->count++] = ms_pkg_index_hash(text, lengths[i]);
		text += lengths[i] + 1;
	}
}

void ms_pkg_index_build_free(struct ms_pkg_index_build *b)
{
	free(b->hashes);
	memset(b, 0, sizeof(*b));
}


/* Write all of len bytes.  0 or -1. */
static int put(int fd, const void *buf, size_t len)
{
	return ms_write_all(fd, buf, len) == 0 ? 0 : -1;
}

/*
 * The names one after the other, each with its NUL, into *blob (malloc'd)
 * and its length: 0 and NULL when one is not a list's name, they are out
 * of order, or memory is short.
 */
static size_t names_blob(const char *const *names, size_t nnames, char **blob)
{
	size_t total = 0, at = 0;

	*blob = NULL;
	for (size_t i = 0; i < nnames; i++) {
		size_t l = strlen(names[i]);

		if (!list_name_ok(names[i], l) || (i && strcmp(names[i - 1], names[i]) >= 0))
			return 0;
		total += l + 1;
	}
	if (!total || !(*blob = malloc(total)))
		return 0;
	for (size_t i = 0; i < nnames; i++) {
		size_t l = strlen(names[i]) + 1;

		memcpy(*blob + at, names[i], l);
		at += l;
	}
	return total;
}

int ms_pkg_index_write(const char *path, const struct ms_pkg_index_pins *pins, struct ms_pkg_index_build *b,
		       const struct ms_pkg_index_extra *x)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], tmp[512];
	struct ms_error ignored;
	struct header h = { .magic = MAGIC, .version = FORMAT };
	char *blob = NULL;
	size_t n = 0, nst;
	int dfd, fd = -1, rc = -1;

	if (b->failed || !slash || slash == path || !slash[1] || (size_t)(slash - path) >= sizeof(dir) ||
	    strlen(slash + 1) > 200)
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (ms_safewrite_root_dir_open(AT_FDCWD, dir, 0755, &dfd, &ignored) < 0)
		return -1;
	if (b->count)
		qsort(b->hashes, b->count, sizeof(*b->hashes), by_value);
	for (size_t i = 0; i < b->count; i++)
		if (!n || b->hashes[n - 1] != b->hashes[i])
			b->hashes[n++] = b->hashes[i];
	h.pins = *pins;
	h.nlists = pins->nlists;
	h.count = n;
	h.names_len = x && x->nnames == pins->nlists ? names_blob(x->names, x->nnames, &blob) : 0;
	/* Stanzas only after names: the reader finds them past the names' length. */
	nst = h.names_len ? x->nstanzas : 0;
	if (nst)
		qsort(x->stanzas, nst, sizeof(*x->stanzas), by_stanza);
	for (unsigned try = 0; fd < 0 && try < 16; try++) {
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%u", slash + 1, (long)getpid(), try);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0) {
		/* Readable by everyone, whatever the umask. */
		rc = fchmod(fd, 0644) < 0 || put(fd, &h, sizeof(h)) < 0 || put(fd, b->hashes, n * sizeof(*b->hashes)) < 0
			     ? -1
			     : 0;
		if (rc == 0 && h.names_len)
			rc = put(fd, blob, h.names_len);
		if (rc == 0 && nst)
			rc = put(fd, x->stanzas, nst * sizeof(*x->stanzas));
		if (close(fd) < 0 && errno != EINTR)
			rc = -1;
		if (rc == 0 && renameat(dfd, tmp, dfd, slash + 1) < 0)
			rc = -1;
		if (rc < 0)
			(void)unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	free(blob);
	return rc;
}

int ms_pkg_index_add_names(const struct ms_pkg_index *ix, const char *path, const struct ms_pkg_index_pins *pins,
			   const struct ms_pkg_index_extra *x)
{
	struct ms_pkg_index_build b = { 0 };
	int rc = -1;

	if (!ix->open || ix->names_len || x->nnames != ix->nlists || x->nnames != pins->nlists)
		return -1;
	b.hashes = malloc(ix->count ? ix->count * sizeof(*b.hashes) : 1);
	if (b.hashes && (!ix->count || read_hashes(ix, 0, b.hashes, ix->count))) {
		b.count = b.cap = ix->count;
		rc = ms_pkg_index_write(path, pins, &b, x);
	}
	ms_pkg_index_build_free(&b);
	return rc;
}
