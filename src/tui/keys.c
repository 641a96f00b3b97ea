/* Key names in the action table -> curses key codes: the dispatcher. */
#include "config.h"

#include <string.h>

#include "tui/tui.h"

static bool name_is_key(const char *name, size_t len, int key)
{
	static const struct {
		const char *name;
		int codes[3];
	} names[] = {
		{ "Down", { KEY_DOWN } }, { "Up", { KEY_UP } },
		{ "PgDn", { KEY_NPAGE } }, { "PgUp", { KEY_PPAGE } },
		{ "Home", { KEY_HOME } }, { "End", { KEY_END } },
		{ "Enter", { '\n', '\r', KEY_ENTER } }, { "Tab", { '\t' } },
		{ "Esc", { 27 } }, { "Space", { ' ' } },
		{ "F1", { KEY_F(1) } }, { "F5", { KEY_F(5) } },
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
