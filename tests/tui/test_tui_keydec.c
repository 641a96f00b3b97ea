/*
 * The escape decoder: byte strings as terminals send them -> the keys the
 * explorer sees.  "T" in a case means the escape delay passed after the
 * bytes (the caller's timeout).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tui/keydec.h"

#define MAXOUT 8
#define IGN TUI_KEY_IGNORED
#define HELD(c) (0x40000000 | (c)) /* c comes from tui_keydec_held */

struct keycase {
	const char *what;
	const char *bytes;
	bool then_timeout;
	int keys[MAXOUT]; /* what comes out, in order, 0-terminated */
};

static const struct keycase cases[] = {
	/* Plain bytes pass through. */
	{ "letter", "x", false, { 'x' } },
	{ "Enter", "\r", false, { '\r' } },
	/* The lone Esc, and Esc pressed twice. */
	{ "lone Esc", "\033", true, { TUI_KEY_ESC } },
	{ "Esc Esc", "\033\033", true, { TUI_KEY_ESC, TUI_KEY_ESC } },
	/* Home and End in every form htop binds. */
	{ "Home CSI 1~", "\033[1~", false, { TUI_KEY_HOME } },
	{ "Home CSI 7~", "\033[7~", false, { TUI_KEY_HOME } },
	{ "Home CSI H", "\033[H", false, { TUI_KEY_HOME } },
	{ "Home SS3 H", "\033OH", false, { TUI_KEY_HOME } },
	{ "End CSI 4~ (tmux)", "\033[4~", false, { TUI_KEY_END } },
	{ "End CSI 8~", "\033[8~", false, { TUI_KEY_END } },
	{ "End CSI F", "\033[F", false, { TUI_KEY_END } },
	{ "End SS3 F", "\033OF", false, { TUI_KEY_END } },
	{ "PgUp", "\033[5~", false, { TUI_KEY_PGUP } },
	{ "PgDn", "\033[6~", false, { TUI_KEY_PGDN } },
	{ "Delete", "\033[3~", false, { TUI_KEY_DELETE } },
	{ "Insert", "\033[2~", false, { TUI_KEY_INSERT } },
	/* Arrows, normal and application mode. */
	{ "Up CSI", "\033[A", false, { TUI_KEY_UP } },
	{ "Down CSI", "\033[B", false, { TUI_KEY_DOWN } },
	{ "Right CSI", "\033[C", false, { TUI_KEY_RIGHT } },
	{ "Left CSI", "\033[D", false, { TUI_KEY_LEFT } },
	{ "Up SS3", "\033OA", false, { TUI_KEY_UP } },
	{ "Down SS3", "\033OB", false, { TUI_KEY_DOWN } },
	{ "Right SS3", "\033OC", false, { TUI_KEY_RIGHT } },
	{ "Left SS3", "\033OD", false, { TUI_KEY_LEFT } },
	/* Modifiers come back with the key, so nobody binds them by accident. */
	{ "Ctrl+Up", "\033[1;5A", false, { TUI_KEY_WITH(TUI_KEY_UP, TUI_MOD_CTRL) } },
	{ "Ctrl+Down", "\033[1;5B", false, { TUI_KEY_WITH(TUI_KEY_DOWN, TUI_MOD_CTRL) } },
	{ "Shift+End", "\033[1;2F", false, { TUI_KEY_WITH(TUI_KEY_END, TUI_MOD_SHIFT) } },
	{ "Ctrl+Delete", "\033[3;5~", false, { TUI_KEY_WITH(TUI_KEY_DELETE, TUI_MOD_CTRL) } },
	/* Function keys. */
	{ "F1 SS3", "\033OP", false, { TUI_KEY_F(1) } },
	{ "F1 vt220", "\033[11~", false, { TUI_KEY_F(1) } },
	{ "F5 xterm", "\033[15~", false, { TUI_KEY_F(5) } },
	{ "F12", "\033[24~", false, { TUI_KEY_F(12) } },
	{ "F1 Linux console", "\033[[A", false, { TUI_KEY_F(1) } },
	{ "F5 Linux console", "\033[[E", false, { TUI_KEY_F(5) } },
	{ "keypad Enter", "\033OM", false, { '\r' } },
	/* Alt+key: one key, never Esc then the letter. */
	{ "Alt+x", "\033x", false, { TUI_KEY_ALT + 'x' } },
	{ "Alt+x then x", "\033xx", false, { TUI_KEY_ALT + 'x', 'x' } },
	{ "Alt+[ alone", "\033[", true, { TUI_KEY_ALT + '[' } },
	{ "Alt+O alone", "\033O", true, { TUI_KEY_ALT + 'O' } },
	/* Esc then a control key, typed fast: two keys, the second held. */
	{ "Esc then Enter", "\033\r", false, { TUI_KEY_ESC, HELD('\r') } },
	{ "Esc then Backspace", "\033\177", false, { TUI_KEY_ESC, HELD(0x7f) } },
	{ "Esc then Tab", "\033\t", false, { TUI_KEY_ESC, HELD('\t') } },
	/* Unknown sequences are swallowed whole. */
	{ "unknown tilde", "\033[99~", false, { IGN } },
	{ "unknown final", "\033[5z", false, { IGN } },
	{ "private marker (a report)", "\033[?1;2c", false, { IGN } },
	{ "intermediate byte", "\033[1 q", false, { IGN } },
	{ "three parameters", "\033[1;2;3A", false, { IGN } },
	{ "huge parameter", "\033[99999999999~", false, { IGN } },
	{ "unknown SS3", "\033Oz", false, { IGN } },
	{ "unknown Linux F-key", "\033[[Z", false, { IGN } },
	{ "cut CSI, then a key", "\033[12", true, { IGN } },
	{ "control byte cuts CSI", "\033[1\r", false, { IGN } },
	{ "overlong CSI to its final byte, then a key",
	  "\033[11111111111111111111111111111111111111111111111111~q", false, { IGN, 'q' } },
	/* Sequences back to back. */
	{ "End Home", "\033[4~\033[1~", false, { TUI_KEY_END, TUI_KEY_HOME } },
	{ "Esc then Up", "\033\033[A", false, { TUI_KEY_ESC, TUI_KEY_UP } },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct keycase *k = &cases[c];
		struct tui_keydec d;
		int got[MAXOUT + 1];
		size_t n = 0, want = 0;

		tui_keydec_init(&d);
		for (const char *p = k->bytes; *p; p++) {
			int key = tui_keydec_feed(&d, (unsigned char)*p);

			int held;

			if (key != TUI_KEY_PENDING && n < MAXOUT)
				got[n++] = key;
			held = tui_keydec_held(&d);
			if (held >= 0 && n < MAXOUT)
				got[n++] = HELD(held);
		}
		if (k->then_timeout && n < MAXOUT)
			got[n++] = tui_keydec_timeout(&d);
		while (want < MAXOUT && k->keys[want])
			want++;
		if (n != want)
			fail_msg("%s: %zu keys, want %zu", k->what, n, want);
		for (size_t i = 0; i < n; i++)
			if (got[i] != k->keys[i])
				fail_msg("%s: key %zu is %#x, want %#x", k->what, i, (unsigned)got[i],
					 (unsigned)k->keys[i]);
		if (tui_keydec_pending(&d))
			fail_msg("%s: still inside a sequence", k->what);
	}
}

/* Values outside a sequence (curses key codes) pass through untouched. */
static void test_curses_codes_pass(void **state)
{
	struct tui_keydec d;

	(void)state;
	tui_keydec_init(&d);
	assert_int_equal(tui_keydec_feed(&d, 0410), 0410);
	assert_int_equal(tui_keydec_timeout(&d), TUI_KEY_IGNORED);
	assert_false(tui_keydec_pending(&d));
	assert_int_equal(tui_keydec_held(&d), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_curses_codes_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
