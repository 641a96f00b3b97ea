/*
 * symbols_child.h - the symbol reader's side of the isolated child, and
 * the frames both sides exchange.  Internal to symbols.h.
 *
 * The child (untrusted_child.h) runs ms_symchild_serve: a symbols_dw.h
 * session that answers one frame at a time.  The parent sends
 *   ADD     file number, span, trusted or not, the mapping's name, and the
 *           file's descriptor (no answer: a file that gives no symbols says
 *           why in the answers about it);
 *   LOOKUP  what to look up, and 1 to MS_SYMMSG_MANY_MAX pairs of file
 *           number and address;
 * and the child answers each pair of a LOOKUP, in order, with an ANSWER
 * (the symbol, its offset, the source file, line and compilation
 * directory, and why when something is missing), many ANSWERs packed in
 * one ANSWERS frame: sent when full, when the LOOKUP's pairs are all
 * answered, or MS_SYMMSG_FLUSH_MS after its first answer, so the parent's
 * deadline measures the reader's work, not the packing.  Many addresses
 * in one frame save two context switches each: `at` reads thousands.  While it works on a LOOKUP the child may send NEED_DEBUG
 * (the file's number, its build ID and its .gnu_debuglink name) and then
 * waits for DEBUG (a debug file's descriptor, or none): the parent alone
 * chooses and opens debug files.
 *
 * Every frame starts with its type; lengths are checked against the frame
 * received, strings are at most MS_SYMMSG_STR_MAX bytes (longer ones are
 * cut there) and never hold a NUL.  A decoder returns 0, or -1 for a frame
 * that breaks any of that; the fuzz target feeds them arbitrary bytes.
 * Strings decoded from an answer are raw bytes from a file anyone may have
 * written: they are escaped before display, as ever (symbol_text.h).
 */
#ifndef MAPSCOPE_SYMBOLS_CHILD_H
#define MAPSCOPE_SYMBOLS_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/mapping.h"
#include "elf/symbols.h"

#define MS_SYMMSG_STR_MAX 4096u
#define MS_SYMMSG_FLUSH_MS 100u
/* Pairs in one LOOKUP: 16 bytes each, within MS_CHILD_FRAME_MAX. */
#define MS_SYMMSG_MANY_MAX 1024u

enum ms_symmsg_type {
	MS_SYMMSG_ADD = 1,
	MS_SYMMSG_LOOKUP,
	MS_SYMMSG_NEED_DEBUG,
	MS_SYMMSG_DEBUG,
	MS_SYMMSG_ANSWER,
	MS_SYMMSG_ANSWERS,
};

struct ms_symmsg_add {
	uint32_t file;
	uint64_t low, high;
	bool trusted;
	const char *path; /* NUL-terminated, into the frame */
};

struct ms_symmsg_lookup {
	uint32_t file;
	uint64_t addr;
	unsigned what;
};

struct ms_symmsg_need_debug {
	uint32_t file;
	size_t id_len;
	unsigned char id[MS_BUILD_ID_MAX];
	char debuglink[256]; /* "" when none */
};

/* Frames are built into buf (MS_CHILD_FRAME_MAX bytes); each returns its length, or 0. */
size_t ms_symmsg_put_add(unsigned char *buf, const struct ms_symmsg_add *m);
/* count (1 to MS_SYMMSG_MANY_MAX) lookups, all with q[0].what. */
size_t ms_symmsg_put_many(unsigned char *buf, const struct ms_symmsg_lookup *q, size_t count);
size_t ms_symmsg_put_need_debug(unsigned char *buf, const struct ms_symmsg_need_debug *m);
size_t ms_symmsg_put_debug(unsigned char *buf, bool found);
size_t ms_symmsg_put_answer(unsigned char *buf, const struct ms_symbol *s);

/*
 * An ANSWERS frame in buf: begin it (its length, *len), then add answers
 * while they fit (false: send it and begin another).
 */
void ms_symmsg_answers_begin(unsigned char *buf, size_t *len);
bool ms_symmsg_answers_add(unsigned char *buf, size_t *len, const struct ms_symbol *s);
/* How many answers a begun frame holds. */
size_t ms_symmsg_answers_count(const unsigned char *buf);
/*
 * The next answer of an ANSWERS frame, from *off (0 at first): 1 with out
 * filled (as ms_symmsg_get_answer), 0 at the frame's end (after as many
 * answers as it says), -1 when malformed.
 */
int ms_symmsg_answers_next(const unsigned char *buf, size_t len, size_t *off, struct ms_symbol *out,
			   char *store, size_t store_len);

/* The frame's type, or 0 when it is too short to have one. */
enum ms_symmsg_type ms_symmsg_type(const unsigned char *buf, size_t len);
/* buf must have one spare byte past len (a NUL is put after strings there). */
int ms_symmsg_get_add(unsigned char *buf, size_t len, struct ms_symmsg_add *m);
/* Into q (MS_SYMMSG_MANY_MAX entries), *count of them. */
int ms_symmsg_get_many(const unsigned char *buf, size_t len, struct ms_symmsg_lookup *q, size_t *count);
int ms_symmsg_get_need_debug(const unsigned char *buf, size_t len, struct ms_symmsg_need_debug *m);
int ms_symmsg_get_debug(const unsigned char *buf, size_t len, bool *found);
/*
 * An answer into out: strings are copied into store (store_len bytes, at
 * least 4 * (MS_SYMMSG_STR_MAX + 1)) and out's pointers point there.
 */
int ms_symmsg_get_answer(const unsigned char *buf, size_t len, struct ms_symbol *out, char *store,
			 size_t store_len);

/* The child's loop over sock (untrusted_child.h's serve). */
int ms_symchild_serve(int sock, void *arg);
/* The child's preparation: load libdw, and keep it from reaching debuginfod. */
void ms_symchild_prepare(void *arg);

#endif
