#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/hash.h"
#include "elf/soname.h"
#include "files/filematch.h"
#include "stale/stale.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"
#include "untrusted/untrusted_walk.h"

struct pattern {
	char *text;       /* as typed */
	size_t len;
	bool is_path;
	bool plain;       /* no '/' and no glob character, with ms_filematch_substrings */
	bool has_target;  /* a file is at the path now */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *names[2];   /* the kernel's spellings of the path (is_path) */
	size_t name_lens[2];
	size_t nnames;
};

/* What one file's SONAME matched: a bit per pattern. */
struct soname_slot {
	bool used;
	bool settled;     /* read, or its contents said no SONAME can be read */
	bool failed;      /* not read (yet): every try so far failed */
	unsigned long long tried_by; /* the process handle of the last failed try */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint64_t matched;
	uint64_t exact;   /* of matched, the patterns the whole SONAME is */
};

/*
 * One process's name for a file may not be a path here (nameproof.h) while
 * another's is: a failed open is tried again through the next process that
 * maps the file, once per process, so the first name seen never decides
 * for all.  That costs at most one try per file a process maps, as the
 * walk itself does.
 */

struct ms_filematch {
	struct pattern patterns[MS_FILEMATCH_MAX];
	size_t count;
	bool any_name;    /* a pattern without '/': SONAMEs are wanted */
	bool substrings;  /* plain names match substrings and packages (libs) */
	bool any_plain;
	struct ms_lookup_cache *lookups;
	/* The root of the last process whose files were read: consecutive reads share it. */
	struct ms_lookup_root root;
	unsigned long long root_serial; /* its process handle's; 0: none */
	struct soname_slot *slots;      /* open addressing; nslots a power of two */
	size_t nslots, nused;
	size_t reads;
	char unknown_why[160];
	bool capped;
	struct ms_stale_ctx *stale;     /* for ms_filematch_copy, made at its first call */
	char base[PATH_MAX + 1];        /* a base name, NUL-terminated for fnmatch */
};

const char *ms_filematch_how_name(enum ms_filematch_how how)
{
	static const char *const names[] = { "file", "path", "name", "soname", "package" };

	return (unsigned)how < sizeof(names) / sizeof(names[0]) ? names[how] : "?";
}

const char *ms_filecopy_name(enum ms_filecopy copy)
{
	static const char *const names[] = { "current", "replaced", "deleted", "unknown" };

	return (unsigned)copy < sizeof(names) / sizeof(names[0]) ? names[copy] : "?";
}

int ms_filematch_new(struct ms_filematch **out, struct ms_error *err)
{
	struct ms_filematch *fm = calloc(1, sizeof(*fm));
	int rc;

	if (!fm)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	fm->root.fd = -1;
	rc = ms_lookup_cache_new(&fm->lookups, err);
	if (rc < 0) {
		free(fm);
		return rc;
	}
	*out = fm;
	return 0;
}

static void drop_root(struct ms_filematch *fm)
{
	ms_lookup_root_release(&fm->root);
	fm->root_serial = 0;
}

void ms_filematch_free(struct ms_filematch *fm)
{
	if (!fm)
		return;
	for (size_t i = 0; i < fm->count; i++) {
		free(fm->patterns[i].text);
		free(fm->patterns[i].names[0]);
		free(fm->patterns[i].names[1]);
	}
	drop_root(fm);
	ms_lookup_cache_free(fm->lookups);
	ms_stale_ctx_free(fm->stale);
	free(fm->slots);
	free(fm);
}

/*
 * path made absolute against the working directory, with "", "." and ".."
 * components taken out by their text.  NULL when out of memory or the
 * working directory has no name.
 */
static char *absolute(const char *path)
{
	char *cwd = NULL, *joined, *out, *o;
	const char *p;

	if (path[0] != '/' && !(cwd = getcwd(NULL, 0)))
		return NULL;
	if (asprintf(&joined, "%s/%s", cwd ? cwd : "", path) < 0) {
		free(cwd);
		return NULL;
	}
	free(cwd);
	out = malloc(strlen(joined) + 2);
	if (!out) {
		free(joined);
		return NULL;
	}
	o = out;
	for (p = joined; *p;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else if (n && !(n == 1 && p[0] == '.')) {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	free(joined);
	return out;
}

/*
 * The kernel's name for what fd leads to, as /proc/self/fd shows it: d_path
 * against our root, the spelling of mapping names.  malloc'd, or NULL.
 */
static char *name_of_fd(int fd)
{
	char link[32], buf[PATH_MAX + 1];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	if (n <= 0 || (size_t)n >= sizeof(buf) || buf[0] != '/')
		return NULL;
	return strndup(buf, (size_t)n);
}

static void add_name(struct pattern *p, char *name)
{
	if (!name)
		return;
	for (size_t i = 0; i < p->nnames; i++)
		if (!strcmp(p->names[i], name)) {
			free(name);
			return;
		}
	p->names[p->nnames] = name;
	p->name_lens[p->nnames++] = strlen(name);
}

/* Look path up from our root (as ms_walk_stat_ours does) and spell it as the kernel does. */
static int add_path(struct ms_filematch *fm, struct pattern *p, struct ms_error *err)
{
	struct ms_lookup_root ours;
	struct ms_walk_root wr;
	const char *why = NULL;
	struct stat st;
	char *abs = absolute(p->text), *slash, *at;
	int fd;

	if (!abs)
		return ms_error_set(err, errno == ENOMEM ? MS_ERR_NOMEM : MS_ERR_IO, errno,
				    "cannot make the path absolute: %s", strerror(errno));
	ms_lookup_root_ours(fm->lookups, &ours);
	wr = ms_lookup_walk_root(&ours);
	fd = ms_walk_open(&wr, abs, MS_WALK_FOLLOW_LAST, &st, &why);
	if (fd < 0 && fd != -ENOENT && fd != -ENOTDIR) {
		free(abs);
		return ms_error_set(err, MS_ERR_IO, -fd, "%s", why ? why : strerror(-fd));
	}
	if (fd >= 0) {
		p->has_target = true;
		p->dev_major = major(st.st_dev);
		p->dev_minor = minor(st.st_dev);
		p->inode = (uint64_t)st.st_ino;
		add_name(p, name_of_fd(fd));
		close(fd);
	}
	/* A file at the path, deleted or not, is named after its directory's real name. */
	slash = strrchr(abs, '/');
	at = NULL;
	if (slash[1]) {
		char *dir = slash == abs ? strdup("/") : strndup(abs, (size_t)(slash - abs));
		char *dirname = NULL;

		fd = dir ? ms_walk_open(&wr, dir, MS_WALK_FOLLOW_LAST, &st, &why) : -ENOMEM;
		if (fd >= 0 && S_ISDIR(st.st_mode))
			dirname = name_of_fd(fd);
		if (fd >= 0)
			close(fd);
		if (dirname && asprintf(&at, "%s%s", strcmp(dirname, "/") ? dirname : "", slash) < 0)
			at = NULL;
		free(dirname);
		free(dir);
	}
	add_name(p, at ? at : strdup(abs));
	free(abs);
	return p->nnames ? 0 : ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
}

void ms_filematch_substrings(struct ms_filematch *fm)
{
	fm->substrings = true;
}

const char *ms_filematch_scope(const struct ms_filematch *fm)
{
	bool paths = false, names = false;

	for (size_t i = 0; i < fm->count; i++) {
		paths |= fm->patterns[i].is_path;
		names |= !fm->patterns[i].is_path;
	}
	if (fm->any_plain)
		return paths ? "paths, base names, SONAMEs and package names" : "base names, SONAMEs and package names";
	if (names)
		return paths ? "paths, base names and SONAMEs" : "base names and SONAMEs";
	return "paths";
}

bool ms_filematch_wants_packages(const struct ms_filematch *fm)
{
	return fm && fm->any_plain;
}

int ms_filematch_add(struct ms_filematch *fm, const char *text, struct ms_error *err)
{
	struct pattern *p;
	int rc = 0;

	if (!text[0])
		return ms_error_set(err, MS_ERR_INVAL, EINVAL, "an empty name");
	if (fm->count == MS_FILEMATCH_MAX)
		return ms_error_set(err, MS_ERR_INVAL, E2BIG, "more than %d names", MS_FILEMATCH_MAX);
	p = &fm->patterns[fm->count];
	memset(p, 0, sizeof(*p));
	if (!(p->text = strdup(text)))
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	p->len = strlen(text);
	p->is_path = strchr(text, '/') != NULL;
	/* fnmatch(3)'s special characters; a backslash quotes, so it makes a glob too. */
	p->plain = fm->substrings && !p->is_path && !strpbrk(text, "*?[\\");
	if (p->is_path)
		rc = add_path(fm, p, err);
	if (rc < 0) {
		free(p->text);
		free(p->names[0]);
		free(p->names[1]);
		return rc;
	}
	fm->any_name |= !p->is_path;
	fm->any_plain |= p->plain;
	fm->count++;
	return 0;
}

/*
 * name (NUL-terminated) is the pattern, matches its glob, or, for a plain
 * pattern, contains it: then *exact is false.
 */
static bool name_matches(const struct pattern *p, const char *name, size_t len, bool *exact)
{
	*exact = true;
	if (p->len == len && !memcmp(p->text, name, len))
		return true;
	if (p->plain) {
		*exact = false;
		return memmem(name, len, p->text, p->len) != NULL;
	}
	return fnmatch(p->text, name, 0) == 0;
}

static bool path_matches(const struct pattern *p, const struct ms_mapping *m, size_t bare)
{
	for (size_t i = 0; i < p->nnames; i++)
		if ((m->name_len == p->name_lens[i] || bare == p->name_lens[i]) &&
		    !memcmp(m->name, p->names[i], p->name_lens[i]))
			return true;
	return false;
}

static uint64_t slot_hash(const struct ms_mapping *m)
{
	uint64_t h = ms_hash_mix(ms_hash_seed(), m->dev_major);

	return ms_hash_mix(ms_hash_mix(h, m->dev_minor), m->inode);
}

/* m's file's slot: the used one, or the free one where it goes. */
static struct soname_slot *slot_of(struct ms_filematch *fm, const struct ms_mapping *m)
{
	size_t mask = fm->nslots - 1;

	for (size_t i = slot_hash(m) & mask;; i = (i + 1) & mask) {
		struct soname_slot *s = &fm->slots[i];

		if (!s->used || (s->inode == m->inode && s->dev_major == m->dev_major &&
				 s->dev_minor == m->dev_minor))
			return s;
	}
}

/* Room for one more file, the table at most half full; false when out of memory. */
static bool slots_reserve(struct ms_filematch *fm)
{
	struct soname_slot *old = fm->slots;
	size_t n = fm->nslots ? fm->nslots * 2 : 256, oldn = fm->nslots;

	if (2 * (fm->nused + 1) <= fm->nslots)
		return true;
	if (!(fm->slots = calloc(n, sizeof(*fm->slots)))) {
		fm->slots = old;
		return false;
	}
	fm->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i].used) {
			struct ms_mapping key = { .dev_major = old[i].dev_major, .dev_minor = old[i].dev_minor,
						  .inode = old[i].inode };

			*slot_of(fm, &key) = old[i];
		}
	free(old);
	return true;
}

/* A failed try at slot's file, by proc. */
static void soname_unknown(struct ms_filematch *fm, struct soname_slot *slot, const struct ms_proc *proc,
			   const char *why)
{
	if (!fm->unknown_why[0])
		snprintf(fm->unknown_why, sizeof(fm->unknown_why), "%.*s", (int)sizeof(fm->unknown_why) - 1, why);
	slot->failed = true;
	slot->tried_by = ms_proc_serial(proc);
}

/* The root of proc, opened again only for another process handle. */
static const struct ms_lookup_root *root_for(struct ms_filematch *fm, const struct ms_proc *proc)
{
	if (fm->root_serial != ms_proc_serial(proc)) {
		drop_root(fm);
		ms_lookup_root_of(fm->lookups, proc, &fm->root);
		fm->root_serial = ms_proc_serial(proc);
	}
	return &fm->root;
}

/* The patterns m's file's SONAME matches, read once per file: 0 when none, unknown or unread. */
static int soname_matches(struct ms_filematch *fm, struct ms_maps *maps, const struct ms_mapping *m,
			  uint64_t *matched, uint64_t *exact)
{
	const struct ms_lookup_root *root;
	struct soname_slot *slot;
	char soname[MS_SONAME_MAX + 1], why[160];
	struct ms_error err = { 0 };
	int fd, rc;

	*matched = *exact = 0;
	if (fm->nslots && (slot = slot_of(fm, m))->used) {
		*matched = slot->matched;
		*exact = slot->exact;
		if (slot->settled || slot->tried_by == ms_proc_serial(ms_maps_proc(maps)))
			return 0;
	} else {
		if (fm->nused >= MS_FILEMATCH_SONAME_FILES) {
			fm->capped = true;
			return 0;
		}
		if (!slots_reserve(fm))
			return MS_ERR_NOMEM;
		slot = slot_of(fm, m);
		*slot = (struct soname_slot){ .used = true, .dev_major = m->dev_major, .dev_minor = m->dev_minor,
					      .inode = m->inode };
		fm->nused++;
	}
	if (m->name_ambiguous || m->name_truncated || !m->name_len || m->name[0] != '/') {
		soname_unknown(fm, slot, ms_maps_proc(maps), "the name is not a path to look up");
		return 0;
	}
	root = root_for(fm, ms_maps_proc(maps));
	if (root->fd < 0) {
		soname_unknown(fm, slot, ms_maps_proc(maps), "the process's root cannot be opened");
		return 0;
	}
	fm->reads++;
	fd = ms_mapfiles_open_mapped(fm->lookups, root, ms_maps_proc(maps), m, NULL, why, sizeof(why), NULL);
	if (fd == MS_ERR_NOMEM)
		return fd;
	if (fd < 0) {
		soname_unknown(fm, slot, ms_maps_proc(maps), why);
		return 0;
	}
	rc = ms_soname_read_fd(fd, soname, &err);
	close(fd);
	slot->settled = true;
	slot->failed = false;
	if (rc < 0 && rc != MS_END)
		soname_unknown(fm, slot, ms_maps_proc(maps), err.msg);
	for (size_t i = 0; rc == 0 && i < fm->count; i++) {
		bool whole;

		if (!fm->patterns[i].is_path && name_matches(&fm->patterns[i], soname, strlen(soname), &whole)) {
			slot->matched |= UINT64_C(1) << i;
			slot->exact |= whole ? UINT64_C(1) << i : 0;
		}
	}
	*matched = slot->matched;
	*exact = slot->exact;
	return 0;
}

/* The pattern of the hit among those in matched (not 0): the first exact one, else the first. */
static void pick_hit(uint64_t matched, uint64_t exact, struct ms_filematch_hit *hit)
{
	uint64_t bits = matched & exact ? matched & exact : matched;

	for (hit->pattern = 0; !(bits & (UINT64_C(1) << hit->pattern)); hit->pattern++)
		;
	hit->exact = (exact >> hit->pattern) & 1;
}

int ms_filematch_test(struct ms_filematch *fm, struct ms_maps *maps, const struct ms_mapping *m,
		      struct ms_filematch_hit *hit)
{
	size_t bare = ms_mapping_name_undeleted(m->name, m->name_len);
	const char *slash = m->name ? memrchr(m->name, '/', bare) : NULL;
	size_t base_len = slash ? bare - (size_t)(slash + 1 - m->name) : 0;
	bool named = !m->name_truncated && base_len && base_len <= PATH_MAX &&
		     !memchr(slash + 1, '\0', base_len);
	uint64_t matched = 0, exact;
	bool whole;
	int rc;

	hit->exact = true;
	if (named) {
		memcpy(fm->base, slash + 1, base_len);
		fm->base[base_len] = '\0';
	}
	for (size_t i = 0; i < fm->count; i++) {
		const struct pattern *p = &fm->patterns[i];

		hit->pattern = i;
		if (p->is_path && p->has_target && m->inode == p->inode && m->dev_major == p->dev_major &&
		    m->dev_minor == p->dev_minor) {
			hit->how = MS_FILEMATCH_FILE;
			return 1;
		}
		if (p->is_path && !m->name_truncated && path_matches(p, m, bare)) {
			hit->how = MS_FILEMATCH_PATH;
			return 1;
		}
		if (!p->is_path && named && name_matches(p, fm->base, base_len, &whole)) {
			/* A part of a base name: a later pattern may be the whole name. */
			if (!whole) {
				matched |= UINT64_C(1) << i;
				continue;
			}
			hit->how = MS_FILEMATCH_NAME;
			return 1;
		}
	}
	/*
	 * Memory the kernel names like a file (memfd, SysV shm...) has no
	 * SONAME to read, and saying so at every run would only hide the files
	 * that matter.
	 */
	if (fm->any_name && m->inode && !ms_mapping_not_a_file(m)) {
		uint64_t by_soname;

		if ((rc = soname_matches(fm, maps, m, &by_soname, &exact)) < 0)
			return rc;
		if (by_soname) {
			pick_hit(by_soname, exact, hit);
			/* A part of the SONAME does not beat a part of the base name. */
			if (hit->exact || !matched) {
				hit->how = MS_FILEMATCH_SONAME;
				return 1;
			}
		}
	}
	if (!matched)
		return 0;
	pick_hit(matched, 0, hit);
	hit->how = MS_FILEMATCH_NAME;
	return 1;
}

int ms_filematch_test_package(const struct ms_filematch *fm, const char *name, const char *src_name,
			      struct ms_filematch_hit *hit)
{
	uint64_t matched = 0, exact = 0;

	for (size_t i = 0; i < fm->count; i++) {
		const struct pattern *p = &fm->patterns[i];
		bool whole = false, a, b;

		if (!p->plain)
			continue;
		a = name[0] && name_matches(p, name, strlen(name), &whole);
		if (a && whole)
			exact |= UINT64_C(1) << i;
		b = src_name[0] && name_matches(p, src_name, strlen(src_name), &whole);
		if (b && whole)
			exact |= UINT64_C(1) << i;
		matched |= a || b ? UINT64_C(1) << i : 0;
	}
	if (!matched)
		return 0;
	pick_hit(matched, exact, hit);
	hit->how = MS_FILEMATCH_PACKAGE;
	return 1;
}

int ms_filematch_copy(struct ms_filematch *fm, struct ms_maps *maps, const struct ms_mapping *m,
		      const struct ms_filematch_hit *hit, enum ms_filecopy *out, bool *name_ours,
		      struct timespec *unlinked)
{
	struct ms_stale_result verdict;
	int rc;

	*out = hit->how == MS_FILEMATCH_FILE ? MS_FILECOPY_CURRENT : MS_FILECOPY_UNKNOWN;
	if (name_ours)
		*name_ours = false;
	if (unlinked)
		*unlinked = (struct timespec){ 0, 0 };
	if (hit->how == MS_FILEMATCH_FILE && (!name_ours || !maps))
		return 0;
	/* Without a context (our root cannot be opened) the copy stays unknown. */
	if (!fm->stale && (rc = ms_stale_ctx_new(NULL, &fm->stale, NULL)) < 0)
		return rc == MS_ERR_NOMEM ? rc : 0;
	if ((rc = ms_stale_judge(fm->stale, maps, m, &verdict)) < 0)
		return rc;
	if (name_ours)
		*name_ours = verdict.path_ours;
	if (unlinked)
		*unlinked = verdict.unlinked;
	if (hit->how == MS_FILEMATCH_FILE)
		return 0;
	switch (verdict.verdict) {
	case MS_STALE_OK: *out = MS_FILECOPY_CURRENT; break;
	case MS_STALE_SAME_BUILD:
	case MS_STALE_REPLACED: *out = MS_FILECOPY_REPLACED; break;
	case MS_STALE_DELETED: *out = MS_FILECOPY_DELETED; break;
	default: break;
	}
	return 0;
}

size_t ms_filematch_soname_unknown(const struct ms_filematch *fm, const char **why)
{
	size_t unknown = 0;

	for (size_t i = 0; i < fm->nslots; i++)
		unknown += fm->slots[i].used && fm->slots[i].failed;
	if (why)
		*why = fm->capped ? "more files than are read in one run" :
		       unknown ? fm->unknown_why : NULL;
	return unknown + fm->capped;
}

size_t ms_filematch_soname_reads(const struct ms_filematch *fm)
{
	return fm->reads;
}
