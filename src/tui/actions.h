/*
 * actions.h - every explorer action, in one table.
 *
 * TUI_ACTIONS is an X-macro: A(ID, SCOPE, KEYS, HELP).  KEYS is the default
 * binding, key names separated by spaces ("Down j", "F5 ^L").  From this one
 * table come:
 *   - the key dispatcher (keys.c turns names into curses key codes);
 *   - the help screen (tui_action_help_line);
 *   - the man page's KEYS section (tui_actions_dump_roff, run as the hidden
 *     `mapscope --dump-keys=roff`; a test compares it with man/mapscope.1).
 * Actions never draw: a view handles one and returns TUI_F_* flags.
 *
 * This file and actions.c are curses-free.
 */
#ifndef MAPSCOPE_TUI_ACTIONS_H
#define MAPSCOPE_TUI_ACTIONS_H

#include <stddef.h>
#include <stdio.h>

enum tui_scope {
	TUI_SCOPE_ALL,
	TUI_SCOPE_PROCS,
	TUI_SCOPE_MAPS,
	TUI_SCOPE_STALE,
	TUI_SCOPE_FILES,
	TUI_SCOPE_LIBS,
	TUI_SCOPE_LIBPROCS,
	TUI_SCOPE_COLUMNS,
	TUI_SCOPE_COUNT,
};

#define TUI_ACTIONS(A) \
	A(DOWN, TUI_SCOPE_ALL, "Down j", "move to the next row") \
	A(UP, TUI_SCOPE_ALL, "Up k", "move to the previous row") \
	A(PAGE_DOWN, TUI_SCOPE_ALL, "PgDn", "move one page down") \
	A(PAGE_UP, TUI_SCOPE_ALL, "PgUp", "move one page up") \
	A(HOME, TUI_SCOPE_ALL, "Home", "go to the first row") \
	A(END, TUI_SCOPE_ALL, "End", "go to the last row") \
	A(SCROLL_LEFT, TUI_SCOPE_ALL, "Left", "scroll NAME or COMMAND back (the heading shows the offset)") \
	A(SCROLL_RIGHT, TUI_SCOPE_ALL, "Right", "scroll NAME or COMMAND on, showing it whole, unelided") \
	A(PAUSE, TUI_SCOPE_ALL, "Space", "pause or resume the live refresh") \
	A(REFRESH, TUI_SCOPE_ALL, "F5 ^L", "refresh now") \
	A(HELP, TUI_SCOPE_ALL, "? F1", "show this help") \
	A(BACK, TUI_SCOPE_ALL, "Esc", "close the innermost: prompt, help, detail pane, view; never quits") \
	A(QUIT, TUI_SCOPE_ALL, "q", "go back; quit from the first screen") \
	A(STALE_VIEW, TUI_SCOPE_ALL, "D", "processes running deleted or replaced files") \
	A(COLUMNS, TUI_SCOPE_ALL, "C", "choose, order, hide this list's columns (saved in the config file)") \
	A(OPEN, TUI_SCOPE_PROCS, "Enter", "open the selected process") \
	A(SORT_NEXT, TUI_SCOPE_PROCS, ">", "sort by the next column") \
	A(SORT_PREV, TUI_SCOPE_PROCS, "<", "sort by the previous column") \
	A(SORT_REVERSE, TUI_SCOPE_PROCS, "I", "reverse the sort order") \
	A(SEARCH, TUI_SCOPE_PROCS, "/", "search command lines as you type") \
	A(SEARCH_NEXT, TUI_SCOPE_PROCS, "n", "next match of the search") \
	A(SEARCH_PREV, TUI_SCOPE_PROCS, "N", "previous match of the search") \
	A(PROCS_FILTER, TUI_SCOPE_PROCS, "\\", "show only command lines containing a text") \
	A(USERS, TUI_SCOPE_PROCS, "u", "your own processes, or everyone's") \
	A(KTHREADS, TUI_SCOPE_PROCS, "K", "show or hide kernel threads") \
	A(LIBS_VIEW, TUI_SCOPE_PROCS, "L", "libraries: every mapped file of every process, as mapscope libs, live") \
	A(DETAIL, TUI_SCOPE_MAPS, "Enter Tab", "show or hide the detail pane") \
	A(FILTER_FILE, TUI_SCOPE_MAPS, "f", "only file-backed mappings (kernel filter)") \
	A(FILTER_EXEC, TUI_SCOPE_MAPS, "x", "only executable mappings (kernel filter)") \
	A(FILTER_WRITE, TUI_SCOPE_MAPS, "w", "only writable mappings (kernel filter)") \
	A(FILTER_READ, TUI_SCOPE_MAPS, "r", "only readable mappings (kernel filter)") \
	A(FILTER_SHARED, TUI_SCOPE_MAPS, "s", "only shared mappings (kernel filter)") \
	A(FILTER_NAME, TUI_SCOPE_MAPS, "\\", "filter names by substring") \
	A(MAPS_SEARCH, TUI_SCOPE_MAPS, "/", "search mapping names as you type, past the rows on screen") \
	A(MAPS_SEARCH_NEXT, TUI_SCOPE_MAPS, "n", "next match of the search") \
	A(MAPS_SEARCH_PREV, TUI_SCOPE_MAPS, "N", "previous match of the search") \
	A(GOTO, TUI_SCOPE_MAPS, "g", "go to a hex address: its mapping or the next; name+0xoff file:line") \
	A(SNAPSHOT, TUI_SCOPE_MAPS, "S", "save a snapshot of this process to a file") \
	A(RSS_COLUMN, TUI_SCOPE_MAPS, "R", "show or hide the RSS column (resident memory)") \
	A(MAPS_SORT_NEXT, TUI_SCOPE_MAPS, ">", "sort by the next column: address, SIZE, RSS, PERMS, INODE, NAME") \
	A(MAPS_SORT_PREV, TUI_SCOPE_MAPS, "<", "sort by the previous column (RSS only while it shows)") \
	A(MAPS_SORT_REVERSE, TUI_SCOPE_MAPS, "I", "reverse the sort order") \
	A(FILES_VIEW, TUI_SCOPE_MAPS, "F", "files: one row per file or kind of anonymous memory") \
	A(STALE_OPEN, TUI_SCOPE_STALE, "Enter", "open the selected process") \
	A(STALE_DETAIL, TUI_SCOPE_STALE, "Tab", "show or hide the detail pane: the whole explanation, package and versions") \
	A(STALE_SEARCH, TUI_SCOPE_STALE, "/", "search command lines and file names as you type") \
	A(STALE_SEARCH_NEXT, TUI_SCOPE_STALE, "n", "next match of the search") \
	A(STALE_SEARCH_PREV, TUI_SCOPE_STALE, "N", "previous match of the search") \
	A(STALE_FILTER, TUI_SCOPE_STALE, "\\", "show only processes and files containing a text") \
	A(STALE_BY_UNIT, TUI_SCOPE_STALE, "u", "group by systemd unit, as stale --restart-plan, or list by process") \
	A(FILES_JUMP, TUI_SCOPE_FILES, "Enter", "back to the maps view, at the file's first mapping") \
	A(FILES_SORT_NEXT, TUI_SCOPE_FILES, ">", "sort by the next column: SIZE, RSS, MAPS, NAME, address") \
	A(FILES_SORT_PREV, TUI_SCOPE_FILES, "<", "sort by the previous column") \
	A(FILES_SORT_REVERSE, TUI_SCOPE_FILES, "I", "reverse the sort order") \
	A(FILES_SEARCH, TUI_SCOPE_FILES, "/", "search file names as you type") \
	A(FILES_SEARCH_NEXT, TUI_SCOPE_FILES, "n", "next match of the search") \
	A(FILES_SEARCH_PREV, TUI_SCOPE_FILES, "N", "previous match of the search") \
	A(FILES_FILTER, TUI_SCOPE_FILES, "\\", "show only mappings whose name contains a text") \
	A(LIBS_OPEN, TUI_SCOPE_LIBS, "Enter", "the processes that map the selected file") \
	A(LIBS_SORT_NEXT, TUI_SCOPE_LIBS, ">", "sort by the next column: PROCS, RSS, VERDICT, PACKAGE, NAME") \
	A(LIBS_SORT_PREV, TUI_SCOPE_LIBS, "<", "sort by the previous column") \
	A(LIBS_SORT_REVERSE, TUI_SCOPE_LIBS, "I", "reverse the sort order") \
	A(LIBS_SEARCH, TUI_SCOPE_LIBS, "/", "search paths, SONAMEs and packages as you type") \
	A(LIBS_SEARCH_NEXT, TUI_SCOPE_LIBS, "n", "next match of the search") \
	A(LIBS_SEARCH_PREV, TUI_SCOPE_LIBS, "N", "previous match of the search") \
	A(LIBS_FILTER, TUI_SCOPE_LIBS, "\\", "show only files whose path, SONAME or package contains a text") \
	A(LIBPROCS_OPEN, TUI_SCOPE_LIBPROCS, "Enter", "open the process's maps view at the file's first mapping") \
	A(COLUMN_TOGGLE, TUI_SCOPE_COLUMNS, "Space Enter", "show or hide the selected column") \
	A(COLUMN_EARLIER, TUI_SCOPE_COLUMNS, "[ -", "move the selected column left") \
	A(COLUMN_LATER, TUI_SCOPE_COLUMNS, "] +", "move the selected column right")

enum tui_action {
	TUI_ACT_NONE,
#define TUI_ACTION_ENUM(id, scope, keys, help) TUI_ACT_##id,
	TUI_ACTIONS(TUI_ACTION_ENUM)
#undef TUI_ACTION_ENUM
	TUI_ACT_COUNT,
};

/* What a view asks of the loop after an action or a tick. */
#define TUI_F_REDRAW 0x1u  /* draw again */
#define TUI_F_REQUERY 0x2u /* query the kernel again now */
#define TUI_F_BACK 0x4u    /* close this view */
#define TUI_F_QUIT 0x8u    /* leave the program */

struct tui_action_info {
	enum tui_action id;
	enum tui_scope scope;
	const char *keys;
	const char *help;
};

/* The table, TUI_ACT_COUNT - 1 entries in TUI_ACTIONS order. */
const struct tui_action_info *tui_actions(size_t *count);


/* "Down, j" from "Down j". */
void tui_action_keys_label(const struct tui_action_info *a, char *buf, size_t size);

/*
 * What the table cannot say key by key (how Esc, Alt and unknown escape
 * sequences behave): one sentence a line, for the help screen and the
 * man page alike.
 */
const char *const *tui_action_notes(size_t *count);

/* The man page's KEYS section body (no .SH line), in roff. */
void tui_actions_dump_roff(FILE *out);

#endif
