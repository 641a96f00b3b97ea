/*
 * screenfix.h - what the screen tests (test_tui_screen) share: an ncurses
 * screen of their own, drawn to /dev/null, read back as text, and compared
 * with the expected screens under SCREENS_DIR (tests/screens/).
 *
 * Contract: screenfix_term_setup and screenfix_term_teardown are a cmocka
 * group's setup and teardown; between them stdscr is a terminal the tests
 * resize at will.  MS_UPDATE_SCREENS=1 makes screenfix_compare write the
 * screen it got as the expected one first.  Failures fail the running
 * cmocka test.
 */
#ifndef MAPSCOPE_TESTS_SCREENFIX_H
#define MAPSCOPE_TESTS_SCREENFIX_H

#include <stdint.h>
#include <curses.h>

struct ms_maplist;
struct tui_app;

int screenfix_term_setup(void **state);
int screenfix_term_teardown(void **state);

/* A zeroed app with the default settings, escaping to ASCII (the expected screens are ASCII). */
void screenfix_app_init(struct tui_app *app);

/* The window as text: one line per row, trailing blanks removed; the caller frees it. */
char *screenfix_dump(WINDOW *win);

/* Fail the running test unless got is the expected screen SCREENS_DIR/name. */
void screenfix_compare(const char *name, const char *got);

/* Append a mapping to l: start..end, perms, name (NULL: none), device major and inode; executable ones get a build ID. */
void screenfix_push_map(struct ms_maplist *l, uint64_t start, uint64_t end, unsigned perms, const char *name,
			uint32_t major, uint64_t inode);

#endif
