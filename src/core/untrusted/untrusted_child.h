/*
 * untrusted_child.h - parse untrusted files in a child process that cannot
 * hurt the command that started it.
 *
 * Part of the one owner of untrusted input (untrusted_walk.h walks and
 * opens what a user controls; this module parses it).  A library that
 * allocates, opens files or loops by what a file says (elfutils' libdw
 * follows .gnu_debugaltlink names with a plain open(), inflates sections
 * to the sizes they state, and builds line tables a hundred times the
 * size of their bytes) runs only here.  The parent opens every file the
 * child may read, through the checked lookups, and hands the descriptors
 * over; the child opens nothing itself.
 *
 * ms_child_start forks a child that, before it serves anything:
 *   - keeps only its end of a SOCK_SEQPACKET socket pair (at descriptor 3)
 *     and /dev/null as standard input, output and error;
 *   - resets every signal handler, dies with the parent
 *     (PR_SET_PDEATHSIG), cannot dump core (RLIMIT_CORE 0,
 *     PR_SET_DUMPABLE 0) and, when started by root, becomes uid and gid
 *     65534 with no supplementary groups;
 *   - runs spec->prepare (load libraries: dlopen opens files), then limits
 *     itself: RLIMIT_AS to the address space it has plus
 *     MS_CHILD_AS_ROOM (not in sanitizer builds, whose shadow memory
 *     needs terabytes of address space; the parent's watch below still
 *     holds there), raised by ms_child_room_add by the size of each file
 *     the child maps whole, up to MS_CHILD_AS_MAX; RLIMIT_CPU to MS_CHILD_CPU_SECONDS, RLIMIT_NOFILE as
 *     it was, RLIMIT_FSIZE 0;
 *   - sets PR_SET_NO_NEW_PRIVS and a seccomp filter that makes every call
 *     naming a path or making a process or a connection fail with EACCES
 *     (open, openat, openat2, creat, open_by_handle_at, execve, execveat,
 *     fork, vfork, clone, clone3, socket, connect, ptrace, kill, mkdir,
 *     unlink, rename, link, symlink, chmod, chown, truncate, mknod, mount
 *     and their *at forms), on x86_64 and aarch64; a call from another
 *     system-call ABI kills it;
 *   - sends a one-byte ready frame, then calls spec->serve with the socket,
 *     whose return is its exit status.
 * ms_child_start returns once the child is forked, without waiting for
 * its ready frame, so that the child loads its libraries while the caller
 * goes on (walking and opening the files it will hand over).  The first
 * ms_child_recv waits for the ready frame first, and a send that finds
 * the socket full before then waits for it too; either waits at most
 * MS_CHILD_READY_SECONDS from the start, and a child that never gets ready
 * ends with "the reader did not start: ..." as its why.  Frames sent
 * before then wait in the socket, and the child reads them only once it
 * is limited and filtered.
 *
 * The parent never waits on the child without a bound:
 * ms_child_recv waits at most until deadline_ns (CLOCK_MONOTONIC), and a
 * send that finds a ready child's socket full at most
 * MS_CHILD_SEND_SECONDS, or what ms_child_send_limit set (then "gave up
 * after N s"), polling every 10 ms; meanwhile it watches the child's resident anonymous memory
 * (from /proc/PID/statm, above what it had when ready) and kills it past
 * MS_CHILD_RSS_ROOM, and calls interrupt(arg), killing the child when that
 * says so (the explorer: a key was pressed).  A dead child is reaped
 * without blocking (WNOHANG, for at most a second, then left to init), and
 * ms_child_why says why it ended, as text fit to follow "symbols: ":
 *   "gave up after N s", "over the memory limit", "over the CPU limit",
 *   "interrupted", "the reader crashed on this file", "the reader's answer
 *   was malformed".
 * A child that ends stays ended: the caller starts another if it wants.
 *
 * Frames are at most MS_CHILD_FRAME_MAX bytes and never empty (an empty
 * read is the end), with at most one descriptor each.  A frame that is cut
 * short, or carries more than one descriptor, is refused as malformed.
 * Nothing here prints.
 */
#ifndef MAPSCOPE_UNTRUSTED_CHILD_H
#define MAPSCOPE_UNTRUSTED_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

#define MS_CHILD_AS_ROOM (100ull << 20)
#define MS_CHILD_AS_MAX (4ull << 30)
#define MS_CHILD_RSS_ROOM (160ull << 20)
#define MS_CHILD_CPU_SECONDS 120u
#define MS_CHILD_FRAME_MAX (64u << 10)
#define MS_CHILD_READY_SECONDS 10ull
/* The longest a send waits for room in a ready child's socket. */
#define MS_CHILD_SEND_SECONDS 30ull
/* The exit status a child gives when a library it runs reports it is out of memory. */
#define MS_CHILD_EXIT_NOMEM 3

struct ms_child_spec {
	void (*prepare)(void *arg);        /* in the child, before its limits: may open files */
	int (*serve)(int sock, void *arg); /* in the child, limited: returns its exit status */
	void *arg;
};

typedef bool (*ms_child_interrupt_fn)(void *arg);

struct ms_child;

/* 0 with *out, or MS_ERR_IO / MS_ERR_NOMEM with err set. */
int ms_child_start(const struct ms_child_spec *spec, struct ms_child **out, struct ms_error *err);
/* 0, or MS_ERR_IO when the child is gone (then ms_child_why). fd -1: none. */
int ms_child_send(struct ms_child *c, const void *buf, size_t len, int fd);
/*
 * The next frame: its length (> 0), *fd set to a received descriptor or
 * -1; or MS_ERR_LIMIT when the child ended or was ended (ms_child_why).
 */
long ms_child_recv(struct ms_child *c, void *buf, size_t cap, int *fd, uint64_t deadline_ns,
		   ms_child_interrupt_fn interrupt, void *arg);
/* How long a later send may wait for room in the socket (ns; 0: not at all). */
void ms_child_send_limit(struct ms_child *c, uint64_t ns);
bool ms_child_alive(const struct ms_child *c);
const char *ms_child_why(const struct ms_child *c);
pid_t ms_child_pid(const struct ms_child *c);
/* Kill (if alive) and reap without blocking; c may be NULL. */
void ms_child_free(struct ms_child *c);

/* CLOCK_MONOTONIC in nanoseconds, for deadlines. */
uint64_t ms_child_now_ns(void);

/*
 * In the child (and for tests): one frame over a socket, blocking.
 * ms_child_io_recv returns the length, 0 at the end, or -1 (a frame cut
 * short or with more than one descriptor, or an error).
 */
long ms_child_io_recv(int sock, void *buf, size_t cap, int *fd);
int ms_child_io_send(int sock, const void *buf, size_t len, int fd);
/* In the child: room in the address space for a file of bytes about to be mapped. */
void ms_child_room_add(uint64_t bytes);

#endif
