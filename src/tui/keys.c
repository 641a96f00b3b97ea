/*
 * Key names in the action table -> key codes: the dispatcher.  A name
 * matches what curses decodes from the terminal description and what the
 * escape decoder (keydec.h) reads from sequences the description lacks.
 */
#include "config.h"

#include <string.h>

#include "tui/keydec.h"
#include "tui/tui.h"

static bool name_is_key(const char *name, size_t len, int key)
{
	static const struct {
		const char *name;
		int codes[3];
	} names[] = {
		{ "Down", { KEY_DOWN, TUI_KEY_DOWN } }, { "Up", { KEY_UP, TUI_KEY_UP } },
		{ "Left", { KEY_LEFT, TUI_KEY_LEFT } }, { "Right", { KEY_RIGHT, TUI_KEY_RIGHT } },
		{ "PgDn", { KEY_NPAGE, TUI_KEY_PGDN } }, { "PgUp", { KEY_PPAGE, TUI_KEY_PGUP } },
		/* VT220 terminfo calls ESC [ 1 ~ and ESC [ 4 ~ Find and Select, where Home and End sit. */
		{ "Home", { KEY_HOME, TUI_KEY_HOME, KEY_FIND } },
		{ "End", { KEY_END, TUI_KEY_END, KEY_SELECT } },
		{ "Enter", { '\n', '\r', KEY_ENTER } }, { "Tab", { '\t' } },
		{ "Esc", { TUI_KEY_ESC } }, { "Space", { ' ' } },
		{ "F1", { KEY_F(1), TUI_KEY_F(1) } }, { "F5", { KEY_F(5), TUI_KEY_F(5) } },
		{ "^L", { 'L' & 0x1f } },
	};

	if (len == 1)
		return key == (unsigned char)name[0];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) != len || strncmp(names[i].name, name, len))
			continue;
		for (size_t j = 0; j < 3; j++)
			if (names[i].codes[j] && names[i].codes[j] == key)
				return true;
		return false;
	}
	return false;
}

static bool keys_match(const char *keys, int key)
{
	while (*keys) {
		size_t len = strcspn(keys, " ");

		if (name_is_key(keys, len, key))
			return true;
		keys += len;
		while (*keys == ' ')
			keys++;
	}
	return false;
}

enum tui_action tui_key_action(enum tui_scope scope, int key)
{
	size_t n;
	const struct tui_action_info *a = tui_actions(&n);

	for (size_t i = 0; i < n; i++)
		if (a[i].scope == scope && keys_match(a[i].keys, key))
			return a[i].id;
	for (size_t i = 0; i < n; i++)
		if (a[i].scope == TUI_SCOPE_ALL && keys_match(a[i].keys, key))
			return a[i].id;
	return TUI_ACT_NONE;
}
