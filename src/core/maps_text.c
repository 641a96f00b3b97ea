/*
 * The text backend: the fallback for kernels without PROCMAP_QUERY.
 *
 * begin() reads the whole of the open maps descriptor with pread from offset
 * 0 (the same descriptor, so the permission checked at open still applies)
 * and parses it into a sorted list; queries then answer from that list with
 * the kernel's matching rules.  A read that yields nothing means the address
 * space is gone (the kernel's m_start returns no records without an mm), and
 * is reported like the ioctl's ESRCH.
 *
 * The text escapes a newline in a path as "\012" and leaves a backslash
 * alone, so "\012" in the text is either.  Such a name is asked again
 * through PROCMAP_QUERY at its start address, which gives the raw bytes;
 * where the ioctl is missing or the mapping has changed meanwhile, the
 * record keeps name_ambiguous and is never looked up as a path.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps_backend.h"
#include "maps_parse.h"

#define MS_TEXT_CHUNK (64 * 1024)
/* vm.max_map_count is 65530 by default; allow far more, but not unbounded. */
#define MS_TEXT_MAX_RECORDS (4u * 1024 * 1024)

struct text_state {
	struct ms_maplist list;
	uint64_t page_size;
};

struct collect_ctx {
	struct text_state *st;
	uint64_t last_end;
};

static int collect(void *arg, struct ms_mapping *m)
{
	struct collect_ctx *ctx = arg;

	if (ctx->st->list.count >= MS_TEXT_MAX_RECORDS)
		return MS_ERR_LIMIT;
	/* The kernel prints in address order; anything else is not a record we trust. */
	if (m->start < ctx->last_end)
		return 0;
	ctx->last_end = m->end;
	m->page_size = ctx->st->page_size;
	return ms_maplist_push(&ctx->st->list, m);
}

/* Replace each ambiguous name by the kernel's raw bytes where it can say them. */
static int confirm_ambiguous(struct ms_maps *maps, struct text_state *st, struct ms_error *err)
{
	struct ms_mapping exact = { 0 };
	int rc = 0;

	for (size_t i = 0; i < st->list.count; i++) {
		struct ms_mapping *m = &st->list.items[i];
		struct ms_error ignored;

		if (!m->name_ambiguous)
			continue;
		rc = ms_maps_ioctl_name_at(maps, m->start, &exact, &ignored);
		if (rc == MS_ERR_NOMEM) {
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					  (int)ms_proc_pid(maps->proc));
			break;
		}
		if (rc == MS_ERR_NOTSUP || rc == MS_ERR_EXITED) {
			rc = 0;
			break; /* no ioctl, or nothing left to ask: the names stay ambiguous */
		}
		rc = 0;
		if (exact.end != m->end || exact.inode != m->inode || exact.name_truncated ||
		    ms_mapping_set_name(m, exact.name, exact.name_len) < 0)
			continue;
		m->name_ambiguous = false;
		maps->stats.names_confirmed++;
	}
	ms_mapping_reset(&exact);
	return rc;
}

static int text_begin(struct ms_maps *maps, struct ms_error *err)
{
	struct text_state *st = maps->state;
	struct ms_text_parser parser;
	struct collect_ctx ctx;
	pid_t pid = ms_proc_pid(maps->proc);
	char *chunk;
	off_t off = 0;
	int rc = 0;

	if (!st) {
		long ps = sysconf(_SC_PAGESIZE);

		st = calloc(1, sizeof(*st));
		if (!st)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
		st->page_size = ps > 0 ? (uint64_t)ps : 4096;
		maps->state = st;
	}
	ms_maplist_clear(&st->list);
	chunk = malloc(MS_TEXT_CHUNK);
	if (!chunk)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
	ctx.st = st;
	ctx.last_end = 0;
	ms_text_parser_init(&parser, collect, &ctx);
	maps->stats.text_reads++;
	for (;;) {
		ssize_t n = pread(maps->fd, chunk, MS_TEXT_CHUNK, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			if (e == ESRCH)
				rc = ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the address space is gone", (int)pid);
			else
				rc = ms_error_set(err, MS_ERR_IO, e, "pid %d: reading maps: %s", (int)pid, strerror(e));
			break;
		}
		if (n == 0) {
			rc = ms_text_parser_finish(&parser);
			break;
		}
		off += n;
		rc = ms_text_parser_feed(&parser, chunk, (size_t)n);
		if (rc < 0)
			break;
	}
	free(chunk);
	maps->stats.malformed_lines = parser.malformed;
	ms_text_parser_free(&parser);
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
	if (rc == MS_ERR_LIMIT)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "pid %d: more than %u mappings", (int)pid, MS_TEXT_MAX_RECORDS);
	if (rc < 0)
		return rc;
	if (off == 0)
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the address space is gone", (int)pid);
	return confirm_ambiguous(maps, st, err);
}

static int text_query(struct ms_maps *maps, uint64_t addr, unsigned flags,
		      struct ms_mapping *out, struct ms_error *err)
{
	struct text_state *st = maps->state;
	size_t i;

	if (!st)
		return MS_END;
	for (i = ms_maplist_lower_bound(&st->list, addr); i < st->list.count; i++) {
		const struct ms_mapping *m = &st->list.items[i];

		if (ms_mapping_matches(m, flags & MS_FILTER_ALL) &&
		    ((flags & MS_Q_COVERING_OR_NEXT) || m->start <= addr)) {
			if (ms_mapping_copy(out, m) < 0)
				return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
						    (int)ms_proc_pid(maps->proc));
			return 0;
		}
		if (!(flags & MS_Q_COVERING_OR_NEXT))
			break;
	}
	return MS_END;
}

static void text_reset(struct ms_maps *maps)
{
	struct text_state *st = maps->state;

	if (st)
		ms_maplist_clear(&st->list);
}

static void text_destroy(struct ms_maps *maps)
{
	struct text_state *st = maps->state;

	if (st)
		ms_maplist_free(&st->list);
	free(st);
	maps->state = NULL;
}

const struct ms_maps_ops ms_maps_text_ops = {
	.kind = MS_BACKEND_TEXT,
	.begin = text_begin,
	.query = text_query,
	.reset = text_reset,
	.destroy = text_destroy,
};
