/*
 * walkfix.h - a root of its own for the untrusted walk's tests
 * (src/core/untrusted/untrusted_walk.h): a temporary directory that the
 * test builds its tree in and every walk starts from, our mount table, and
 * the walk root over both.
 *
 * Contract: walkfix_open fails the running cmocka test when it cannot make
 * the root; walkfix_close frees what it made and removes the tree, the
 * root's cache aside (a test that adds one frees it).
 */
#ifndef MAPSCOPE_TESTS_WALKFIX_H
#define MAPSCOPE_TESTS_WALKFIX_H

#include "untrusted/untrusted_walk.h"

struct walkfix {
	char *dir;                     /* the temporary directory, 0755, so uid 65534 may walk it too */
	int rootfd;                    /* an O_PATH descriptor of dir */
	struct ms_walk_mounts *mounts; /* our mount table, as the walk reads it */
	struct ms_walk_root root;      /* dir as the walk's root, with no cache */
};

/* Make the root, with the folders dirs (0755, parents first, NULL at the end) in it. */
void walkfix_open(struct walkfix *w, const char *const *dirs);
void walkfix_close(struct walkfix *w);

#endif
