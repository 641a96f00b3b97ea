#include "config.h"

#include <string.h>

#include "tui/actions.h"

static const struct tui_action_info table[] = {
#define TUI_ACTION_ROW(id, scope, keys, help) { TUI_ACT_##id, scope, keys, help },
	TUI_ACTIONS(TUI_ACTION_ROW)
#undef TUI_ACTION_ROW
};

static const char *const notes[] = {
	"Esc alone (no byte right after it) closes one thing per press; only q quits.",
	"In a prompt: Enter accepts, Esc cancels, Backspace deletes, Ctrl-U clears it.",
	"In this help, Space pages on as PgDn does (as in less); it never pauses.",
	"Home, End, PgUp, PgDn, arrows: xterm, VT220, rxvt, Linux forms, any TERM.",
	"Alt+key, Ctrl+arrows, unknown escape sequences: read whole, ignored.",
	"Maps view, under ADDRESS SPACE right of the rule |: the address space, top to",
	"bottom, gaps left out; each mapping weighs 1 + log2 of its pages.  c code,",
	"d data, f other file, h heap, s stack, a anonymous; capitals: on screen.",
	"Size bars [####    ]: a full bar is the largest value in the list.",
	"Sort arrows: ^ after a heading means ascending, v descending.",
	"Mouse: the wheel scrolls; a click on a heading sorts by it, a second reverses;",
	"a double click on a row opens it, as Enter does.",
	"Narrow screens keep NAME or COMMAND 24 wide; other columns drop in this order:",
	"process list: MAPS, MAPPED, USER, RSS, STALE; stale view: FILES, USER;",
	"maps view: DEV, OFFSET, PERMS, the strip, RSS, SIZE;",
	"files view: BUILDID, LIBVER, SONAME, FILEVER, PERMS, MAPS, RSS, VERDICT, PACKAGE, VERSION.",
	"libraries view: BUILDID, WHERE, SONAME, LIBVER, INSTALLED, VERDICT, RSS, PACKAGE, VERSION;",
	"library's processes: WHERE, MAPS, RSS.",
	"In the files and libraries views, those up to RSS also drop (then the size bar),",
	"in the maps view all of them and the strip, so that each file name on screen shows whole:",
	"/.../NAME, \" (deleted)\" kept.",
	"Versions are never cut: their column is as wide as the longest on screen.",
	"A cut shows as an ellipsis (... outside a UTF-8 locale), never as ~.",
};

const char *const *tui_action_notes(size_t *count)
{
	*count = sizeof(notes) / sizeof(notes[0]);
	return notes;
}

const struct tui_action_info *tui_actions(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

static const char *tui_scope_title(enum tui_scope scope)
{
	switch (scope) {
	case TUI_SCOPE_PROCS: return "Process list";
	case TUI_SCOPE_MAPS: return "Maps view";
	case TUI_SCOPE_STALE: return "Stale view";
	case TUI_SCOPE_FILES: return "Files view";
	case TUI_SCOPE_LIBS: return "Libraries view (L)";
	case TUI_SCOPE_LIBPROCS: return "A library's processes (Enter in the libraries view)";
	case TUI_SCOPE_COLUMNS: return "Column chooser (C; Esc or q saves and closes)";
	default: return "Everywhere";
	}
}

void tui_action_keys_label(const struct tui_action_info *a, char *buf, size_t size)
{
	size_t at = 0;

	for (const char *p = a->keys; *p && at + 1 < size; p++) {
		if (*p == ' ') {
			if (at + 2 >= size)
				break;
			buf[at++] = ',';
		}
		buf[at++] = *p;
	}
	buf[at] = '\0';
}

/* Roff eats backslashes and treats a leading dot or quote as a request. */
static void roff_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

void tui_actions_dump_roff(FILE *out)
{
	char label[64];

	for (int scope = 0; scope < TUI_SCOPE_COUNT; scope++) {
		fprintf(out, ".SS %s\n", tui_scope_title((enum tui_scope)scope));
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			if (table[i].scope != (enum tui_scope)scope)
				continue;
			tui_action_keys_label(&table[i], label, sizeof(label));
			fputs(".TP\n.B ", out);
			roff_text(out, label);
			fputc('\n', out);
			roff_text(out, table[i].help);
			fputc('\n', out);
		}
	}
	fputs(".PP\n", out);
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		roff_text(out, notes[i]);
		fputc('\n', out);
	}
}
