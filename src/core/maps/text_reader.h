/*
 * text_reader.h - the rest of a maps descriptor's text, read ahead on a
 * second thread while the caller parses what came before.
 *
 * Why: the kernel writes a large maps file (60,000 mappings: about 20 ms
 * of system time) and mapscope parses and prints it (about 15 ms of its
 * own).  One after the other, those add up; on two cores the reads can go
 * on while the caller works on the chunks already read.
 *
 * Only the whole-text walk (maps_text.c) starts one, and only after its
 * first pread filled a whole chunk, so a process of a few hundred mappings
 * is read on the calling thread and no thread is ever made for it.
 *
 * Contract:
 *   - ms_text_reader_start(fd, off) starts the thread, which preads fd from
 *     off into a ring of MS_TEXT_READER_RING chunks of MS_TEXT_READER_CHUNK
 *     bytes and hands them over in order; NULL when no thread could be made
 *     (the caller then reads on its own thread, as before), and always
 *     NULL when the calling thread may run on one CPU only.
 *   - While the thread lives, the caller is held on the CPU it called from
 *     and the thread runs on the caller's other CPUs; ms_text_reader_stop,
 *     which the same thread must call, gives the caller its CPUs back.
 *   - ms_text_reader_next hands over the next chunk: its length, 0 at the
 *     end of the text, or -1 with errno as the failed pread left it, after
 *     every chunk read before the failure.  The chunk stays the caller's
 *     until the next call (or stop), which gives it back to the ring.
 *   - The descriptor is read by one thread at a time, never at once with a
 *     PROCMAP_QUERY on it: every pread holds the reader's descriptor lock,
 *     and so must every other use of fd while the reader runs
 *     (ms_text_reader_lock_fd), as the ioctl backend's queries do.  The
 *     kernel then sees the same sequence of calls as from one thread.
 *   - ms_text_reader_stop stops the thread (at most one pread later), joins
 *     it and frees everything; safe at any point, with NULL too.
 *   - The thread blocks every signal, and touches only fd, its ring and
 *     its own fields: no allocation, no output, no errno of the caller's.
 * Nothing here prints.
 */
#ifndef MAPSCOPE_TEXT_READER_H
#define MAPSCOPE_TEXT_READER_H

#include <sys/types.h>

#define MS_TEXT_READER_CHUNK (64 * 1024)
#define MS_TEXT_READER_RING 4

struct ms_text_reader;

struct ms_text_reader *ms_text_reader_start(int fd, off_t off);
ssize_t ms_text_reader_next(struct ms_text_reader *r, const char **chunk);
void ms_text_reader_stop(struct ms_text_reader *r);

/* Hold and release the descriptor; both do nothing with NULL. */
void ms_text_reader_lock_fd(struct ms_text_reader *r);
void ms_text_reader_unlock_fd(struct ms_text_reader *r);

#endif
