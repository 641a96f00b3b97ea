/*
 * notelib.h - small shared libraries linked here with cc, with or without
 * an ELF package note (ld's --package-metadata), for the tests of the note
 * reader and of the facts that read it.
 *
 * tu_have_cc: is there a C compiler to link with (asked once)?
 * tu_build_so: DIR/NAME, a shared library of one function, linked with the
 * note json (NULL: none); the path (malloc'd), or NULL when the linker
 * refused it (an ld without --package-metadata).
 */
#ifndef MAPSCOPE_TESTS_NOTELIB_H
#define MAPSCOPE_TESTS_NOTELIB_H

#include <stdbool.h>

bool tu_have_cc(void);
char *tu_build_so(const char *dir, const char *name, const char *json);

#endif
