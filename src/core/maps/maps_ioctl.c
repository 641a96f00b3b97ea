/*
 * The PROCMAP_QUERY backend.  Kernel behaviour relied on here is from
 * do_procmap_query() in fs/proc/task_mmu.c (v6.11 onwards):
 *   - vma_name_size and build_id_size are in/out, so both are set again
 *     before every call;
 *   - a name that does not fit answers ENAMETOOLONG (the uapi comment says
 *     E2BIG, the code does not); the kernel never copies more than PATH_MAX;
 *   - the build-ID buffer is always BUILD_ID_SIZE_MAX (20) bytes: the path
 *     for a smaller buffer had a double mmput, fixed in early 2026 stable;
 *   - ESRCH: no address space (exited, exec'd, kernel thread);
 *   - ENOTTY: a kernel before 6.11;
 *   - with a build-ID buffer the kernel reads the mapped file
 *     (build_id_parse, lib/buildid.c), which blocks without end on a file
 *     system whose server does not answer.  So a build ID is a second
 *     query at the mapping's start, made only when the first one's device
 *     is one the kernel reads itself (fstype.h); every query returns the
 *     device and inode, so the first needs no buffer;
 *   - the kernel copies the caller's struct in (copy_struct_from_user, which
 *     wants zeros only past its own size, and ours is its size), reads only
 *     size, query_flags, query_addr and the two buffers' addresses and sizes
 *     (an address without its size, or the reverse, is EINVAL), and on
 *     success copies the whole struct back, every output field written.  So
 *     the record is zeroed once per handle and each call sets those seven
 *     inputs: the outputs left from the last answer are never read as input.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif

#include "base/compat.h"
#include "proc/fstype.h"
#include "proc/fstype_shared.h"
#include "maps/maps_backend.h"
#include "maps/text_reader.h"

#define MS_NAME_BUF_START 256

/* The engine's filter and query bits go to the kernel as they are. */
_Static_assert(MS_FILTER_READABLE == PROCMAP_QUERY_VMA_READABLE, "filter bit r");
_Static_assert(MS_FILTER_WRITABLE == PROCMAP_QUERY_VMA_WRITABLE, "filter bit w");
_Static_assert(MS_FILTER_EXECUTABLE == PROCMAP_QUERY_VMA_EXECUTABLE, "filter bit x");
_Static_assert(MS_FILTER_SHARED == PROCMAP_QUERY_VMA_SHARED, "filter bit s");
_Static_assert(MS_FILTER_FILE_BACKED == PROCMAP_QUERY_FILE_BACKED_VMA, "filter: file-backed");
_Static_assert(MS_Q_COVERING_OR_NEXT == PROCMAP_QUERY_COVERING_OR_NEXT_VMA, "covering or next");
_Static_assert((MS_FILTER_ALL & MS_Q_COVERING_OR_NEXT) == 0, "filters and the walk flag apart");

struct ioctl_state {
	struct procmap_query q; /* zeroed once; see above */
	char *name;             /* name_start, or a larger buffer of name_size bytes */
	size_t name_size;
	struct ms_fstypes *fstypes; /* loaded at the first build-ID query */
	bool fstypes_tried;
	const struct ms_fstypes *shared; /* the walk's table of our namespace (fstype_shared.h); not owned */
	bool shared_tried;
	char name_start[MS_NAME_BUF_START];
};

static struct ioctl_state *state_of(struct ms_maps *maps, struct ms_error *err)
{
	struct ioctl_state *st = maps->state;

	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	if (!st) {
		ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)ms_proc_pid(maps->proc));
		return NULL;
	}
	st->name = st->name_start;
	st->name_size = MS_NAME_BUF_START;
	maps->state = st;
	return st;
}

static int grow_name(struct ioctl_state *st)
{
	size_t next = st->name_size * 2;
	char *buf;

	if (next > PATH_MAX)
		next = PATH_MAX;
	/* The kernel writes the whole name again: nothing to keep. */
	buf = malloc(next);
	if (!buf)
		return -1;
	if (st->name != st->name_start)
		free(st->name);
	st->name = buf;
	st->name_size = next;
	return 0;
}

/*
 * Why a query failed, with errno as the ioctl left it: 1 to ask again
 * (EINTR; a larger name buffer; no name at all for one longer than
 * PATH_MAX), else what the query answers.  Apart from the success path, so
 * that the per-mapping loop stays small.
 */
static int query_failed(struct ms_maps *maps, struct ioctl_state *st, bool *want_name,
			struct ms_error *err)
{
	pid_t pid = ms_proc_pid(maps->proc);

	switch (errno) {
	case EINTR:
		return 1;
	case ENOENT:
		return MS_END;
	case ENAMETOOLONG:
		if (*want_name && st->name_size < PATH_MAX) {
			if (grow_name(st) < 0)
				return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
			return 1;
		}
		if (*want_name) {
			/* Longer than PATH_MAX: keep the mapping, flag the name. */
			*want_name = false;
			return 1;
		}
		return ms_error_set(err, MS_ERR_PROTO, ENAMETOOLONG,
				    "pid %d: PROCMAP_QUERY: build ID larger than %d bytes", (int)pid, MS_BUILD_ID_MAX);
	case ESRCH:
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the address space is gone", (int)pid);
	case ENOTTY:
		return ms_error_set(err, MS_ERR_NOTSUP, ENOTTY, "pid %d: PROCMAP_QUERY is not supported", (int)pid);
	default:
		return ms_error_set(err, MS_ERR_IO, errno, "pid %d: PROCMAP_QUERY: %s", (int)pid, strerror(errno));
	}
}

/*
 * One PROCMAP_QUERY into st->q, EINTR retried.  The name goes to st->name
 * when *want_name (cleared for a name longer than PATH_MAX); build_id NULL
 * asks for none.
 */
static inline int query_once(struct ms_maps *maps, struct ioctl_state *st, uint64_t addr, unsigned flags,
		      bool *want_name, unsigned char *build_id, struct ms_error *err)
{
	struct procmap_query *q = &st->q;

	for (;;) {
		int rc, e;

		/* The seven inputs, every call (the in/out sizes above all). */
		q->size = sizeof(*q);
		q->query_flags = flags;
		q->query_addr = addr;
		q->vma_name_addr = *want_name ? (uintptr_t)st->name : 0;
		q->vma_name_size = *want_name ? (uint32_t)st->name_size : 0;
		/* Never a buffer smaller than 20 bytes (see above); none at all is fine. */
		q->build_id_addr = (uintptr_t)build_id;
		q->build_id_size = build_id ? MS_BUILD_ID_MAX : 0;
		/* Never at once with the read-ahead's pread on fd (text_reader.h). */
		ms_text_reader_lock_fd(maps->reader);
		rc = maps->ioctl_fn(maps->fd, PROCMAP_QUERY, q);
		e = errno;
		ms_text_reader_unlock_fd(maps->reader);
		if (rc == 0)
			break;
		errno = e;
		rc = query_failed(maps, st, want_name, err);
		if (rc != 1)
			return rc;
	}
	if (q->vma_end <= q->vma_start || (*want_name && q->vma_name_size > st->name_size) ||
	    q->build_id_size > MS_BUILD_ID_MAX)
		return ms_error_set(err, MS_ERR_PROTO, 0, "pid %d: PROCMAP_QUERY returned an inconsistent record",
				    (int)ms_proc_pid(maps->proc));
#ifdef HAVE_VALGRIND_MEMCHECK_H
	/*
	 * memcheck does not know PROCMAP_QUERY writes through the name and
	 * build-ID pointers; tell it, or every name reads as uninitialised.
	 */
	if (build_id && q->build_id_size)
		VALGRIND_MAKE_MEM_DEFINED(build_id, q->build_id_size);
	if (*want_name && q->vma_name_size)
		VALGRIND_MAKE_MEM_DEFINED(st->name, q->vma_name_size);
#endif
	return 0;
}

/* The build ID of out's file, asked for only where the kernel reads that file itself. */
static int add_build_id(struct ms_maps *maps, struct ioctl_state *st, struct ms_mapping *out,
			struct ms_error *err)
{
	unsigned char build_id[MS_BUILD_ID_MAX];
	const struct procmap_query *q = &st->q;
	bool no_name = false;
	int rc;

	/* No device and no inode: no file behind it (anonymous, [vdso], [stack]). */
	if (out->inode == 0 && out->dev_major == 0 && out->dev_minor == 0)
		return 0;
	/* The walk's table of this mount namespace, for a real block device. */
	if (!st->shared_tried) {
		st->shared_tried = true;
		st->shared = ms_fstypes_shared_table(maps->fstypes_shared, maps->proc);
	}
	if (!ms_fstypes_shared_refuse(st->shared, out->dev_major, out->dev_minor, &out->build_id_skipped)) {
		if (!st->fstypes_tried) {
			st->fstypes_tried = true;
			/* Unreadable: no table, and ms_fstypes_refuse then refuses every file. */
			ms_fstypes_load(maps->proc, &st->fstypes, NULL);
		}
		out->build_id_skipped = ms_fstypes_refuse(st->fstypes, out->dev_major, out->dev_minor);
	}
	if (out->build_id_skipped) {
		maps->stats.build_ids_skipped++;
		return 0;
	}
	rc = query_once(maps, st, out->start, 0, &no_name, build_id, err);
	if (rc == MS_END)
		return 0; /* unmapped between the two queries */
	if (rc < 0)
		return rc;
	/* Another mapping there now: its build ID is not this one's. */
	if (q->vma_start != out->start || q->vma_end != out->end || q->inode != out->inode ||
	    q->dev_major != out->dev_major || q->dev_minor != out->dev_minor)
		return 0;
	out->build_id_len = q->build_id_size;
	memcpy(out->build_id, build_id, q->build_id_size);
	return 0;
}

static int ioctl_query(struct ms_maps *maps, uint64_t addr, unsigned flags,
		       struct ms_mapping *out, struct ms_error *err)
{
	struct ioctl_state *st = state_of(maps, err);
	const struct procmap_query *q;
	bool want_name = (maps->fields & MS_FIELD_NAME) != 0;
	int rc;

	_Static_assert(MS_BUILD_ID_MAX >= 20, "the kernel needs a 20-byte build-ID buffer");
	if (!st)
		return MS_ERR_NOMEM;
	rc = query_once(maps, st, addr, flags, &want_name, NULL, err);
	if (rc < 0)
		return rc;
	q = &st->q;

	/*
	 * Every field written once: out may be a fresh slot whose only valid
	 * fields are its name and name_cap.  Its name buffer is kept for the
	 * next name (mapping.h), freed only when this mapping has none.
	 */
	out->start = q->vma_start;
	out->end = q->vma_end;
	out->perms = (unsigned)q->vma_flags & (MS_PERM_READ | MS_PERM_WRITE | MS_PERM_EXEC | MS_PERM_SHARED);
	out->offset = q->vma_offset;
	out->page_size = q->vma_page_size;
	out->inode = q->inode;
	out->dev_major = q->dev_major;
	out->dev_minor = q->dev_minor;
	out->name_truncated = false;
	out->name_ambiguous = false;
	out->build_id_len = 0;
	memset(out->build_id, 0, sizeof(out->build_id));
	out->build_id_skipped = NULL;
	if (want_name && q->vma_name_size > 0) {
		/*
		 * vma_name_size counts the terminating NUL, and the kernel
		 * takes it from strlen of the name it copies: no NUL comes
		 * before.  Measured only should the last byte not be that NUL.
		 */
		size_t len = q->vma_name_size - 1;

		if (st->name[len] != '\0')
			len = strnlen(st->name, q->vma_name_size);

		if (ms_mapping_set_name(out, st->name, len) < 0)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					    (int)ms_proc_pid(maps->proc));
		return (maps->fields & MS_FIELD_BUILD_ID) ? add_build_id(maps, st, out, err) : 0;
	}
	free(out->name);
	out->name = NULL;
	out->name_cap = 0;
	out->name_len = 0;
	if (!want_name && (maps->fields & MS_FIELD_NAME)) {
		out->name_truncated = true;
		maps->stats.names_truncated++;
	}
	if (maps->fields & MS_FIELD_BUILD_ID)
		return add_build_id(maps, st, out, err);
	return 0;
}

/* After a reopen (exec): the process may now see other mounts. */
static void ioctl_reset(struct ms_maps *maps)
{
	struct ioctl_state *st = maps->state;

	if (!st)
		return;
	ms_fstypes_free(st->fstypes);
	st->fstypes = NULL;
	st->fstypes_tried = false;
	st->shared = NULL;
	st->shared_tried = false;
}

static void ioctl_destroy(struct ms_maps *maps)
{
	struct ioctl_state *st = maps->state;

	ioctl_reset(maps);
	if (st && st->name != st->name_start)
		free(st->name);
	free(st);
	maps->state = NULL;
}

int ms_maps_ioctl_name_at(struct ms_maps *maps, uint64_t addr, struct ms_mapping *out,
			  struct ms_error *err)
{
	void *backend_state = maps->state;
	unsigned fields = maps->fields;
	int rc;

	if (maps->ioctl_missing)
		return MS_ERR_NOTSUP;
	maps->state = NULL;
	maps->fields = MS_FIELD_NAME;
	rc = ioctl_query(maps, addr, 0, out, err);
	ioctl_destroy(maps);
	maps->state = backend_state;
	maps->fields = fields;
	if (rc == MS_ERR_NOTSUP)
		maps->ioctl_missing = true;
	if (rc == 0 && out->start != addr)
		return MS_END;
	return rc;
}

int ms_maps_build_id_of(struct ms_maps *maps, struct ms_mapping *m, struct ms_error *err)
{
	bool borrowed = maps->ops != &ms_maps_ioctl_ops;
	void *backend_state = maps->state;
	struct ioctl_state *st;
	int rc;

	if (m->build_id_len || m->build_id_skipped)
		return 0;
	if (maps->ioctl_missing)
		return MS_ERR_NOTSUP;
	/* The text backend's state is not ours: a fresh one for this query. */
	if (borrowed)
		maps->state = NULL;
	st = state_of(maps, err);
	rc = st ? add_build_id(maps, st, m, err) : MS_ERR_NOMEM;
	if (borrowed) {
		ioctl_destroy(maps);
		maps->state = backend_state;
	}
	if (rc == MS_ERR_NOTSUP)
		maps->ioctl_missing = true;
	return rc;
}

const struct ms_maps_ops ms_maps_ioctl_ops = {
	.kind = MS_BACKEND_IOCTL,
	.begin = NULL,
	.query = ioctl_query,
	.reset = ioctl_reset,
	.destroy = ioctl_destroy,
};
