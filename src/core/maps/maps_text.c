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
 * record keeps name_ambiguous and is never looked up as a path.  A name
 * ending in " (deleted)" is asked again the same way.
 *
 * ms_maps_text_walk streams the same text for ms_maps_walk without keeping
 * it: each record goes to the caller as it is parsed, confirmed the same
 * way, and the gate area ([vsyscall]) is left out, as the ioctl never
 * returns it, so that the records are the ioctl backend's.
 *
 * Both read the first 64 KiB on the calling thread; a longer text's rest is
 * read ahead on a second thread (text_reader.h) unless the caller said no
 * (ms_maps_set_read_ahead), and the ioctl's confirmations then take turns
 * with its reads on the descriptor.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/maps_backend.h"
#include "maps/maps_parse.h"
#include "maps/text_reader.h"

#define MS_TEXT_CHUNK MS_TEXT_READER_CHUNK
/* vm.max_map_count is 65530 by default; allow far more, but not unbounded. */
#define MS_TEXT_MAX_RECORDS (4u * 1024 * 1024)

struct text_state {
	struct ms_maplist list;
	uint64_t page_size;
};

static uint64_t system_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

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

static bool ends_deleted(const struct ms_mapping *m)
{
	static const char suffix[] = " (deleted)";
	size_t n = sizeof(suffix) - 1;

	return m->name && m->name_len >= n && !memcmp(m->name + m->name_len - n, suffix, n);
}

/*
 * Names the text cannot say exactly: "\012" is a newline or four bytes, and
 * " (deleted)" the kernel's note or part of the name.
 */
static bool needs_confirming(const struct ms_mapping *m)
{
	return m->name_ambiguous || ends_deleted(m);
}

/*
 * Replace m's name by the kernel's raw bytes, asked through PROCMAP_QUERY at
 * its start.  0 (confirmed or left as it was), 1 when nothing more can be
 * asked (no ioctl, or the address space is gone), or MS_ERR_NOMEM.
 */
static int confirm_name(struct ms_maps *maps, struct ms_mapping *m, struct ms_mapping *exact,
			struct ms_error *err)
{
	struct ms_error ignored;
	int rc = ms_maps_ioctl_name_at(maps, m->start, exact, &ignored);

	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
				    (int)ms_proc_pid(maps->proc));
	if (rc == MS_ERR_NOTSUP || rc == MS_ERR_EXITED)
		return 1; /* the names stay as the text says them */
	if (rc < 0 || exact->end != m->end || exact->inode != m->inode || exact->name_truncated ||
	    ms_mapping_set_name(m, exact->name, exact->name_len) < 0)
		return 0;
	if (m->name_ambiguous)
		maps->stats.names_confirmed++;
	m->name_ambiguous = false;
	return 0;
}

static int confirm_names(struct ms_maps *maps, struct text_state *st, struct ms_error *err)
{
	struct ms_mapping exact = { 0 };
	int rc = 0;

	for (size_t i = 0; i < st->list.count && rc == 0; i++)
		if (needs_confirming(&st->list.items[i]))
			rc = confirm_name(maps, &st->list.items[i], &exact, err);
	ms_mapping_reset(&exact);
	return rc < 0 ? rc : 0;
}

/*
 * Read the whole text of the maps descriptor with pread from offset 0 and
 * hand each parsed record to emit.  Once the text has passed one chunk, the
 * rest is read ahead on a second thread (text_reader.h) while this one
 * parses, unless the caller turned that off (ms_maps_set_read_ahead).  0,
 * or an error (err set), or what emit returned to stop.
 */
static int read_text(struct ms_maps *maps, ms_text_emit_fn emit, void *ctx, struct ms_error *err)
{
	struct ms_text_parser parser;
	pid_t pid = ms_proc_pid(maps->proc);
	char *chunk = malloc(MS_TEXT_CHUNK);
	struct ms_text_reader *reader = NULL;
	bool ahead_asked = false;
	off_t off = 0;
	int rc = 0;

	if (!chunk)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
	ms_text_parser_init(&parser, emit, ctx);
	maps->stats.text_reads++;
	for (;;) {
		const char *data = chunk;
		ssize_t n = reader ? ms_text_reader_next(reader, &data) : pread(maps->fd, chunk, MS_TEXT_CHUNK, off);

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
		/* Past one chunk: a large process, whose rest is read ahead (once asked). */
		if (!ahead_asked && off >= MS_TEXT_CHUNK && !maps->no_read_ahead) {
			ahead_asked = true;
			maps->reader = reader = ms_text_reader_start(maps->fd, off);
			if (reader)
				maps->stats.text_read_ahead++;
		}
		rc = ms_text_parser_feed(&parser, data, (size_t)n);
		if (rc < 0)
			break;
	}
	ms_text_reader_stop(reader);
	maps->reader = NULL;
	free(chunk);
	maps->stats.malformed_lines = parser.malformed;
	ms_text_parser_free(&parser);
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory", (int)pid);
	if (rc == MS_ERR_LIMIT)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "pid %d: more than %u mappings", (int)pid, MS_TEXT_MAX_RECORDS);
	if (rc == 0 && off == 0)
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the address space is gone", (int)pid);
	return rc;
}

static int text_begin(struct ms_maps *maps, struct ms_error *err)
{
	struct text_state *st = maps->state;
	struct collect_ctx ctx;
	int rc;

	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
					    (int)ms_proc_pid(maps->proc));
		st->page_size = system_page_size();
		maps->state = st;
	}
	ms_maplist_clear(&st->list);
	ctx.st = st;
	ctx.last_end = 0;
	rc = read_text(maps, collect, &ctx, err);
	if (rc < 0)
		return rc;
	return confirm_names(maps, st, err);
}

struct stream_ctx {
	struct ms_maps *maps;
	ms_maps_walk_fn fn;
	void *fn_ctx;
	struct ms_error *err;
	struct ms_mapping exact;
	uint64_t last_end;
	uint64_t page_size;
	size_t records;
	bool no_more_confirming;
	bool stopped;
};

/* The gate area: above every user address, and never returned by the ioctl. */
static bool is_gate_area(const struct ms_mapping *m)
{
	return m->start >= (UINT64_C(1) << 63) && m->inode == 0 && m->name_len == 10 &&
	       !memcmp(m->name, "[vsyscall]", 10);
}

static int stream_emit(void *arg, struct ms_mapping *m)
{
	struct stream_ctx *s = arg;
	int rc;

	if (m->start < s->last_end || is_gate_area(m))
		return 0;
	s->last_end = m->end;
	if (++s->records > MS_TEXT_MAX_RECORDS)
		return MS_ERR_LIMIT;
	m->page_size = s->page_size;
	if (!s->no_more_confirming && needs_confirming(m)) {
		rc = confirm_name(s->maps, m, &s->exact, s->err);
		if (rc < 0)
			return rc;
		s->no_more_confirming = rc > 0;
	}
	rc = s->fn(s->fn_ctx, m);
	ms_mapping_reset(m);
	if (rc > 0) {
		s->stopped = true;
		return MS_END;
	}
	return rc;
}

int ms_maps_text_walk(struct ms_maps *maps, ms_maps_walk_fn fn, void *ctx, struct ms_error *err)
{
	struct stream_ctx s = {
		.maps = maps, .fn = fn, .fn_ctx = ctx, .err = err, .page_size = system_page_size(),
	};
	int rc = read_text(maps, stream_emit, &s, err);

	ms_mapping_reset(&s.exact);
	if (s.stopped)
		return 0;
	return rc;
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
