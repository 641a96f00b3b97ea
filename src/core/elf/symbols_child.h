/*
 * symbols_child.h - the symbol reader's side of the isolated child, and
 * the frames both sides exchange.  Internal to symbols.h.
 *
 * The child (untrusted_child.h) runs ms_symchild_serve: a symbols_dw.h
 * session that answers one frame at a time.  The parent sends
 *   ADD     file number, span, trusted or not, the mapping's name, and the
 *           file's descriptor (no answer: a file that gives no symbols says
 *           why in the answers about it);
 *   LOOKUP  file number, address, what to look up;
 * and the child answers a LOOKUP with ANSWER (the symbol, its offset, the
 * source file, line and compilation directory, and why when something is
 * missing).  While it works on a LOOKUP the child may send NEED_DEBUG
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

enum ms_symmsg_type {
	MS_SYMMSG_ADD = 1,
	MS_SYMMSG_LOOKUP,
	MS_SYMMSG_NEED_DEBUG,
	MS_SYMMSG_DEBUG,
	MS_SYMMSG_ANSWER,
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
size_t ms_symmsg_put_lookup(unsigned char *buf, const struct ms_symmsg_lookup *m);
size_t ms_symmsg_put_need_debug(unsigned char *buf, const struct ms_symmsg_need_debug *m);
size_t ms_symmsg_put_debug(unsigned char *buf, bool found);
size_t ms_symmsg_put_answer(unsigned char *buf, const struct ms_symbol *s);

/* The frame's type, or 0 when it is too short to have one. */
enum ms_symmsg_type ms_symmsg_type(const unsigned char *buf, size_t len);
/* buf must have one spare byte past len (a NUL is put after strings there). */
int ms_symmsg_get_add(unsigned char *buf, size_t len, struct ms_symmsg_add *m);
int ms_symmsg_get_lookup(const unsigned char *buf, size_t len, struct ms_symmsg_lookup *m);
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
