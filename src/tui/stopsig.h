/*
 * stopsig.h - leave the terminal as it was when a signal ends the explorer.
 *
 * SIGTERM (kill, a service manager's stop), SIGHUP (a closed SSH session or
 * terminal window), SIGINT and SIGQUIT sent from outside would end the
 * process with the terminal still in curses mode: the alternate screen,
 * mouse reporting, a hidden cursor, no echo.  curses cannot be left from a
 * signal handler (endwin is not async-signal-safe), so:
 *   - tui_stopsig_install catches the four (without SA_RESTART, so a
 *     blocked read returns at once) and only records which one came;
 *   - the input loop asks tui_stopsig_pending after every wake-up and, when
 *     one came, unwinds and leaves curses as on 'q';
 *   - tui_stopsig_reraise then ends the process by that same signal with
 *     its default action, so the parent (a shell, systemd) sees how it
 *     ended.  It returns only when no signal came.
 * Install after curses has started: ncurses sets handlers of its own for
 * SIGINT and SIGTERM, which exit with status 1.
 */
#ifndef MAPSCOPE_TUI_STOPSIG_H
#define MAPSCOPE_TUI_STOPSIG_H

#include <stdbool.h>

void tui_stopsig_install(void);
bool tui_stopsig_pending(void);
void tui_stopsig_reraise(void);

#endif
