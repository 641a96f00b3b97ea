/* libtable.c - the machine's mapped files, one row per file: see libtable.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/hash.h"
#include "elf/elfdyn.h"
#include "elf/verdef.h"
#include "files/facts.h"
#include "files/filematch.h"
#include "files/libtable.h"
#include "untrusted/nameproof.h"
#include "files/libtable_res.h"
#include "maps/ancestry.h"
#include "stale/ignore.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"

/* What one ms_libtable_add needs while it looks at one process. */
struct libtable_visit {
	struct ms_libtable *t;
	struct ms_stale_ctx *ctx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	size_t proc_index;   /* in t->procs, once recorded; SIZE_MAX before */
	bool have_root;
	struct ms_lookup_root root;
};

int ms_libtable_init(struct ms_libtable *t, const struct ms_libtable_opts *opts, struct ms_error *err)
{
	memset(t, 0, sizeof(*t));
	if (opts)
		t->opts = *opts;
	if (ms_lookup_cache_new(&t->lookups, err) < 0)
		return MS_ERR_NOMEM;
	/* Workers of one server climb to the same parents; NULL (no memory): each is read every time. */
	t->ancestry = ms_ancestry_new();
	return 0;
}

void ms_libtable_free(struct ms_libtable *t)
{
	for (size_t i = 0; i < t->count; i++) {
		struct ms_libtable_row *r = &t->rows[i];

		free(r->name);
		free(r->alt_name);
		free(r->why);
		free(r->soname);
		free(r->soname_why);
		free(r->libver);
		free(r->pkg);
		free(r->uses);
	}
	free(t->rows);
	free(t->procs);
	free(t->slots);
	free(t->elf);
	ms_lookup_cache_free(t->lookups);
	ms_ancestry_free(t->ancestry);
	memset(t, 0, sizeof(*t));
}

static uint64_t key_hash(uint32_t major, uint32_t minor, uint64_t inode)
{
	return ms_hash_mix(ms_hash_mix(ms_hash_seed(), ((uint64_t)major << 32) | minor), inode);
}

/* The slot of the row with this key, or the empty slot where it would go. */
static size_t find_slot(const struct ms_libtable *t, uint32_t major, uint32_t minor, uint64_t inode)
{
	size_t mask = t->nslots - 1, i = (size_t)key_hash(major, minor, inode) & mask;

	while (t->slots[i]) {
		const struct ms_libtable_row *r = &t->rows[t->slots[i] - 1];

		if (r->inode == inode && r->dev_major == major && r->dev_minor == minor)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

struct ms_libtable_row *ms_libtable_find(const struct ms_libtable *t, uint32_t major, uint32_t minor,
					 uint64_t inode)
{
	size_t slot;

	if (!t->nslots)
		return NULL;
	slot = find_slot(t, major, minor, inode);
	return t->slots[slot] ? &t->rows[t->slots[slot] - 1] : NULL;
}

/* Keep the hash at most half full.  0 or -1. */
static int grow_slots(struct ms_libtable *t)
{
	size_t *old = t->slots, nold = t->nslots, n = nold ? nold * 2 : 256;

	if (t->count + 1 <= nold / 2)
		return 0;
	t->slots = calloc(n, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -1;
	}
	t->nslots = n;
	for (size_t i = 0; i < t->count; i++)
		t->slots[find_slot(t, t->rows[i].dev_major, t->rows[i].dev_minor, t->rows[i].inode)] = i + 1;
	free(old);
	return 0;
}

/*
 * Does the visited process live under another root?  Asked once, and only
 * where it matters (libtable.h): the answer costs a stat of its root.
 */
static bool visit_other_root(struct libtable_visit *v)
{
	struct ms_libtable_proc *p = &v->t->procs[v->proc_index];

	if (!p->root_known) {
		p->other_root = ms_stale_ctx_other_root(v->ctx, v->proc);
		p->has_container = p->other_root && ms_container_of(v->proc, &p->container) == 0;
		p->root_known = true;
	}
	return p->other_root;
}

/* The process's record, added at its first row. */
static int record_proc(struct libtable_visit *v, struct ms_error *err)
{
	struct ms_libtable *t = v->t;
	struct ms_libtable_proc *p;

	if (v->proc_index != SIZE_MAX)
		return 0;
	if (ms_grow((void **)&t->procs, &t->procs_cap, t->nprocs, sizeof(*t->procs), 64) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	p = &t->procs[t->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = ms_proc_pid(v->proc);
	v->proc_index = t->nprocs++;
	if (t->opts.what & MS_LIBTABLE_PROCS) {
		memcpy(p->comm, ms_proc_stat_at_open(v->proc)->comm, sizeof(p->comm));
		visit_other_root(v);
	}
	return 0;
}

_Static_assert(MS_LIBTABLE_SONAME_READS == 8192, "the reason names the bound");

static void soname_unknown(struct ms_libtable_row *r, const char *why)
{
	r->soname_rc = r->libver_rc = MS_ERR_LIMIT;
	r->soname_why = strdup(why);
}

/* The first mapping of f, as the scan saw it (names borrowed). */
static struct ms_mapping first_mapping(const struct ms_stale_file *f)
{
	struct ms_mapping m = { .start = f->first_addr, .end = f->first_end, .inode = f->inode,
				.dev_major = f->dev_major, .dev_minor = f->dev_minor,
				.name = f->name, .name_len = f->name_len, .name_ambiguous = f->name_ambiguous,
				.build_id_len = f->build_id_len, .build_id_skipped = f->build_id_skipped };

	memcpy(m.build_id, f->build_id, sizeof(m.build_id));
	return m;
}

/* The SONAME and LIBVER of the file f maps, read once for its row, from one open (libtable.h). */
static int read_soname(struct libtable_visit *v, struct ms_libtable_row *r, const struct ms_stale_file *f,
		       const struct ms_mapping *m)
{
	char soname[MS_SONAME_MAX + 1], libver[MS_VERDEF_NAME_MAX + 1], why[160] = "";
	struct ms_error e = { 0 };
	int fd;

	if (f->name_ambiguous || !f->name_len || f->name[0] != '/') {
		soname_unknown(r, "the name is not a path to look up");
		return 0;
	}
	if (!v->have_root) {
		ms_lookup_root_of(v->t->lookups, v->proc, &v->root);
		v->have_root = true;
	}
	if (v->root.fd < 0) {
		soname_unknown(r, "the process's root cannot be opened");
		return 0;
	}
	if (v->t->soname_reads >= MS_LIBTABLE_SONAME_READS) {
		soname_unknown(r, "too many files: SONAMEs are read for the first 8192");
		return 0;
	}
	v->t->soname_reads++;
	fd = ms_mapfiles_open_mapped(v->t->lookups, &v->root, v->proc, m, NULL, why, sizeof(why), NULL);
	if (fd == MS_ERR_NOMEM)
		return fd;
	if (fd < 0) {
		soname_unknown(r, why);
		return 0;
	}
	if (!v->t->elf && !(v->t->elf = malloc(sizeof(*v->t->elf)))) {
		close(fd);
		return MS_ERR_NOMEM;
	}
	r->soname_rc = r->libver_rc = ms_elfdyn_open_fd(v->t->elf, fd, &e);
	if (r->soname_rc == 0)
		r->soname_rc = ms_soname_of(v->t->elf, soname, &e);
	if (r->soname_rc == 0)
		r->soname = strdup(soname);
	else if (r->soname_rc != MS_END)
		r->soname_why = strdup(e.msg);
	if (r->libver_rc == 0 && (r->libver_rc = ms_verdef_of(v->t->elf, libver, &e)) == 0)
		r->libver = strdup(libver);
	close(fd);
	return 0;
}

static void read_build_id(struct libtable_visit *v, struct ms_libtable_row *r, const struct ms_stale_file *f)
{
	struct ms_mapping m = first_mapping(f);
	struct ms_error e;

	if (!m.build_id_len && !m.build_id_skipped && ms_maps_build_id_of(v->maps, &m, &e) < 0) {
		r->build_id_why = "the process went away";
		return;
	}
	if (m.inode != f->inode || m.dev_major != f->dev_major || m.dev_minor != f->dev_minor)
		r->build_id_why = "the mapping changed under us";
	else if (m.build_id_len) {
		r->build_id_len = m.build_id_len;
		memcpy(r->build_id, m.build_id, m.build_id_len);
	} else {
		r->build_id_why = m.build_id_skipped ? m.build_id_skipped : "no build ID";
	}
}

/* A new row for f: its facts, read once, and whether the patterns keep it. */
static int new_row(struct libtable_visit *v, const struct ms_stale_file *f, size_t slot,
		   struct ms_libtable_row **out, struct ms_error *err)
{
	struct ms_libtable *t = v->t;
	const struct ms_libtable_opts *o = &t->opts;
	struct ms_mapping m = first_mapping(f);
	struct ms_filematch_hit hit;
	struct ms_libtable_row *r;
	int match;

	if (ms_grow((void **)&t->rows, &t->capacity, t->count, sizeof(*t->rows), 64) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	r = &t->rows[t->count];
	memset(r, 0, sizeof(*r));
	r->name = malloc(f->name_len + 1);
	r->why = strdup(f->result.why);
	if (!r->name || !r->why) {
		free(r->name);
		free(r->why);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	}
	memcpy(r->name, f->name, f->name_len);
	r->name[f->name_len] = '\0';
	r->name_len = f->name_len;
	r->name_ambiguous = f->name_ambiguous;
	r->dev_major = f->dev_major;
	r->dev_minor = f->dev_minor;
	r->inode = f->inode;
	r->verdict = f->result.verdict;
	r->path_ours = f->result.path_ours;
	r->soname_rc = r->libver_rc = 1;
	t->slots[slot] = ++t->count;
	match = o->match ? ms_filematch_test(o->match, v->maps, &m, &hit) : 1;
	if (match < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	r->match_exact = match && o->match && hit.exact;
	/* Its package may match: known after the walk (ms_libtable_packages). */
	if (!match && ms_filematch_wants_packages(o->match))
		match = 1, r->match_pending = true;
	if (match && (o->what & MS_LIBTABLE_SONAME) && read_soname(v, r, f, &m) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	r->kept = match > 0;
	t->kept += r->kept;
	if (r->kept && (o->what & MS_LIBTABLE_BUILD_ID))
		read_build_id(v, r, f);
	*out = r;
	return 0;
}

/* The mapping that names the row, to find its file again later. */
static void note_mapping(struct ms_libtable_row *r, const struct libtable_visit *v, const struct ms_stale_file *f)
{
	r->map_proc = v->proc_index;
	r->map_start = f->first_addr;
	r->map_end = f->first_end;
}

/* The row takes f's name and verdict (a process in our root that names it better). */
static int rename_row(struct ms_libtable_row *r, struct libtable_visit *v, const struct ms_stale_file *f)
{
	struct ms_mapping m = first_mapping(f);
	char *name = malloc(f->name_len + 1), *why = strdup(f->result.why);

	if (!name || !why) {
		free(name);
		free(why);
		return -1;
	}
	memcpy(name, f->name, f->name_len);
	name[f->name_len] = '\0';
	free(r->name);
	free(r->why);
	r->name = name;
	r->why = why;
	r->name_len = f->name_len;
	r->name_ambiguous = f->name_ambiguous;
	r->verdict = f->result.verdict;
	r->path_ours = f->result.path_ours;
	note_mapping(r, v, f);
	/* A SONAME the first name could not reach: once more, through this one. */
	if (r->kept && r->path_ours && (v->t->opts.what & MS_LIBTABLE_SONAME) && r->soname_rc == MS_ERR_LIMIT) {
		free(r->soname_why);
		r->soname_why = NULL;
		return read_soname(v, r, f, &m);
	}
	return 0;
}

/* Does f name r's file better than r's name: proven where r's is not, from our root? */
static bool better_name(struct libtable_visit *v, const struct ms_libtable_row *r, const struct ms_stale_file *f)
{
	return r->host && !r->path_ours && f->result.path_ours && !visit_other_root(v);
}

/* Is f another proven name, from our root, of a file whose name is proven: its first? */
static bool another_name(struct libtable_visit *v, const struct ms_libtable_row *r, const struct ms_stale_file *f)
{
	size_t a = ms_name_strip_deleted(r->name, r->name_len), b = ms_name_strip_deleted(f->name, f->name_len);

	return r->host && r->path_ours && !r->alt_name && f->result.path_ours && !f->name_ambiguous &&
	       f->name_len && f->name[0] == '/' && (a != b || memcmp(r->name, f->name, a)) && !visit_other_root(v);
}

/* f's name for r's file, when it names it better or is its first other name.  0 or -1. */
static int note_name(struct libtable_visit *v, struct ms_libtable_row *r, const struct ms_stale_file *f)
{
	if (better_name(v, r, f))
		return rename_row(r, v, f);
	if (!another_name(v, r, f))
		return 0;
	if (!(r->alt_name = malloc(f->name_len + 1)))
		return -1;
	memcpy(r->alt_name, f->name, f->name_len);
	r->alt_name[f->name_len] = '\0';
	r->alt_len = f->name_len;
	return 0;
}

/* The process maps f: its row (new or not), and the process among its uses. */
static int add_file(struct libtable_visit *v, const struct ms_stale_file *f, struct ms_error *err)
{
	struct ms_libtable *t = v->t;
	struct ms_libtable_row *r = NULL;
	struct ms_libtable_use *u;
	size_t slot;
	int rc;

	if (!f->mappings)
		return 0; /* the executable, not mapped any more: no file of this table */
	if (grow_slots(t) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	slot = find_slot(t, f->dev_major, f->dev_minor, f->inode);
	if (t->slots[slot]) {
		r = &t->rows[t->slots[slot] - 1];
	} else if (t->count >= MS_LIBTABLE_ROWS_MAX) {
		t->dropped++;
		return 0;
	} else if ((rc = new_row(v, f, slot, &r, err)) < 0) {
		return rc;
	}
	if (!r || !r->kept)
		return 0;
	if ((rc = record_proc(v, err)) < 0)
		return rc;
	/* One file under two names is two files of the scan, one use here. */
	if (r->nuses && r->uses[r->nuses - 1].proc == v->proc_index) {
		r->uses[r->nuses - 1].mappings += f->mappings;
		if (note_name(v, r, f) < 0)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
		return 0;
	}
	if (ms_grow((void **)&r->uses, &r->uses_cap, r->nuses, sizeof(*r->uses), 4) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	u = &r->uses[r->nuses++];
	*u = (struct ms_libtable_use){ .proc = v->proc_index, .mappings = f->mappings };
	if (r->nuses == 1)
		note_mapping(r, v, f);
	if (r->host && (r->path_ours || !f->result.path_ours))
		return note_name(v, r, f) < 0 ? ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory") : 0;
	if (!visit_other_root(v)) {
		/* The first name seen from our root, proven if any is: the one our package databases know. */
		if ((r->nuses > 1 || (r->host && !r->path_ours)) && rename_row(r, v, f) < 0)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
		r->host = true;
	} else if (r->nuses == 1) {
		r->where_proc = v->proc_index;
	}
	return 0;
}

/* Does an ancestor's mapping m hold the stale copy f? */
static bool holds_copy(void *arg, const struct ms_mapping *m)
{
	const struct ms_stale_file *f = arg;

	return m->inode == f->inode && m->dev_major == f->dev_major && m->dev_minor == f->dev_minor;
}

int ms_libtable_add(struct ms_libtable *t, struct ms_stale_ctx *ctx, struct ms_proc *proc,
		    struct ms_maps *maps, struct ms_error *err)
{
	struct ms_stale_list files = { 0 };
	struct libtable_visit v = { .t = t, .ctx = ctx, .proc = proc, .maps = maps,
				    .proc_index = SIZE_MAX };
	int rc = ms_stale_scan(ctx, maps, t->opts.scan_flags, &files, err);

	for (size_t i = 0; rc == 0 && i < files.count; i++) {
		const struct ms_stale_file *f = &files.items[i];
		struct ms_libtable_row *r;

		rc = add_file(&v, f, err);
		/*
		 * An old copy: the earliest start among its holders dates it, and
		 * among the ancestors that map it too (ancestry.h), so that a
		 * worker's parent counts whether the walk met it or not.
		 */
		if (rc == 0 && ms_stale_verdict_is_stale(f->result.verdict) &&
		    (r = ms_libtable_find(t, f->dev_major, f->dev_minor, f->inode))) {
			const struct ms_proc_stat *st = ms_proc_stat_at_open(proc);
			unsigned long long start = ms_ancestry_mapped_since_in(t->ancestry, st->start_time, st->ppid,
									       holds_copy, (void *)f);

			if (!r->since_known || start < r->since)
				r->since = start;
			r->since_known = true;
			if (!r->unlinked.tv_sec)
				r->unlinked = f->result.unlinked;
		}
	}
	if (v.have_root)
		ms_lookup_root_release(&v.root);
	ms_stale_list_free(&files);
	if (rc == 0 && v.proc_index != SIZE_MAX && (t->opts.what & (MS_LIBTABLE_RSS | MS_LIBTABLE_PSS)))
		rc = ms_libtable_residency(t, v.proc_index, proc, maps, err);
	return rc;
}

static bool wants_package(const struct ms_libtable_row *r)
{
	return r->kept && r->host && r->path_ours && !r->name_ambiguous && r->name[0] == '/';
}

/* found[] (one per row that wants a package, in order): old copies get the version that ran. */
static int running_versions(struct ms_libtable *t, struct ms_owner *db, struct ms_pkg *found, size_t n,
			    struct ms_error *err)
{
	size_t k = 0, j = 0;
	struct ms_pkg *old;
	struct ms_copy *copies;
	time_t btime;
	struct ms_error why;
	int rc = 0;

	for (size_t i = 0, at = 0; i < t->count; i++)
		if (wants_package(&t->rows[i])) {
			k += t->rows[i].since_known && found[at].found;
			at++;
		}
	if (!k)
		return 0;
	old = calloc(k, sizeof(*old));
	copies = calloc(k, sizeof(*copies));
	if (!old || !copies)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	if (ms_boot_time(&btime, &why) < 0)
		btime = 0;
	for (size_t i = 0, at = 0; rc == 0 && i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (!wants_package(r))
			continue;
		if (r->since_known && found[at].found) {
			old[j] = found[at];
			copies[j++] = (struct ms_copy){
				.start = btime ? ms_proc_started_at(r->since, btime) : 0,
				.unlinked = r->unlinked,
				.pid = t->procs[r->map_proc].pid,
				.addr = r->map_start,
				.end = r->map_end,
				.ino = r->inode,
				.dev_major = r->dev_major,
				.dev_minor = r->dev_minor,
			};
		}
		at++;
	}
	if (rc == 0)
		rc = ms_owner_running(db, old, copies, k, err);
	for (size_t i = 0, at = 0, o = 0; old && i < t->count && at < n; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (!wants_package(r))
			continue;
		if (r->since_known && found[at].found) {
			found[at] = old[o++];
			/* An old copy nothing could date: not the installed version either. */
			if (found[at].running_state == MS_PKG_RUNNING_INSTALLED)
				found[at].running_state = MS_PKG_RUNNING_UNKNOWN;
		}
		at++;
	}
	free(old);
	free(copies);
	return rc;
}

/* Who can write the source of an answer: dpkg's and rpm's databases are root's; a RECORD may be a user's. */
static int rank(const struct ms_pkg *p)
{
	if (!p->found)
		return 0;
	return p->source == MS_PKG_SOURCE_DPKG || p->source == MS_PKG_SOURCE_RPM ? 2 : 1;
}

/* The answer for a row from its name's (*p) and its other name's (alt): false on a conflict. */
static bool settle(struct ms_pkg *p, const struct ms_pkg *alt)
{
	if (rank(alt) > rank(p)) {
		*p = *alt;
		return true;
	}
	return rank(alt) < rank(p) || !alt->found ||
	       (alt->source == p->source && !strcmp(alt->name, p->name) && !strcmp(alt->version, p->version));
}

/*
 * After the package lookup: a candidate is kept when its package matches,
 * and a row that matched a part of its name is exact when its package is
 * the whole pattern.
 */
static void settle_matches(struct ms_libtable *t)
{
	const struct ms_filematch *fm = t->opts.match;

	if (!ms_filematch_wants_packages(fm))
		return;
	for (size_t i = 0; i < t->count; i++) {
		struct ms_libtable_row *r = &t->rows[i];
		struct ms_filematch_hit hit;
		bool match = r->kept && r->pkg && r->pkg->found &&
			     ms_filematch_test_package(fm, r->pkg->name, r->pkg->src_name, &hit);

		if (match)
			r->match_exact |= hit.exact;
		if (r->match_pending && !match && r->kept) {
			r->kept = false;
			t->kept--;
		}
		r->match_pending = false;
	}
}

/* ms_libtable_packages's lookup. */
static int lookup_packages(struct ms_libtable *t, struct ms_owner *db, const char **why, struct ms_error *err)
{
	const char **paths = NULL;
	struct ms_pkg *found = NULL;
	size_t *lens = NULL, n = 0, nalt = 0, k = 0;
	bool *conflict = NULL;
	int rc = 0;

	if (why)
		*why = NULL;
	for (size_t i = 0; i < t->count; i++) {
		struct ms_libtable_row *r = &t->rows[i];

		n += wants_package(r);
		nalt += wants_package(r) && r->alt_name;
		if (r->kept && !wants_package(r)) {
			r->pkg_known = true;
			r->pkg_why = !r->host ? "the processes live under another root"
				     : !r->path_ours && r->name[0] == '/' && !r->name_ambiguous ? MS_NAME_WHY_NOT_OURS
				     : "the name is not a path to look up";
		}
	}
	if (!n)
		return 0;
	paths = calloc(n + nalt, sizeof(*paths));
	lens = calloc(n + nalt, sizeof(*lens));
	found = calloc(n + nalt, sizeof(*found));
	conflict = calloc(n, sizeof(*conflict));
	if (!paths || !lens || !found || !conflict)
		rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
	/* Each row's name first, in row order; then the other names, in the same order. */
	for (size_t i = 0, j = n; rc == 0 && i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (!wants_package(r))
			continue;
		paths[k] = r->name;
		lens[k++] = ms_name_strip_deleted(r->name, r->name_len);
		if (r->alt_name) {
			paths[j] = r->alt_name;
			lens[j++] = ms_name_strip_deleted(r->alt_name, r->alt_len);
		}
	}
	if (rc == 0 && db)
		rc = ms_owner_find(db, paths, lens, n + nalt, found, err);
	for (size_t i = 0, at = 0, j = n; rc == 0 && db && i < t->count; i++) {
		const struct ms_libtable_row *r = &t->rows[i];

		if (!wants_package(r))
			continue;
		if (r->alt_name)
			conflict[at] = !settle(&found[at], &found[j++]);
		at++;
	}
	if (rc == 0 && db)
		rc = running_versions(t, db, found, n, err);
	if (rc == 0 && why && !ms_owner_has_db(db))
		*why = "not a dpkg or rpm system";
	for (size_t i = 0, at = 0; rc == 0 && i < t->count; i++) {
		struct ms_libtable_row *r = &t->rows[i];

		if (!wants_package(r))
			continue;
		r->pkg_known = true;
		if (conflict[at]) {
			r->pkg_why = MS_LIBTABLE_WHY_CONFLICT;
			at++;
			continue;
		}
		if (!found[at++].found)
			continue;
		r->pkg = malloc(sizeof(*r->pkg));
		if (!r->pkg) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libs: out of memory");
			break;
		}
		*r->pkg = found[at - 1];
	}
	free(paths);
	free(lens);
	free(found);
	free(conflict);
	return rc;
}

int ms_libtable_packages(struct ms_libtable *t, struct ms_owner *db, const char **why,
			 struct ms_error *err)
{
	int rc = lookup_packages(t, db, why, err);

	if (rc == 0)
		settle_matches(t);
	return rc;
}

int ms_libtable_row_cmp(const struct ms_libtable_row *x, const struct ms_libtable_row *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);

	if (x->match_exact != y->match_exact)
		return x->match_exact ? -1 : 1;
	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* A SONAME or LIBVER cell: the name, "" for none, "?" unknown, NULL not asked. */
static const char *elf_name_cell(int rc, const char *name)
{
	return rc == 1 ? NULL : rc == 0 && name ? name : rc == MS_END ? "" : "?";
}

bool ms_libtable_row_res_known(const struct ms_libtable_row *r)
{
	for (size_t i = 0; i < r->nuses; i++)
		if (!r->uses[i].res_known)
			return false;
	return r->nuses > 0;
}

/* RSS when read; PSS, USS and DIRTY only from smaps (MS_LIBTABLE_PSS). */
static void size_facts(const struct ms_libtable *t, bool known, uint64_t rss, uint64_t pss, uint64_t uss,
		       uint64_t dirty, struct ms_fact_src *s)
{
	bool smaps = known && t && (t->opts.what & MS_LIBTABLE_PSS);

	s->size_known[MS_FACT_RSS - MS_FACT_RSS] = known && t;
	s->size[MS_FACT_RSS - MS_FACT_RSS] = rss;
	s->size_known[MS_FACT_PSS - MS_FACT_RSS] = smaps;
	s->size[MS_FACT_PSS - MS_FACT_RSS] = pss;
	s->size_known[MS_FACT_USS - MS_FACT_RSS] = smaps;
	s->size[MS_FACT_USS - MS_FACT_RSS] = uss;
	s->size_known[MS_FACT_DIRTY - MS_FACT_RSS] = smaps;
	s->size[MS_FACT_DIRTY - MS_FACT_RSS] = dirty;
}

void ms_libtable_use_facts(const struct ms_libtable *t, const struct ms_libtable_use *u, struct ms_fact_src *s)
{
	memset(s, 0, sizeof(*s));
	size_facts(t, u->res_known, u->rss, u->pss, u->uss, u->dirty, s);
}

void ms_libtable_row_facts(const struct ms_libtable *t, const struct ms_libtable_row *r, struct ms_fact_src *s)
{
	memset(s, 0, sizeof(*s));
	size_facts(t, ms_libtable_row_res_known(r), r->rss, r->pss, r->uss, r->dirty, s);
	s->pkg_known = r->pkg_known;
	s->pkg = r->pkg && r->pkg->found ? r->pkg : NULL;
	s->pkg_why = r->pkg_why;
	s->build_id = r->build_id;
	s->build_id_len = r->build_id_len;
	s->soname = elf_name_cell(r->soname_rc, r->soname);
	s->libver = elf_name_cell(r->libver_rc, r->libver);
	s->verdict_known = true;
	s->verdict = r->verdict;
}
