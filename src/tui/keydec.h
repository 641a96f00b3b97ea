/*
 * keydec.h - the bytes after an ESC, read whole into one key (no curses).
 *
 * curses decodes the sequences the terminal description lists.  Terminals
 * and multiplexers send others: tmux sends End as ESC [ 4 ~ whatever TERM
 * says, PuTTY and the Linux console have their own Home and End, and Alt+x
 * arrives as ESC x.  Taking the ESC alone as the Esc key would close a view
 * and then read the rest as letters, so every byte the explorer reads goes
 * through this decoder, which returns each sequence as one key or swallows
 * it:
 *   - CSI: ESC [, parameter bytes (0x30-0x3f), intermediate bytes
 *     (0x20-0x2f), one final byte (0x40-0x7e).  "n ~" and "1 ; m X" forms
 *     name Home, End, PgUp, PgDn, Insert, Delete, the arrows and F1-F12;
 *     a modifier m (xterm's 1 + Shift 1, Alt 2, Ctrl 4) comes back with
 *     TUI_KEY_WITH.  The Linux console's ESC [ [ A..E are F1..F5.
 *   - SS3: ESC O and one byte (arrows, Home, End, F1-F4, keypad Enter).
 *   - Alt+key: ESC and a printable byte (or one of a UTF-8 character),
 *     returned as TUI_KEY_ALT + byte.  ESC and a control byte (Enter, Tab,
 *     Backspace) are two keys, Esc and that byte, which the caller takes
 *     with tui_keydec_held.
 *   - Esc: an ESC with nothing after it within the escape delay.  The
 *     decoder cannot see time: the caller reads the next byte with that
 *     delay and reports silence with tui_keydec_timeout.
 * Anything else after ESC [ or ESC O is swallowed (TUI_KEY_IGNORED), never
 * passed on as bytes.  A sequence longer than TUI_KEYDEC_MAX is swallowed up
 * to its final byte.  Outside a sequence every value passes through as it
 * is, so curses key codes and plain bytes need no special path.
 */
#ifndef MAPSCOPE_TUI_KEYDEC_H
#define MAPSCOPE_TUI_KEYDEC_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_KEYDEC_MAX 32

enum {
	TUI_KEY_IGNORED = -2, /* a whole sequence that means nothing here */
	TUI_KEY_PENDING = -1, /* inside a sequence: feed the next byte or time out */
	TUI_KEY_ESC = 27,
	/* Above every byte, Unicode value and curses key code. */
	TUI_KEY_UP = 0x110000,
	TUI_KEY_DOWN,
	TUI_KEY_RIGHT,
	TUI_KEY_LEFT,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_INSERT,
	TUI_KEY_DELETE,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_F0,
	TUI_KEY_ALT = 0x120000, /* + the byte after the ESC */
};

#define TUI_KEY_F(n) (TUI_KEY_F0 + (n))
/* Modifier bits, xterm's parameter minus one. */
#define TUI_MOD_SHIFT 1
#define TUI_MOD_ALT 2
#define TUI_MOD_CTRL 4
#define TUI_KEY_WITH(key, mods) ((key) | ((mods) << 12))

struct tui_keydec {
	int state;
	unsigned char seq[TUI_KEYDEC_MAX];
	size_t len;
	int held; /* a byte that came after an Esc, still to hand out; -1: none */
};

void tui_keydec_init(struct tui_keydec *d);

/*
 * Feed one value read from curses.  Returns a key, TUI_KEY_PENDING or
 * TUI_KEY_IGNORED.  Call only with bytes (0-255) while a sequence is
 * pending; a curses key then means the sequence was cut short: call
 * tui_keydec_timeout first.  ESC ESC returns Esc for the first and stays
 * pending on the second.
 */
int tui_keydec_feed(struct tui_keydec *d, int byte);

/* Nothing came within the escape delay: Esc, Alt+[ or Alt+O, or IGNORED. */
int tui_keydec_timeout(struct tui_keydec *d);

bool tui_keydec_pending(const struct tui_keydec *d);

/* The byte that followed an Esc returned by feed, to handle next, or -1. */
int tui_keydec_held(struct tui_keydec *d);

#endif
