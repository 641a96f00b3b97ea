/*
 * record.h - a recording: one process's map changes, appended as JSON lines.
 *
 * The first line is the header, the snapshot header (snapshot.h) under
 * "mapscope": "recording":
 *
 *   {"mapscope":"recording","version":1,"header":{...}}
 *
 * Each later line is one change, found by ms_maplist_diff between the map
 * the file describes so far and the map now:
 *
 *   {"time":"...","added":[M...],"removed":[M...],
 *    "changed":[{"fields":["perms",...],"old":M,"new":M}...]}
 *
 * with M a mapping as in a snapshot.  The first change after the header
 * lists every mapping as added, so replaying the lines from an empty map
 * gives the map at any record.
 *
 * ms_recorder_open opens the file through safewrite (keep, readable):
 *   - created: the header is written first;
 *   - existed: its first line must be a recording header of the same PID
 *     and the same start time (so never two processes, nor a reused PID),
 *     and the lines after it are replayed, so appending continues from the
 *     state the file already describes.  Anything else is refused, and the
 *     file is left as it was.  A second header is never written.
 * An exclusive flock keeps two recorders from interleaving lines.
 *
 * A line's names are bounded as a snapshot's (MS_SNAPSHOT_NAMES_MAX,
 * snapshot_write.h) and a line is never longer than MS_RECORD_LINE_MAX, so
 * what is written always replays: past either bound the step fails with
 * MS_ERR_LIMIT ("pid N: the mapping names take more than 16 MiB once
 * escaped, more than a recording line may hold (no reader would accept
 * it)")
 * and writes nothing.
 *
 * Each change is one write of one whole line.  If that write fails, the
 * file is cut back to the end of the last whole line, so it stays valid
 * JSON lines.  A file we created is removed only if writing its header
 * fails.
 */
#ifndef MAPSCOPE_RECORD_H
#define MAPSCOPE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "maps/maps.h"
#include "base/safewrite.h"

/* Longest line a replay accepts: a change listing ~100k mappings. */
#define MS_RECORD_LINE_MAX (64u * 1024 * 1024)

struct ms_recorder {
	struct ms_safewrite w;
	struct ms_maplist last; /* the map the file describes */
	off_t end;              /* end of the last whole line */
	size_t records;         /* change lines in the file */
	bool appended;          /* the file existed */
	pid_t pid;              /* for messages */
};

int ms_recorder_open(const char *path, struct ms_maps *maps,
		     const struct ms_safewrite_opts *opts, struct ms_recorder *r,
		     struct ms_error *err);

/*
 * Compare now with the recorded map and append a line if they differ.
 * *wrote (may be NULL) says whether a line was written.
 */
int ms_recorder_step(struct ms_recorder *r, const struct ms_maplist *now, bool *wrote,
		     struct ms_error *err);

/* Close; 0 or MS_ERR_IO (the file keeps its whole lines either way). */
int ms_recorder_close(struct ms_recorder *r, struct ms_error *err);

/*
 * Replay a recording's text: check its header names pid and start_time
 * (pid 0: any), and rebuild the map after its last line into *list.
 */
int ms_recording_replay(const char *text, size_t len, const char *what, pid_t pid,
			unsigned long long start_time, struct ms_maplist *list,
			size_t *records, struct ms_error *err);

#endif
