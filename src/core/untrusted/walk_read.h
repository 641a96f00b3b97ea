/*
 * walk_read.h - read a small file at a path a user controls, from our own
 * root, through the untrusted walk (untrusted_walk.h): for the package
 * sources that read what sits beside a mapped file (a Python
 * distribution's RECORD, an npm package.json).
 *
 * A reader holds our root directory and its mount table, opened at the
 * first read (ms_walk_reader_ready), the walk's directory cache, and one
 * buffer that each read reuses.  ms_walk_read walks path with the
 * caller's flags (MS_WALK_NO_SYMLINKS for a user's tree), so no step
 * enters a daemon-served mount and no symlink the flags refuse is
 * followed; it looks at the file's stat on the O_PATH descriptor before
 * anything opens it: a FIFO, device, socket or directory is refused then
 * (nothing blocks, nothing acts), and so is a file over max bytes when
 * it is to be read whole.  Then it reopens that very inode through
 * /proc/self/fd/N, non-blocking, and reads:
 *   - whole: the file, refused when it grew past its size meanwhile (one
 *     byte past it is asked for, so growth shows);
 *   - else its first max bytes, *complete set when that is all of it.
 * The buffer (r->buf, NUL-terminated after what was read) holds at most
 * max + 2 bytes; it is the caller's bound that counts.
 *
 * Errors are values: the length read (>= 0), or -errno with *why a static
 * phrase for messages: the walk's reason when it refused on purpose ("a
 * symlink on the path", MS_WALK_WHY_SERVED...), "no such file" (-ENOENT),
 * what the file is (ms_file_kind: "a FIFO", -ENXIO/-EISDIR/-ENODEV),
 * "larger than the bound" (-EFBIG), "it grew while it was read" (-EAGAIN),
 * or another ("cannot be reached", "cannot be read").  Nothing prints.
 */
#ifndef MAPSCOPE_WALK_READ_H
#define MAPSCOPE_WALK_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "untrusted/untrusted_walk.h"

struct ms_walk_reader {
	struct ms_walk_root root; /* fd -1 until the first read */
	bool tried;
	char *buf;
	size_t cap;
};

#define MS_WALK_READER_INIT { .root = { .fd = -1 } }

/* Our root and its mount table, opened at the first call; false when walks cannot be made. */
bool ms_walk_reader_ready(struct ms_walk_reader *r);
/* A batch of reads is over: drop the directories the walks keep (untrusted_walk.h). */
void ms_walk_reader_clear(struct ms_walk_reader *r);
void ms_walk_reader_free(struct ms_walk_reader *r);

ssize_t ms_walk_read(struct ms_walk_reader *r, const char *path, unsigned flags, size_t max, bool whole,
		     bool *complete, const char **why);

#endif
