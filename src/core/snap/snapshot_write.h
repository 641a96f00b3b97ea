/*
 * snapshot_write.h - taking a snapshot and writing it, in bounded memory.
 *
 * A snapshot (snapshot.h) used to be built as one jansson document and
 * dumped whole: 65,000 mappings named with 3.8 KB of control bytes each made
 * a 1.24 GB document, 3.7 GB of memory, and a file no reader accepted.  Now:
 *
 *   - ms_snapshot_take collects the mappings under two bounds, refused with
 *     MS_ERR_LIMIT as soon as they are passed: at most
 *     MS_SNAPSHOT_MAPPINGS_MAX mappings, and at most MS_SNAPSHOT_NAMES_MAX
 *     bytes of names.  Names are counted as they will sit in the file
 *     (ms_snapshot_name_cost: escaped, then JSON-quoted), and the raw bytes
 *     held while collecting never exceed that bound either.
 *   - ms_snapshot_stream writes the document piece by piece: the part
 *     before the mappings, then each mapping serialized alone, then the
 *     rest.  The text is byte for byte what json_dumps(JSON_INDENT(1)) of
 *     the whole document gives (tests/golden holds that writer's output).
 *     It checks the bounds before the first byte, so a refused snapshot
 *     writes nothing.
 *   - ms_snapshot_write goes through safewrite; a failure after the file
 *     was created removes it (ms_safewrite_abort), so no partial file is
 *     left behind.
 *
 * The bounds keep every written snapshot within what the reader accepts
 * (MS_SNAPSHOT_FILE_MAX): a mapping's fixed fields take at most about 500
 * bytes, so 65,536 of them, 16 MiB of names and a 128 KiB command line
 * stay under 64 MiB.  The same name bound applies to each recording line
 * (record.h), within its 64 MiB line limit.
 *
 * Messages name the PID and the bound:
 *   "pid N: the mapping names take more than 16 MiB once escaped, more than
 *    a snapshot may hold (no reader would accept it)"
 * Errors: MS_ERR_LIMIT, MS_ERR_NOMEM, the engine's, and safewrite's.
 */
#ifndef MAPSCOPE_SNAPSHOT_WRITE_H
#define MAPSCOPE_SNAPSHOT_WRITE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "maps/mapping.h"

struct ms_snapshot;


/*
 * Add m's name to *names (a running total) and check both bounds for the
 * count-th mapping; MS_ERR_LIMIT names pid.  what is "snapshot" or
 * "recording line", for the message.
 */
int ms_snapshot_bound(pid_t pid, const char *what, size_t count, const struct ms_mapping *m,
		      size_t *names, struct ms_error *err);

/*
 * Every mapping of maps appended to list, within the bounds (what
 * ms_snapshot_take and `record` collect); what ("snapshot", "recording")
 * names the output in messages.  Errors as ms_maps_collect, and
 * MS_ERR_LIMIT.
 */
struct ms_maps;
struct ms_maplist;
int ms_snapshot_collect(struct ms_maps *maps, const char *what, struct ms_maplist *list,
			struct ms_error *err);

/*
 * Where streamed text goes, in order: 0, or a negative ms_errcode with err
 * set (which ends the stream).
 */
typedef int (*ms_snapshot_sink)(void *arg, const char *text, size_t len, struct ms_error *err);

int ms_snapshot_stream(const struct ms_snapshot *snap, ms_snapshot_sink sink, void *arg,
		       struct ms_error *err);

/* A sink that writes to a file descriptor (arg points to the int). */
int ms_snapshot_sink_fd(void *arg, const char *text, size_t len, struct ms_error *err);

#endif
