#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "stale/stale.h"
#include "stale/stale_group.h"
#include "stale/stale_list.h"
#include "stale/stale_memo.h"
#include "elf/lookup_buildid.h"
#include "untrusted/lookup.h"
#include "untrusted/nameproof.h"
#include "untrusted/untrusted_walk.h"

struct ms_stale_ctx {
	const struct ms_ignore *ignore;
	struct ms_lookup_cache *cache;
	/* The root of the last process judged: consecutive verdicts share it. */
	struct ms_lookup_root root;
	unsigned long long root_serial; /* of the process handle it belongs to; 0: none */
	struct ms_stale_memo memo; /* "ok" verdicts under our root (stale_memo.h) */
	size_t memo_hits;
	size_t group_probes; /* of the last scan */
	bool no_ignored_proof; /* ms_stale_ctx_no_ignored_proof */
};

static const char *const verdict_names[MS_STALE_VERDICT_COUNT] = {
	[MS_STALE_OK] = "ok",
	[MS_STALE_SAME_BUILD] = "same-build",
	[MS_STALE_IGNORED] = "ignored",
	[MS_STALE_UNKNOWN] = "unknown",
	[MS_STALE_REPLACED] = "replaced",
	[MS_STALE_DELETED] = "deleted",
};

const char *ms_stale_verdict_name(enum ms_stale_verdict v)
{
	return (unsigned)v < MS_STALE_VERDICT_COUNT ? verdict_names[v] : "?";
}

int ms_stale_verdict_parse(const char *s, enum ms_stale_verdict *out)
{
	for (int v = 0; v < MS_STALE_VERDICT_COUNT; v++) {
		const char *n = verdict_names[v];
		size_t i = 0;

		while (n[i] && (s[i] == n[i] || (n[i] == '-' && (s[i] == '_' || s[i] == ' '))))
			i++;
		if (!n[i] && !s[i]) {
			*out = (enum ms_stale_verdict)v;
			return 0;
		}
	}
	return -1;
}

bool ms_stale_verdict_is_stale(enum ms_stale_verdict v)
{
	return v == MS_STALE_DELETED || v == MS_STALE_REPLACED;
}

int ms_stale_ctx_new(const struct ms_ignore *ignore, struct ms_stale_ctx **out,
		     struct ms_error *err)
{
	struct ms_stale_ctx *ctx = calloc(1, sizeof(*ctx));
	int rc;

	if (!ctx)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = ms_lookup_cache_new(&ctx->cache, err);
	if (rc < 0) {
		free(ctx);
		return rc;
	}
	ctx->ignore = ignore;
	ctx->root.fd = -1;
	*out = ctx;
	return 0;
}

static void drop_root(struct ms_stale_ctx *ctx)
{
	ms_lookup_root_release(&ctx->root);
	ctx->root_serial = 0;
}

void ms_stale_ctx_forget(struct ms_stale_ctx *ctx)
{
	drop_root(ctx);
	ms_lookup_cache_forget(ctx->cache);
	ms_stale_memo_clear(&ctx->memo);
}

void ms_stale_ctx_no_ignored_proof(struct ms_stale_ctx *ctx)
{
	ctx->no_ignored_proof = true;
}

size_t ms_stale_ctx_group_probes(const struct ms_stale_ctx *ctx)
{
	return ctx->group_probes;
}

size_t ms_stale_ctx_memo_hits(const struct ms_stale_ctx *ctx)
{
	return ctx->memo_hits;
}

void ms_stale_ctx_free(struct ms_stale_ctx *ctx)
{
	if (!ctx)
		return;
	drop_root(ctx);
	ms_lookup_cache_free(ctx->cache);
	ms_stale_memo_free(&ctx->memo);
	free(ctx);
}

/*
 * The root for proc, looked up again only for another process handle (one
 * handle is one process: its directory pins it).
 */
static const struct ms_lookup_root *root_for(struct ms_stale_ctx *ctx, const struct ms_proc *proc,
					     bool settle)
{
	if (ctx->root_serial != ms_proc_serial(proc)) {
		drop_root(ctx);
		ms_lookup_root_guess(ctx->cache, proc, &ctx->root);
		ctx->root_serial = ms_proc_serial(proc);
	}
	if (settle)
		ms_lookup_root_settle(ctx->cache, proc, &ctx->root);
	return &ctx->root;
}

static int verdict(struct ms_stale_result *out, enum ms_stale_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int verdict(struct ms_stale_result *out, enum ms_stale_verdict v, const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	out->path_ours = false;
	out->unlinked = (struct timespec){ 0, 0 };
	/* Most verdicts are a fixed sentence, one per file of every process. */
	if (!strchr(fmt, '%')) {
		size_t n = strnlen(fmt, sizeof(out->why) - 1);

		memcpy(out->why, fmt, n);
		out->why[n] = '\0';
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * The mapping being judged: a shallow copy (the name stays the caller's)
 * whose build ID is asked for only when a verdict turns on it.
 */
struct subject {
	struct ms_mapping m;
	struct ms_maps *maps; /* the engine to ask through */
	bool asked;
	/* The last judge_under's verdict came from the name's proof alone: the path holds m. */
	bool proven_same;
	size_t pos; /* m's position in its process's list of files; SIZE_MAX: none */
};

/*
 * s's mapping with its build ID: asked from the kernel once, through the
 * engine, if the record came without one.  Where it cannot be asked, the
 * reason goes where the engine puts one for a file it does not read, so
 * no verdict blames the mapping for a build ID nobody asked for.
 */
static const struct ms_mapping *with_build_id(struct subject *s)
{
	struct ms_mapping *m = &s->m;
	int rc;

	if (s->asked || m->build_id_len || m->build_id_skipped)
		return m;
	s->asked = true;
	if (m->start >= m->end)
		return m; /* not a mapping (the executable, when it maps nothing scanned) */
	rc = ms_maps_build_id_of(s->maps, m, NULL);
	if (rc == MS_ERR_NOTSUP)
		m->build_id_skipped = "the kernel cannot give it (PROCMAP_QUERY came in Linux 6.11)";
	else if (rc < 0)
		m->build_id_skipped = "the kernel's answer for the mapping failed";
	return m;
}

/* A file other than the mapped one is at the path: replaced, same-build or unknown. */
static int judge_other_file(const struct ms_lookup_root *root, const char *path, size_t len,
			    struct ms_lookup *l, struct subject *s, bool marked_deleted,
			    struct ms_stale_result *out)
{
	const struct ms_mapping *m = &s->m;
	bool same_inode = l->inode == m->inode;
	char hex[2 * MS_BUILD_ID_MAX + 1];

	/*
	 * btrfs reports a per-subvolume device in stat (btrfs_getattr) and
	 * overlayfs its own, while the mapping carries the backing superblock's:
	 * for a name the kernel still links, an equal inode is the same file.
	 */
	if (l->unreliable_fs && same_inode && !marked_deleted)
		return verdict(out, MS_STALE_OK, "the path holds the mapped inode (%s device numbers differ by design)",
			       l->unreliable_fs);
	/* From here on the answer may turn on the mapping's build ID. */
	m = with_build_id(s);
	if (m->build_id_len > 0)
		ms_lookup_build_id(root, path, len, l);
	if (m->build_id_len > 0 && l->bid_state == MS_LOOKUP_BID_HAVE) {
		if (l->bid_len == m->build_id_len && !memcmp(l->bid, m->build_id, l->bid_len)) {
			ms_buildid_hex(m->build_id, m->build_id_len, hex);
			return verdict(out, MS_STALE_SAME_BUILD,
				       "the path holds another file with the same build ID %s: identical code", hex);
		}
		return verdict(out, MS_STALE_REPLACED, "the path holds another file (inode %" PRIu64 ", mapped %" PRIu64
			       ") with a different build ID", l->inode, m->inode);
	}
	if (m->build_id_len > 0 && l->bid_state == MS_LOOKUP_BID_REFUSED)
		return verdict(out, MS_STALE_UNKNOWN, "another file is at the path; its build ID was not read: %s",
			       l->bid_why);
	/* On btrfs a different inode number is a different file, whatever the device says. */
	if (l->unreliable_fs && (same_inode || strcmp(l->unreliable_fs, "btrfs") != 0))
		return verdict(out, MS_STALE_UNKNOWN, "%s: device numbers do not identify files, and no build IDs to compare",
			       l->unreliable_fs);
	return verdict(out, MS_STALE_REPLACED, "the path holds another file (dev %" PRIu32 ":%" PRIu32 " inode %" PRIu64
		       ", mapped %" PRIu32 ":%" PRIu32 " inode %" PRIu64 "); %s%s",
		       l->dev_major, l->dev_minor, l->inode, m->dev_major, m->dev_minor, m->inode,
		       m->build_id_skipped ? "build ID not read: " : "",
		       m->build_id_skipped ? m->build_id_skipped :
		       m->build_id_len == 0 ? "the mapping has no build ID to compare" :
		       l->bid_state == MS_LOOKUP_BID_NONE ? "the new file has no build ID" :
		       "the new file's build ID could not be read");
}

/*
 * The kernel does not mark the mapped file deleted, yet the path holds
 * another: a name from elsewhere, or a replacement made after the name was
 * read.  The kernel's name now tells which: proven again with it, when it
 * changed and the mapping is still the same file.
 */
static int prove_again(struct ms_stale_ctx *ctx, const struct ms_lookup_root *root, struct subject *s,
		       struct ms_mapping *fresh, struct ms_name_proof *p)
{
	const struct ms_mapping *m = &s->m;

	if (m->start >= m->end || ms_maps_at(s->maps, m->start, fresh, NULL) < 0)
		return 0;
	if (fresh->inode != m->inode || fresh->dev_major != m->dev_major || fresh->dev_minor != m->dev_minor ||
	    !fresh->name || (fresh->name_len == m->name_len && !memcmp(fresh->name, m->name, m->name_len)))
		return 0;
	s->m.name = fresh->name;
	s->m.name_len = fresh->name_len;
	return ms_name_prove(ctx->cache, root, ms_maps_proc(s->maps), &s->m, p);
}

/*
 * Judge m by its path under root, on the word of the name's proof
 * (nameproof.h).  *found (may be NULL) says whether the path, less a
 * " (deleted)" mark, names anything there.
 */
static int judge_under(struct ms_stale_ctx *ctx, const struct ms_lookup_root *root,
		       struct subject *s, struct ms_stale_result *out, bool *found)
{
	struct ms_mapping fresh = { 0 };
	char *name = s->m.name;
	size_t name_len = s->m.name_len;
	struct ms_name_proof p;
	int rc;

	s->proven_same = false;
	if (found)
		*found = false;
	rc = ms_name_prove(ctx->cache, root, ms_maps_proc(s->maps), &s->m, &p);
	if (rc == 0 && p.kind == MS_NAME_NOT_OURS && p.recheck)
		rc = prove_again(ctx, root, s, &fresh, &p);
	if (rc < 0)
		goto out;
	if (found)
		*found = p.l && p.l->err != ENOENT && p.l->err != ENOTDIR;
	s->proven_same = p.kind == MS_NAME_SAME && !fresh.name;
	switch (p.kind) {
	case MS_NAME_SAME:
		verdict(out, MS_STALE_OK, p.relinked ? "unlinked from one name, but the path links the mapped file again"
						     : "the path holds the mapped file");
		break;
	case MS_NAME_GONE:
		verdict(out, MS_STALE_DELETED, "unlinked, and no file is at the path now");
		break;
	case MS_NAME_NOT_OURS:
		verdict(out, MS_STALE_UNKNOWN, "%s: %s", p.why, p.detail);
		break;
	case MS_NAME_UNKNOWN:
		if (p.why)
			verdict(out, MS_STALE_UNKNOWN, "%s", p.why);
		else
			verdict(out, MS_STALE_UNKNOWN, "cannot look the path up: %s", strerror(p.err));
		break;
	case MS_NAME_OTHER:
	case MS_NAME_FUZZY:
		judge_other_file(root, s->m.name, p.len, p.l, s, p.marked, out);
		break;
	}
	out->path_ours = ms_name_is_path(p.kind);
	out->unlinked = p.unlinked;
out:
	s->m.name = name;
	s->m.name_len = name_len;
	ms_mapping_reset(&fresh);
	return rc;
}

/*
 * A chroot in our namespace, either way round: the name may hold under the
 * process's root (the kernel could not reach the file from ours) or under
 * ours.  The mapped file found under either is the answer; otherwise the
 * process's own root judges where its path names anything, ours where not.
 */
static int judge_two_roots(struct ms_stale_ctx *ctx, const struct ms_lookup_root *own,
			   struct subject *s, struct ms_stale_result *out)
{
	struct ms_stale_result under_ours;
	struct ms_lookup_root ours;
	bool found_own;

	if (judge_under(ctx, own, s, out, &found_own) < 0)
		return MS_ERR_NOMEM;
	if (out->verdict == MS_STALE_OK)
		return 0;
	ms_lookup_root_ours(ctx->cache, &ours);
	if (judge_under(ctx, &ours, s, &under_ours, NULL) < 0)
		return MS_ERR_NOMEM;
	if (under_ours.verdict == MS_STALE_OK || !found_own)
		*out = under_ours;
	return 0;
}

struct ms_lookup_cache *ms_stale_ctx_lookups(struct ms_stale_ctx *ctx)
{
	return ctx->cache;
}

const struct ms_lookup_root *ms_stale_ctx_root(struct ms_stale_ctx *ctx, const struct ms_proc *proc)
{
	return root_for(ctx, proc, true);
}

bool ms_stale_ctx_other_root(struct ms_stale_ctx *ctx, const struct ms_proc *proc)
{
	const struct ms_lookup_root *root = root_for(ctx, proc, true);

	return root->fd >= 0 && !root->ours;
}

/*
 * Ignored by a rule, but a file still (under /tmp, say): whether its name
 * is a path here is proven all the same, for the facts that rest on it (a
 * venv's package).  That holds on an anonymous device too (major 0): a
 * tmpfs /tmp, /dev/shm, overlayfs and btrfs all are.  Only the memory the
 * kernel names like a file (a memfd, SysV shared memory: mapping.h) is
 * never looked up.
 */
static int ignored(struct ms_stale_ctx *ctx, const struct ms_proc *proc, const struct ms_mapping *m,
		   const char *reason, struct ms_stale_result *out)
{
	const struct ms_lookup_root *root;
	struct ms_name_proof p;

	verdict(out, MS_STALE_IGNORED, "%s", reason);
	if (ctx->no_ignored_proof || ms_mapping_not_a_file(m) || (root = root_for(ctx, proc, true))->fd < 0)
		return 0;
	if (ms_name_prove(ctx->cache, root, proc, m, &p) < 0)
		return MS_ERR_NOMEM;
	out->path_ours = ms_name_is_path(p.kind);
	return 0;
}

/* Keep an "ok" that rests on the name's proof alone under our root, for the next holder (stale_memo.h). */
static int remember_ok(struct ms_stale_ctx *ctx, const struct ms_lookup_root *root, const struct subject *s,
		       const struct ms_stale_result *out)
{
	if (root->ours && !root->also_ours && s->proven_same && out->verdict == MS_STALE_OK)
		ms_stale_memo_add(&ctx->memo, &s->m, out, s->pos);
	return 0;
}

static int judge(struct ms_stale_ctx *ctx, struct subject *s, struct ms_stale_result *out)
{
	const struct ms_proc *proc = ms_maps_proc(s->maps);
	const struct ms_mapping *m = &s->m;
	const struct ms_stale_result *kept;
	const struct ms_lookup_root *root;
	const char *reason;

	if (!ms_mapping_is_file_backed(m))
		return verdict(out, MS_STALE_IGNORED, "anonymous memory");
	if (m->name_truncated)
		return verdict(out, MS_STALE_UNKNOWN, "the kernel could not give the path: longer than PATH_MAX");
	if (m->name_ambiguous)
		return verdict(out, MS_STALE_UNKNOWN, "the maps text cannot tell a newline from the characters \\012 "
			       "in this path, and PROCMAP_QUERY could not say which: not looked up");
	if (!m->name || m->name_len == 0 || m->name[0] != '/')
		return verdict(out, MS_STALE_IGNORED, "not a path on a filesystem");
	reason = ms_ignore_match(ctx->ignore, m->name, m->name_len);
	if (reason)
		return ignored(ctx, proc, m, reason, out);
	root = root_for(ctx, proc, false);
	if (root->fd < 0)
		return verdict(out, MS_STALE_UNKNOWN, "cannot open the process's root: %s",
			       root->why ? root->why : strerror(root->err));
	if (root->ours && !root->also_ours && (kept = ms_stale_memo_find(&ctx->memo, m, s->pos))) {
		*out = *kept;
		ctx->memo_hits++;
		return 0;
	}
	/*
	 * In our mount namespace, a file that holds under our root is current
	 * whatever the process's root (judge_two_roots takes ours when it
	 * holds there): only a file that does not needs the process's root
	 * checked, which saves a stat per process in a fleet walk.
	 */
	if (root->unsettled) {
		if (judge_under(ctx, root, s, out, NULL) < 0)
			return MS_ERR_NOMEM;
		if (out->verdict == MS_STALE_OK)
			return remember_ok(ctx, root, s, out);
		root = root_for(ctx, proc, true);
		if (root->fd < 0)
			return verdict(out, MS_STALE_UNKNOWN, "cannot open the process's root: %s",
				       root->why ? root->why : strerror(root->err));
		/* Settled as our own root: the verdict just made under it stands. */
		if (root->ours)
			return 0;
	}
	if (!root->also_ours) {
		if (judge_under(ctx, root, s, out, NULL) < 0)
			return MS_ERR_NOMEM;
		return remember_ok(ctx, root, s, out);
	}
	return judge_two_roots(ctx, root, s, out);
}

int ms_stale_judge(struct ms_stale_ctx *ctx, struct ms_maps *maps,
		   const struct ms_mapping *m, struct ms_stale_result *out)
{
	struct subject s = { .m = *m, .maps = maps, .pos = SIZE_MAX };

	return judge(ctx, &s, out);
}

unsigned ms_stale_filter(unsigned flags)
{
	if (flags & MS_STALE_ALL_MAPPINGS)
		return MS_FILTER_FILE_BACKED;
	return MS_FILTER_FILE_BACKED | MS_FILTER_EXECUTABLE;
}

/* The one file of the list named exactly name, or NULL (none, or two). */
static struct ms_stale_file *only_named(struct ms_stale_list *list, const char *name, size_t len)
{
	struct ms_stale_file *found = NULL;

	for (size_t i = 0; i < list->count; i++) {
		struct ms_stale_file *f = &list->items[i];

		if (f->name_ambiguous || f->name_len != len || memcmp(f->name, name, len))
			continue;
		if (found)
			return NULL;
		found = f;
	}
	return found;
}

/*
 * /proc/PID/exe: readlink gives its name (d_path, as for mappings) and stat
 * follows the link to the running inode.  Kernel threads have none.
 *
 * Most often the executable is mapped, under the very name readlink gives
 * (both are d_path of one dentry, " (deleted)" included once it was
 * replaced or deleted): that file is marked without a stat, which spares
 * every process an O_PATH open, a mount check and a stat.  Only a name
 * that no mapping, or two, carry is settled by the stat.  Two files of one
 * name are possible only where a mount hides one path under another; the
 * mark is shown, never judged on, so a wrong one there costs nothing else.
 */
static int add_exe(struct ms_stale_ctx *ctx, struct ms_stale_list *list, struct ms_stale_scratch *pool,
		   struct ms_stale_group *g, const struct ms_proc *proc)
{
	const struct ms_lookup_root *root;
	struct ms_mapping m = { 0 };
	struct ms_walk_root wr;
	struct ms_stale_file *f;
	const char *why;
	char name[4096];
	struct stat st;
	ssize_t n;

	n = readlinkat(ms_proc_dirfd(proc), "exe", name, sizeof(name));
	if (n <= 0 || (size_t)n == sizeof(name))
		return 0;
	f = only_named(list, name, (size_t)n);
	if (f) {
		f->is_exe = true;
		return 0;
	}
	/*
	 * A program run from a user's FUSE mount: a stat of it may wait on the
	 * daemon for ever.  Its mappings are judged as they are; it is only not
	 * marked as the executable.
	 */
	root = root_for(ctx, proc, false);
	wr = ms_lookup_walk_root(root);
	if (!root->mounts || root->fd < 0 || ms_walk_stat_link(ms_proc_dirfd(proc), "exe", &wr, &st, &why) < 0)
		return 0;
	f = ms_stale_group_find_inode(g, list, major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino);
	if (f) {
		f->is_exe = true;
		return 0;
	}
	m.inode = (uint64_t)st.st_ino;
	m.dev_major = major(st.st_dev);
	m.dev_minor = minor(st.st_dev);
	m.name = name;
	m.name_len = (size_t)n;
	f = ms_stale_list_add(list, pool, g, &m);
	if (!f)
		return MS_ERR_NOMEM;
	f->is_exe = true;
	return 0;
}

static int collect(struct ms_maps *maps, unsigned filter, bool build_ids, struct ms_stale_list *list,
		   struct ms_stale_scratch *pool, struct ms_stale_group *g, struct ms_error *err)
{
	struct ms_mapping m = { 0 };
	uint64_t addr = 0;
	unsigned fields;
	int rc;

	ms_stale_list_clear(list, pool);
	ms_stale_group_free(g);
	ms_stale_group_init(g);
	/*
	 * Without build IDs: with them the kernel reads every mapped file's ELF
	 * headers on every query (build_id_parse in do_procmap_query), and only
	 * files replaced on disk need one (ms_stale_judge asks for those).
	 */
	fields = ms_maps_set_fields(maps, build_ids ? MS_FIELDS_ALL : MS_FIELD_NAME);
	while ((rc = ms_maps_next(maps, addr, filter, &m, err)) == 0) {
		addr = m.end;
		if (ms_stale_list_group(list, pool, g, &m) < 0) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					  (int)ms_proc_pid(ms_maps_proc(maps)));
			break;
		}
	}
	ms_mapping_reset(&m);
	ms_maps_set_fields(maps, fields);
	return rc == MS_END ? 0 : rc;
}

/* Judge files [from, list->count) of the list. */
static int judge_from(struct ms_stale_ctx *ctx, struct ms_maps *maps, struct ms_stale_list *list, size_t from,
		      struct ms_error *err)
{
	for (size_t i = from; i < list->count; i++) {
		struct ms_stale_file *f = &list->items[i];
		struct subject s = { .maps = maps, .pos = i };

		/* The file's first mapping stands for it: the build ID is asked for there. */
		s.m.start = f->first_addr;
		s.m.end = f->first_end;
		s.m.inode = f->inode;
		s.m.dev_major = f->dev_major;
		s.m.dev_minor = f->dev_minor;
		s.m.name = f->name;
		s.m.name_len = f->name_len;
		s.m.name_ambiguous = f->name_ambiguous;
		s.m.build_id_len = f->build_id_len;
		memcpy(s.m.build_id, f->build_id, sizeof(s.m.build_id));
		s.m.build_id_skipped = f->build_id_skipped;
		if (judge(ctx, &s, &f->result) < 0)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					    (int)ms_proc_pid(ms_maps_proc(maps)));
		f->build_id_len = s.m.build_id_len;
		memcpy(f->build_id, s.m.build_id, sizeof(f->build_id));
		f->build_id_skipped = s.m.build_id_skipped;
	}
	return 0;
}

/* Is any file of the list other than current or ignored (so shown by default)? */
static bool any_flagged(const struct ms_stale_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].result.verdict != MS_STALE_OK && list->items[i].result.verdict != MS_STALE_IGNORED)
			return true;
	return false;
}

/* The mappings another thread walked (stale_prefetch.h), grouped as collect would. */
static int group_walked(const struct ms_maplist *walked, struct ms_stale_list *list,
			struct ms_stale_scratch *pool, struct ms_stale_group *g, struct ms_proc *proc,
			struct ms_error *err)
{
	ms_stale_list_clear(list, pool);
	for (size_t i = 0; i < walked->count; i++)
		if (ms_stale_list_group(list, pool, g, &walked->items[i]) < 0)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)ms_proc_pid(proc));
	return 0;
}

static int scan(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags, const struct ms_maplist *walked,
		struct ms_stale_list *list, struct ms_stale_scratch *pool, struct ms_error *err)
{
	struct ms_proc *proc = ms_maps_proc(maps);
	struct ms_stale_group group;
	size_t mapped;
	int rc;

	ms_stale_group_init(&group);
	if (walked)
		rc = group_walked(walked, list, pool, &group, proc, err);
	else
		rc = collect(maps, ms_stale_filter(flags), flags & MS_STALE_BUILD_IDS, list, pool, &group, err);
	if (rc == MS_ERR_EXECED) {
		rc = ms_maps_reopen(maps, err);
		if (rc == 0)
			rc = collect(maps, ms_stale_filter(flags), flags & MS_STALE_BUILD_IDS, list, pool, &group,
				     err);
	}
	mapped = list->count;
	if (rc == 0)
		rc = judge_from(ctx, maps, list, 0, err);
	/* The executable: see MS_STALE_MARK_EXE. */
	if (rc == 0 && ((flags & MS_STALE_MARK_EXE) || !mapped || any_flagged(list))) {
		if (add_exe(ctx, list, pool, &group, proc) < 0)
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)ms_proc_pid(proc));
		else
			rc = judge_from(ctx, maps, list, mapped, err);
	}
	ctx->group_probes = group.probes;
	ms_stale_group_free(&group);
	return rc;
}

int ms_stale_scan(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
		  struct ms_stale_list *list, struct ms_error *err)
{
	return scan(ctx, maps, flags, NULL, list, NULL, err);
}

int ms_stale_scan_scratch(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
			  const struct ms_maplist *walked, struct ms_stale_scratch *s, struct ms_error *err)
{
	return scan(ctx, maps, flags, walked, &s->list, s, err);
}

/* A deleted file that a rule left out, not memory named like a file. */
static bool ignored_deleted(const struct ms_stale_file *f)
{
	struct ms_mapping m;

	/* Most files are not ignored: no mapping built for them. */
	if (f->result.verdict != MS_STALE_IGNORED || !f->name_len || f->name[0] != '/' ||
	    ms_mapping_name_undeleted(f->name, f->name_len) == f->name_len)
		return false;
	m = (struct ms_mapping){ .name = f->name, .name_len = f->name_len, .dev_major = f->dev_major };
	return !ms_mapping_not_a_file(&m);
}

void ms_stale_counts_add(struct ms_stale_counts *c, const struct ms_stale_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		enum ms_stale_verdict v = list->items[i].result.verdict;

		c->files[v]++;
		if (ms_stale_verdict_is_stale(v))
			c->stale++;
		c->ignored_deleted += ignored_deleted(&list->items[i]);
	}
}

int ms_stale_count(struct ms_stale_ctx *ctx, struct ms_maps *maps, unsigned flags,
		   struct ms_stale_counts *out, struct ms_error *err)
{
	struct ms_stale_list list = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ms_stale_scan(ctx, maps, flags, &list, err);
	if (rc == 0)
		ms_stale_counts_add(out, &list);
	ms_stale_list_free(&list);
	return rc;
}

struct ms_copy ms_stale_file_copy(const struct ms_stale_file *f, pid_t pid)
{
	return (struct ms_copy){
		.unlinked = f->result.unlinked,
		.pid = f->mappings ? pid : 0,
		.addr = f->first_addr,
		.end = f->first_end,
		.ino = f->inode,
		.dev_major = f->dev_major,
		.dev_minor = f->dev_minor,
	};
}
