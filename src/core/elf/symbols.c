#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "elf/dwload.h"
#include "elf/elfcheck.h"
#include "proc/fstype.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"
#include "elf/symbols.h"
#include "elf/symbols_child.h"
#include "elf/symbols_dw.h"
#include "elf/symbols_fetch.h"
#include "untrusted/untrusted_child.h"
#include "untrusted/untrusted_walk.h"

#define DEBUG_DIR "/usr/lib/debug"
#define NS_PER_S 1000000000ull

enum file_state {
	FILE_NEW,     /* not opened yet (or the reader that had it ended) */
	FILE_GIVEN,   /* handed to the reader of generation gen */
	FILE_REFUSED, /* gives no symbols this run: why says why */
};

struct symfile {
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool used;
	enum file_state state;
	unsigned gen;
	bool tell;    /* why is worth saying once (ms_symbol.tell) */
	char why[160];
};

struct pending {
	size_t i;         /* index into the caller's arrays */
	struct symfile *f;
};

/* ms_symbols_ask's addresses, until ms_symbols_take. */
struct asked {
	bool on;
	bool sent;                     /* the LOOKUP reached the socket */
	const uint64_t *addrs;
	size_t n, next;                /* next: the first address not prepared yet */
	unsigned what;
	struct ms_symbol *out;
	size_t count;                  /* of p, in the LOOKUP */
	struct pending p[MS_SYMMSG_MANY_MAX];
};

struct ms_symbols {
	struct ms_proc *proc;
	const struct ms_maplist *list;
	struct ms_symbols_opts opts;
	struct ms_fstypes *fstypes;
	struct ms_lookup_cache *lookups;
	struct ms_lookup_root root;    /* the process's */
	struct ms_lookup_root ours;    /* debug directories are ours */
	bool have_roots;
	struct symfile *files;         /* open addressing by device and inode */
	size_t nfiles_cap;
	size_t nfiles;
	struct ms_symbols_fetch *fetch;
	struct ms_child *child;
	unsigned gen;                  /* readers started so far */
	uint64_t lost_ns;              /* time spent on readers that were killed */
	char why[MS_ERRMSG_MAX];       /* why no reader runs any more, or "" */
	unsigned char *frame;          /* MS_CHILD_FRAME_MAX + 1 bytes */
	char *store;                   /* the last answer's strings */
	struct ms_dw *image;           /* ms_symbols_image_new: libdw in this process */
	struct arena_block *arena;     /* the last call's answers' strings */
	struct asked *asked;           /* allocated at the first ask */
};

#define STORE_LEN (4 * (MS_SYMMSG_STR_MAX + 1))

static bool trusted_stat(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static void ensure_roots(struct ms_symbols *s)
{
	if (s->have_roots)
		return;
	ms_lookup_root_of(s->lookups, s->proc, &s->root);
	ms_lookup_root_ours(s->lookups, &s->ours);
	s->have_roots = true;
}

/*
 * A debug file at path under our root, if it is the one for build ID (id,
 * len).  A user must not choose which file is found, nor make root read a
 * file only root may read for them: no symlink anywhere on the path, and
 * every directory passed through only root can change (untrusted_walk.h).
 */
static int open_debug(struct ms_symbols *s, const char *path, const unsigned char *id, size_t len)
{
	struct ms_walk_root wr = ms_lookup_walk_root(&s->ours);
	unsigned char got[MS_BUILD_ID_MAX];
	const char *why;
	struct stat st;
	size_t got_len = 0;
	int fd;

	if (s->ours.fd < 0)
		return -1;
	fd = ms_walk_open_read(&wr, path, MS_WALK_NO_SYMLINKS | MS_WALK_ROOT_DIRS, NULL, NULL, NULL, &st,
			       &why);
	if (fd < 0)
		return -1;
	if (!trusted_stat(&st) || ms_elfcheck_fd(fd, (uint64_t)st.st_size, true, NULL) != 0 ||
	    ms_buildid_read_fd(fd, got, &got_len, NULL) != 0 || got_len != len || memcmp(got, id, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The debug file for a module: by build ID, then by its .gnu_debuglink name. */
static int find_debug(struct ms_symbols *s, const char *file_path, const unsigned char *id, size_t len,
		      const char *debuglink)
{
	char path[4096], hex[2 * MS_BUILD_ID_MAX + 1];
	const char *slash;
	int dirlen, fd;

	ensure_roots(s);
	ms_buildid_hex(id, len, hex);
	if (snprintf(path, sizeof(path), DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2) <
	    (int)sizeof(path) && (fd = open_debug(s, path, id, len)) >= 0)
		return fd;
	if (!debuglink || !*debuglink || strchr(debuglink, '/') || !file_path ||
	    !(slash = strrchr(file_path, '/')) || slash - file_path > 2048)
		return -1;
	dirlen = (int)(slash - file_path);
	if (snprintf(path, sizeof(path), DEBUG_DIR "%.*s/%s", dirlen, file_path, debuglink) <
	    (int)sizeof(path) && (fd = open_debug(s, path, id, len)) >= 0)
		return fd;
	/* Next to the file only where the process's names are ours. */
	if (!s->root.ours)
		return -1;
	if (snprintf(path, sizeof(path), "%.*s/.debug/%s", dirlen, file_path, debuglink) <
	    (int)sizeof(path) && (fd = open_debug(s, path, id, len)) >= 0)
		return fd;
	if (snprintf(path, sizeof(path), "%.*s/%s", dirlen, file_path, debuglink) < (int)sizeof(path))
		return open_debug(s, path, id, len);
	return -1;
}

static size_t file_slot(const struct ms_symbols *s, const struct ms_mapping *m)
{
	uint64_t h = m->inode * 0x9e3779b97f4a7c15ull ^ ((uint64_t)m->dev_major << 32 | m->dev_minor);
	size_t i = (size_t)(h ^ h >> 29) & (s->nfiles_cap - 1);

	while (s->files[i].used && (s->files[i].inode != m->inode || s->files[i].dev_major != m->dev_major ||
				    s->files[i].dev_minor != m->dev_minor))
		i = (i + 1) & (s->nfiles_cap - 1);
	return i;
}

static bool same_file(const struct ms_mapping *a, const struct ms_mapping *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}

/*
 * The module's span in the list: from the file's mapping of offset 0 at or
 * below index i, on through mappings of the same file or of no file (a
 * library's .bss), up to the next mapping of another file.
 */
static bool module_span(const struct ms_maplist *list, size_t i, uint64_t *low, uint64_t *high)
{
	const struct ms_mapping *m = &list->items[i];
	size_t first = i, last = i;

	while (first > 0 && list->items[first].offset != 0) {
		const struct ms_mapping *p = &list->items[first - 1];

		if (p->inode && !same_file(p, m))
			return false;
		first--;
	}
	if (!same_file(&list->items[first], m) || list->items[first].offset != 0)
		return false;
	for (size_t j = i + 1; j < list->count; j++) {
		const struct ms_mapping *n = &list->items[j];

		if (n->inode && !same_file(n, m))
			break;
		if (same_file(n, m))
			last = j;
	}
	*low = list->items[first].start;
	*high = list->items[last].end;
	return true;
}

static void refuse(struct symfile *f, const char *why)
{
	f->state = FILE_REFUSED;
	f->tell = false;
	snprintf(f->why, sizeof(f->why), "%s", why);
}

/* Open the file of mapping m the checked way; -1 with the file refused. */
static int open_file(struct ms_symbols *s, struct symfile *f, const struct ms_mapping *m)
{
	const char *why;
	bool other;
	int fd;

	if (m->name_ambiguous || !m->name_len || m->name[0] != '/' || memchr(m->name, '\0', m->name_len)) {
		refuse(f, "the name is not a path to look up");
		return -1;
	}
	if ((why = ms_fstypes_refuse(s->fstypes, m->dev_major, m->dev_minor))) {
		refuse(f, why);
		return -1;
	}
	ensure_roots(s);
	if (s->root.fd < 0) {
		refuse(f, "the process's root cannot be opened");
		return -1;
	}
	fd = ms_mapfiles_open_mapped(s->lookups, &s->root, s->proc, m, s->fstypes, f->why, sizeof(f->why),
				     &other);
	if (fd == -1) {
		f->state = FILE_REFUSED;
		f->tell = other;
	}
	return fd;
}

static int start_child(struct ms_symbols *s)
{
	const struct ms_child_spec spec = { .prepare = ms_symchild_prepare, .serve = ms_symchild_serve };
	struct ms_error err = { 0 };

	if (s->child || s->why[0])
		return s->child ? 0 : -1;
	if (s->gen >= MS_SYMBOLS_READERS_MAX) {
		snprintf(s->why, sizeof(s->why), "symbols: %u readers failed: no more this run", s->gen);
		return -1;
	}
	if (s->lost_ns >= MS_SYMBOLS_LOST_SECONDS * NS_PER_S) {
		snprintf(s->why, sizeof(s->why), "symbols: gave up after %u s lost to files that never answered",
			 MS_SYMBOLS_LOST_SECONDS);
		return -1;
	}
	if (ms_child_start(&spec, &s->child, &err) < 0) {
		snprintf(s->why, sizeof(s->why), "%s", err.msg);
		return err.code == MS_ERR_NOMEM ? MS_ERR_NOMEM : -1;
	}
	s->gen++;
	return 0;
}

/* The reader ended while f was asked about: f gives no symbols this run (unless interrupted). */
static void reader_ended(struct ms_symbols *s, struct symfile *f, uint64_t began)
{
	const char *why = ms_child_why(s->child);
	char text[96];

	snprintf(text, sizeof(text), "symbols: %s", why);
	if (strcmp(why, "interrupted") == 0) {
		f->state = FILE_NEW;
		snprintf(f->why, sizeof(f->why), "%s", text);
	} else {
		refuse(f, text);
		s->lost_ns += ms_child_now_ns() - began;
	}
	ms_child_free(s->child);
	s->child = NULL;
}

/* Give f (mapping idx) to the reader.  0, -1 (f refused), or MS_ERR_NOMEM. */
static int give(struct ms_symbols *s, struct symfile *f, size_t idx)
{
	const struct ms_mapping *m = &s->list->items[idx];
	struct ms_symmsg_add a = { .file = (uint32_t)(f - s->files) };
	struct stat st;
	size_t n;
	char *path;
	int fd, rc;

	if (!module_span(s->list, idx, &a.low, &a.high)) {
		refuse(f, "the file's start is not mapped");
		return -1;
	}
	if ((fd = open_file(s, f, m)) < 0)
		return fd == MS_ERR_NOMEM ? fd : -1;
	if (fstat(fd, &st) < 0 || !(path = strndup(m->name, m->name_len))) {
		close(fd);
		refuse(f, "the file could not be read");
		return -1;
	}
	a.trusted = trusted_stat(&st);
	a.path = path;
	n = ms_symmsg_put_add(s->frame, &a);
	free(path);
	if (!n) {
		close(fd);
		refuse(f, "the name is too long");
		return -1;
	}
	rc = ms_child_send(s->child, s->frame, n, fd);
	close(fd);
	if (rc < 0)
		return -1;
	f->state = FILE_GIVEN;
	f->gen = s->gen;
	return 0;
}

/* Answer the reader's request for a debug file; deadline moves by the time a fetch took. */
static int serve_debug(struct ms_symbols *s, size_t len, const struct ms_mapping *m, uint64_t *deadline)
{
	struct ms_symmsg_need_debug q;
	uint64_t t0 = ms_child_now_ns();
	char *path = NULL;
	int fd = -1, rc;

	if (ms_symmsg_get_need_debug(s->frame, len, &q) < 0)
		return -1;
	if (m->name_len && !memchr(m->name, '\0', m->name_len))
		path = strndup(m->name, m->name_len);
	fd = find_debug(s, path, q.id, q.id_len, q.debuglink[0] ? q.debuglink : NULL);
	free(path);
	if (fd < 0 && s->fetch) {
		fd = ms_symbols_fetch_debuginfo(s->fetch, q.id, q.id_len);
		*deadline += ms_child_now_ns() - t0;
	}
	rc = ms_child_send(s->child, s->frame, ms_symmsg_put_debug(s->frame, fd >= 0), fd);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Strings of this call's answers: blocks that never move, freed at the next call. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char bytes[];
};

static void arena_reset(struct ms_symbols *s)
{
	while (s->arena) {
		struct arena_block *next = s->arena->next;

		free(s->arena);
		s->arena = next;
	}
}

static const char *arena_keep(struct ms_symbols *s, const char *str)
{
	size_t len;
	char *at;

	if (!str)
		return NULL;
	len = strlen(str) + 1;
	if (!s->arena || s->arena->cap - s->arena->used < len) {
		size_t cap = len > 65536 ? len : 65536;
		struct arena_block *b = malloc(sizeof(*b) + cap);

		if (!b)
			return NULL;
		b->next = s->arena;
		b->used = 0;
		b->cap = cap;
		s->arena = b;
	}
	at = s->arena->bytes + s->arena->used;
	memcpy(at, str, len);
	s->arena->used += len;
	return at;
}

/* An answer's strings moved to the arena, where they outlive the frame buffer. */
static void keep_answer(struct ms_symbols *s, struct ms_symbol *out)
{
	out->name = arena_keep(s, out->name);
	out->file = arena_keep(s, out->file);
	out->comp_dir = arena_keep(s, out->comp_dir);
	out->why = arena_keep(s, out->why);
	if (!out->file)
		out->line = 0;
}

/* Ask the reader about a run of addresses in one frame.  0, or -1 when it is gone. */
static int send_lookup(struct ms_symbols *s, const struct pending *p, size_t count, const uint64_t *addrs,
		       unsigned what)
{
	struct ms_symmsg_lookup q[MS_SYMMSG_MANY_MAX];

	for (size_t k = 0; k < count; k++)
		q[k] = (struct ms_symmsg_lookup){ .file = (uint32_t)(p[k].f - s->files), .addr = addrs[p[k].i],
						  .what = what };
	return ms_child_send(s->child, s->frame, ms_symmsg_put_many(s->frame, q, count), -1);
}

/*
 * Take the answers to a LOOKUP sent (sent false: its send failed), in
 * order, each frame within MS_SYMBOLS_FILE_SECONDS from now or from the
 * frame before.  Returns how many were answered; when the reader ends on
 * entry k, that entry says why, and the caller decides about the rest.
 */
static size_t receive(struct ms_symbols *s, const struct pending *p, size_t count, bool sent,
		      struct ms_symbol *out)
{
	uint64_t began = ms_child_now_ns(), deadline = began + MS_SYMBOLS_FILE_SECONDS * NS_PER_S;
	size_t done = 0;
	long n;
	int fd;

	if (!sent)
		goto ended;
	while (done < count) {
		size_t off = 0;
		int got;

		n = ms_child_recv(s->child, s->frame, MS_CHILD_FRAME_MAX, &fd, deadline,
				  s->opts.interrupt, s->opts.interrupt_arg);
		if (fd >= 0)
			close(fd);
		if (n < 0)
			goto ended;
		if (ms_symmsg_type(s->frame, (size_t)n) == MS_SYMMSG_NEED_DEBUG) {
			if (serve_debug(s, (size_t)n, &s->list->items[out[p[done].i].mapping], &deadline) == 0)
				continue;
			/* A reader that ended while it waited for the debug file (killed, say) is not malformed. */
			if (!ms_child_alive(s->child))
				goto ended;
			goto malformed;
		}
		while (done < count) {
			struct ms_symbol *o = &out[p[done].i];
			long mapping = o->mapping;

			got = ms_symmsg_answers_next(s->frame, (size_t)n, &off, o, s->store, STORE_LEN);
			if (got <= 0)
				break;
			o->mapping = mapping;
			keep_answer(s, o);
			done++;
		}
		/* A frame with no answer, or more than were asked, is not the reader's. */
		if (got < 0 || off == 0 || (done == count && off != (size_t)n))
			goto malformed;
		began = ms_child_now_ns();
		deadline = began + MS_SYMBOLS_FILE_SECONDS * NS_PER_S;
	}
	return done;
malformed:
	ms_child_free(s->child);
	s->child = NULL;
	refuse(p[done].f, "symbols: the reader's answer was malformed");
	goto answer;
ended:
	reader_ended(s, p[done].f, began);
answer:
	{
		long mapping = out[p[done].i].mapping;

		memset(&out[p[done].i], 0, sizeof(out[0]));
		out[p[done].i].mapping = mapping;
		out[p[done].i].why = p[done].f->why;
	}
	return done;
}

/*
 * The file of the mapping covering addr, ready in the reader: 1 (ask the
 * reader), 0 (out says all there is), or MS_ERR_NOMEM.
 */
static int prepare(struct ms_symbols *s, uint64_t addr, struct ms_symbol *out, struct symfile **fp)
{
	const struct ms_mapping *m;
	struct symfile *f;
	size_t idx;
	int rc;

	idx = ms_maplist_lower_bound(s->list, addr);
	if (idx >= s->list->count || s->list->items[idx].start > addr) {
		out->why = "no mapping covers the address";
		return 0;
	}
	out->mapping = (long)idx;
	m = &s->list->items[idx];
	if (!m->inode) {
		out->why = "not a file mapping";
		return 0;
	}
	f = &s->files[file_slot(s, m)];
	if (!f->used && s->nfiles >= s->nfiles_cap / 2) {
		/* A later list (ms_symbols_set_list) may hold more files than the first. */
		out->why = "too many files for one run";
		return 0;
	}
	if (!f->used) {
		s->nfiles++;
		f->used = true;
		f->inode = m->inode;
		f->dev_major = m->dev_major;
		f->dev_minor = m->dev_minor;
	}
	out->why = f->why[0] ? f->why : NULL;
	out->tell = f->tell;
	if (f->state == FILE_REFUSED)
		return 0;
	if ((rc = start_child(s)) < 0) {
		out->why = s->why;
		return rc == MS_ERR_NOMEM ? rc : 0;
	}
	if (f->state == FILE_GIVEN && f->gen != s->gen)
		f->state = FILE_NEW;
	if (f->state == FILE_NEW && (rc = give(s, f, idx)) < 0) {
		if (rc == MS_ERR_NOMEM)
			return rc;
		if (f->state != FILE_REFUSED)
			reader_ended(s, f, ms_child_now_ns());
		out->why = f->why;
		out->tell = f->tell;
		return 0;
	}
	out->why = NULL;
	out->tell = false;
	*fp = f;
	return 1;
}

static int lookup_some(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
		       struct ms_symbol *out);

/*
 * Prepare addresses from *next on (out already cleared) until a frame's
 * worth, count of them in p, needs the reader; the others are answered
 * here.  0, or MS_ERR_NOMEM.
 */
static int prepare_some(struct ms_symbols *s, const uint64_t *addrs, size_t n, size_t *next,
			struct ms_symbol *out, struct pending *p, size_t *count)
{
	*count = 0;
	for (; *next < n && *count < MS_SYMMSG_MANY_MAX; (*next)++) {
		int rc = prepare(s, addrs[*next], &out[*next], &p[*count].f);

		if (rc < 0)
			return rc;
		if (rc == 1)
			p[(*count)++].i = *next;
	}
	return 0;
}

/*
 * The reader answered the first done of count: when it ended on entry
 * done, the others are asked of a new reader, one by one.
 */
static int recover(struct ms_symbols *s, const struct pending *p, size_t count, size_t done,
		   const uint64_t *addrs, unsigned what, struct ms_symbol *out)
{
	bool interrupted;

	if (done == count)
		return 0;
	interrupted = !strcmp(out[p[done].i].why, "symbols: interrupted");
	for (size_t k = done + 1; k < count; k++) {
		struct ms_symbol *o = &out[p[k].i];
		int rc;

		memset(o, 0, sizeof(*o));
		o->mapping = -1;
		if (interrupted) {
			o->why = out[p[done].i].why;
			continue;
		}
		if ((rc = lookup_some(s, &addrs[p[k].i], 1, what, o)) < 0)
			return rc;
	}
	return 0;
}

/* Look up addrs (out already cleared), asking the reader a frame's worth at a time. */
static int lookup_some(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
		       struct ms_symbol *out)
{
	struct pending p[MS_SYMMSG_MANY_MAX];
	size_t next = 0, count, done;
	int rc;

	while (next < n) {
		if ((rc = prepare_some(s, addrs, n, &next, out, p, &count)) < 0)
			return rc;
		if (!count)
			break;
		done = receive(s, p, count, send_lookup(s, p, count, addrs, what) == 0, out);
		if ((rc = recover(s, p, count, done, addrs, what, out)) < 0)
			return rc;
	}
	return 0;
}

_Static_assert(MS_SYMBOLS_ASK_MAX == MS_SYMMSG_MANY_MAX, "an ask is one LOOKUP frame");

int ms_symbols_ask(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
		   struct ms_symbol *out)
{
	struct asked *a;
	int rc;

	if (s->asked && s->asked->on && (rc = ms_symbols_take(s)) < 0)
		return rc;
	if (!s->asked && !(s->asked = malloc(sizeof(*s->asked))))
		return MS_ERR_NOMEM;
	a = s->asked;
	*a = (struct asked){ .addrs = addrs, .n = n, .what = what, .out = out };
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].mapping = -1;
		if (s->image) {
			out[i].mapping = 0;
			ms_dw_lookup(s->image, 0, addrs[i], what, &out[i]);
		}
	}
	if (s->image)
		return 0;
	a->on = true;
	if ((rc = prepare_some(s, addrs, n, &a->next, out, a->p, &a->count)) < 0) {
		a->on = false;
		return rc;
	}
	a->sent = a->count && send_lookup(s, a->p, a->count, addrs, what) == 0;
	return 0;
}

int ms_symbols_take(struct ms_symbols *s)
{
	struct asked *a = s->asked;
	int rc = 0;

	if (!a || !a->on)
		return 0;
	a->on = false;
	arena_reset(s);
	if (a->count) {
		size_t done = receive(s, a->p, a->count, a->sent, a->out);

		rc = recover(s, a->p, a->count, done, a->addrs, a->what, a->out);
	}
	if (rc == 0 && a->next < a->n)
		rc = lookup_some(s, a->addrs + a->next, a->n - a->next, a->what, a->out + a->next);
	/*
	 * The directories the walks kept (the files', the debug folders') serve
	 * this call's walks only: a context may live as long as a view stays
	 * open, and they would pin their mounts that long.
	 */
	if (s->have_roots)
		ms_walk_dircache_clear(s->ours.dirs);
	return rc;
}

int ms_symbols_lookup_many(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
			   struct ms_symbol *out)
{
	int rc = ms_symbols_ask(s, addrs, n, what, out);

	return rc < 0 ? rc : ms_symbols_take(s);
}

int ms_symbols_lookup(struct ms_symbols *s, uint64_t addr, unsigned what, struct ms_symbol *out)
{
	int rc = ms_symbols_lookup_many(s, &addr, 1, what, out);

	return rc < 0 ? rc : out->mapping < 0 ? MS_END : 0;
}

int ms_symbols_new(struct ms_proc *proc, const struct ms_maplist *list,
		   const struct ms_symbols_opts *opts, struct ms_symbols **out, struct ms_error *err)
{
	struct ms_symbols *s;
	size_t cap = 16;
	int rc;

	if (!ms_dw_available())
		return ms_error_set(err, MS_ERR_NOTSUP, 0, "symbols: %s could not be loaded", DW_SONAME);
	if (!(s = calloc(1, sizeof(*s))))
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	s->proc = proc;
	s->list = list;
	if (opts)
		s->opts = *opts;
	/* One slot per mapping at most, and the table never fuller than half. */
	while (cap < 2 * list->count + 16)
		cap *= 2;
	if (cap > 2 * MS_DW_FILES_MAX)
		cap = 2 * MS_DW_FILES_MAX;
	s->nfiles_cap = cap;
	if (!(s->files = calloc(cap, sizeof(*s->files))) || !(s->frame = malloc(MS_CHILD_FRAME_MAX + 1)) ||
	    !(s->store = malloc(STORE_LEN)) || ms_lookup_cache_new(&s->lookups, err) < 0) {
		ms_symbols_free(s);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	/*
	 * The reader loads libdw while the files are walked and handed over
	 * (untrusted_child.h: the start does not wait for it).  Out of memory
	 * is said now; another failure is said by the lookups, in s->why.
	 */
	if (start_child(s) == MS_ERR_NOMEM) {
		ms_symbols_free(s);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	rc = ms_fstypes_load(proc, &s->fstypes, err);
	if (rc < 0) {
		ms_symbols_free(s);
		return rc;
	}
	rc = ms_symbols_fetch_new(s->opts.debuginfod, s->opts.debuginfod_seconds, s->opts.progress,
				  s->opts.progress_arg, &s->fetch);
	if (rc < 0) {
		ms_symbols_free(s);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

int ms_symbols_image_new(const unsigned char *buf, size_t len, uint64_t base,
			 struct ms_symbols **out, struct ms_error *err)
{
	struct ms_symbols *s = calloc(1, sizeof(*s));
	const char *why;
	int rc;

	*out = NULL;
	if (!s)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = ms_dw_new(NULL, NULL, &s->image);
	/* The span is the image's own length: enough room for a library's segments. */
	if (rc == 0)
		rc = ms_dw_add_image(s->image, 0, buf, len, base, base + (len | 0xfff) + 1, &why, err);
	if (rc != 0) {
		if (rc == MS_ERR_NOMEM || rc == MS_ERR_NOTSUP)
			ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
		ms_symbols_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ms_symbols_image_check(struct ms_symbols *s, struct ms_error *err)
{
	return s->image ? ms_dw_check(s->image, 0, err) : 0;
}

void ms_symbols_set_list(struct ms_symbols *s, const struct ms_maplist *list)
{
	s->list = list;
}

void ms_symbols_free(struct ms_symbols *s)
{
	if (!s)
		return;
	ms_child_free(s->child);
	arena_reset(s);
	free(s->asked);
	ms_dw_free(s->image);
	free(s->files);
	free(s->frame);
	free(s->store);
	if (s->have_roots) {
		ms_lookup_root_release(&s->root);
		ms_lookup_root_release(&s->ours);
	}
	ms_lookup_cache_free(s->lookups);
	ms_fstypes_free(s->fstypes);
	ms_symbols_fetch_free(s->fetch);
	free(s);
}
