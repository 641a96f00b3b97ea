/*
 * sbom_hash.c - the SHA-256 of each file no package owns, found again after
 * the walk through the mapping that named its row, within the budget: see
 * sbom.h.  Two passes over the files, each opening every process once: the
 * first finds each file's owner and size, the budget is planned on those
 * (sbom_budget.c), and the second hashes what the plan picked.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/sbom.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"

_Static_assert(MS_SBOM_HASH_FILE_MAX == 64u << 20 && MS_SBOM_HASH_TOTAL_MAX == 512u << 20 &&
	       MS_SBOM_HASH_FILES == 4096, "the reasons name the bounds");

struct pass {
	struct ms_libtable *t;
	struct ms_sbom *s;
	struct ms_digest *digest;   /* NULL: libcrypto is not available */
	struct ms_sbom_cand *cands; /* one per file component, in component order */
	size_t *idx;                /* cands by the process whose mapping names them */
	size_t n;
};

/* What a pass does with a file it could open: 0, or -1 when out of memory. */
typedef int (*pass_fn)(struct pass *p, struct ms_sbom_cand *c, int fd, const struct stat *st);

static const struct ms_libtable_row *row_of(const struct pass *p, const struct ms_sbom_cand *c)
{
	return &p->t->rows[p->s->items[c->item].rows[0]];
}

/* By process, then in component order. */
static int cmp_map_proc(const void *pa, const void *pb, void *arg)
{
	const struct pass *p = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	size_t a = row_of(p, &p->cands[ia])->map_proc, b = row_of(p, &p->cands[ib])->map_proc;

	return a != b ? (a > b) - (a < b) : (ia > ib) - (ia < ib);
}

/* c gets no hash, and why: it leaves the passes.  -1 when out of memory. */
static int skip(struct pass *p, struct ms_sbom_cand *c, const char *why)
{
	c->plan = MS_SBOM_PLAN_NONE;
	return (p->s->items[c->item].hash_why = strdup(why)) ? 0 : -1;
}

/* Row r's file, opened from proc as sbom.h says and checked to be r's inode; -1 with why. */
static int open_row(struct ms_libtable *t, const struct ms_lookup_root *root, const struct ms_proc *proc,
		    const struct ms_libtable_row *r, struct stat *st, char *why, size_t why_size)
{
	struct ms_mapping m = { .start = r->map_start, .end = r->map_end, .inode = r->inode,
				.dev_major = r->dev_major, .dev_minor = r->dev_minor, .name = r->name,
				.name_len = r->name_len, .name_ambiguous = r->name_ambiguous };
	int fd = ms_mapfiles_open_mapped(t->lookups, root, proc, &m, NULL, why, why_size, NULL);

	if (fd < 0) {
		if (fd == MS_ERR_NOMEM)
			snprintf(why, why_size, "out of memory");
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || (uint64_t)st->st_ino != r->inode) {
		snprintf(why, why_size, "the file changed under us");
		close(fd);
		return -1;
	}
	return fd;
}

/* The candidates of idx[from, to) still in the passes (plan HASH), all mapped by proc; fn on each opened. */
static int visit(struct pass *p, const struct ms_proc *proc, size_t from, size_t to, pass_fn fn)
{
	struct ms_lookup_root root;
	char why[160];
	int rc = 0;

	ms_lookup_root_of(p->t->lookups, proc, &root);
	for (size_t k = from; rc == 0 && k < to; k++) {
		struct ms_sbom_cand *c = &p->cands[p->idx[k]];
		struct stat st;
		int fd;

		if (c->plan != MS_SBOM_PLAN_HASH)
			continue;
		if (root.fd < 0) {
			rc = skip(p, c, "the process's root cannot be opened");
			continue;
		}
		why[0] = '\0';
		fd = open_row(p->t, &root, proc, row_of(p, c), &st, why, sizeof(why));
		rc = fd < 0 ? skip(p, c, why) : fn(p, c, fd, &st);
		if (fd >= 0)
			close(fd);
	}
	ms_lookup_root_release(&root);
	return rc;
}

/* fn on every candidate still in the passes, each process opened once. */
static int each_by_proc(struct pass *p, pass_fn fn)
{
	for (size_t i = 0, j; i < p->n; i = j) {
		size_t map_proc = row_of(p, &p->cands[p->idx[i]])->map_proc;
		struct ms_proc *proc = NULL;
		struct ms_error err;
		bool any = false;
		int rc = 0;

		for (j = i; j < p->n && row_of(p, &p->cands[p->idx[j]])->map_proc == map_proc; j++)
			any |= p->cands[p->idx[j]].plan == MS_SBOM_PLAN_HASH;
		if (!any)
			continue;
		if (map_proc < p->t->nprocs && ms_proc_open(p->t->procs[map_proc].pid, &proc, &err) == 0) {
			rc = visit(p, proc, i, j, fn);
			ms_proc_close(proc);
		} else {
			for (size_t k = i; rc == 0 && k < j; k++)
				if (p->cands[p->idx[k]].plan == MS_SBOM_PLAN_HASH)
					rc = skip(p, &p->cands[p->idx[k]], "the process that mapped it went away");
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The first pass: the owner and size the plan needs. */
static int note_owner(struct pass *p, struct ms_sbom_cand *c, int fd, const struct stat *st)
{
	(void)fd;
	if ((uint64_t)st->st_size > MS_SBOM_HASH_FILE_MAX)
		return skip(p, c, "larger than 64 MiB: not hashed");
	c->uid = st->st_uid;
	c->size = (uint64_t)st->st_size;
	return 0;
}

/* The second pass: the file is still the one planned for (owner, size), and the bounds hold here too. */
static int hash_one(struct pass *p, struct ms_sbom_cand *c, int fd, const struct stat *st)
{
	struct ms_sbom_component *item = &p->s->items[c->item];
	struct ms_sbom *s = p->s;
	char why[160];

	if (st->st_uid != c->uid || (uint64_t)st->st_size != c->size)
		return skip(p, c, "the file changed under us");
	if (s->hashed_files >= MS_SBOM_HASH_FILES)
		return skip(p, c, MS_SBOM_WHY_FILES);
	if (c->size > MS_SBOM_HASH_TOTAL_MAX - s->hashed_bytes)
		return skip(p, c, MS_SBOM_WHY_BYTES);
	s->hashed_files++;
	s->hashed_bytes += c->size;
	if (!ms_digest_fd(p->digest, fd, c->size, item->sha256, why, sizeof(why)))
		return skip(p, c, why);
	item->hashed = true;
	return 0;
}

/* Those the plan left out, and why. */
static int budget_reasons(struct pass *p)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < p->n; i++) {
		struct ms_sbom_cand *c = &p->cands[i];

		if (c->plan == MS_SBOM_PLAN_FILES || c->plan == MS_SBOM_PLAN_BYTES) {
			p->s->budget_skipped++;
			rc = skip(p, c, c->plan == MS_SBOM_PLAN_FILES ? MS_SBOM_WHY_FILES : MS_SBOM_WHY_BYTES);
		}
	}
	return rc;
}

int ms_sbom_hash_files(struct ms_libtable *t, struct ms_sbom *s)
{
	struct pass p = { .t = t, .s = s, .n = s->count - s->npackages };
	int rc = MS_ERR_NOMEM;
	char why[256];

	if (!p.n)
		return 0;
	p.cands = calloc(p.n, sizeof(*p.cands));
	p.idx = malloc(p.n * sizeof(*p.idx));
	if (!p.cands || !p.idx)
		goto out;
	for (size_t i = 0; i < p.n; i++) {
		p.cands[i].item = s->npackages + i;
		p.cands[i].plan = MS_SBOM_PLAN_HASH;
		p.idx[i] = i;
	}
	qsort_r(p.idx, p.n, sizeof(*p.idx), cmp_map_proc, &p);
	/* Without libcrypto, no file has a hash, and each says why. */
	if (!(p.digest = ms_digest_new(NULL, why, sizeof(why))))
		for (size_t i = 0; i < p.n; i++)
			if (skip(&p, &p.cands[i], why) < 0)
				goto out;
	if (each_by_proc(&p, note_owner) < 0 ||
	    ms_sbom_budget_plan(p.cands, p.n, MS_SBOM_HASH_FILES, MS_SBOM_HASH_TOTAL_MAX) < 0 ||
	    budget_reasons(&p) < 0 || each_by_proc(&p, hash_one) < 0)
		goto out;
	for (size_t i = 0; i < p.n; i++)
		s->unhashed_files += !s->items[s->npackages + i].hashed;
	rc = 0;
out:
	ms_digest_free(p.digest);
	free(p.cands);
	free(p.idx);
	return rc;
}
