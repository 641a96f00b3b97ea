/*
 * Fuzz target for the explorer's settings parser (src/tui/settings.h).
 * Properties: no crash or leak; every warning names a line within the text
 * and is safe to print (the parser escapes what it quotes); the result is
 * always within range (delay 0.1 to 3600, colours -1 to 7, filter and
 * hidden bits known); the bad-line count equals the warnings reported.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/maps/mapping.h"
#include "tui/settings.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct warn_ctx {
	unsigned count;
	unsigned lines;
};

static void warn(void *ctx, unsigned line, const char *msg)
{
	struct warn_ctx *w = ctx;

	w->count++;
	if (line == 0 || line > w->lines)
		fuzz_fail("warning names a line outside the text", (const unsigned char *)msg,
			  strlen(msg));
	fuzz_check_safe_text(msg, strlen(msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tui_settings c;
	struct warn_ctx w = { 0, 1 };
	unsigned bad, i;
	size_t k;

	for (k = 0; k < size; k++)
		if (data[k] == '\n')
			w.lines++;
	tui_settings_defaults(&c);
	bad = tui_settings_parse(&c, (const char *)data, size, warn, &w);
	if (bad != w.count)
		fuzz_fail("bad-line count differs from the warnings", data, size);
	if (!(c.delay >= 0.1 && c.delay <= 3600))
		fuzz_fail("delay out of range", data, size);
	for (i = 0; i < TUI_COLOR_ROLES; i++)
		if (c.colors[i] < -1 || c.colors[i] > 7)
			fuzz_fail("colour out of range", data, size);
	if (c.filter & ~MS_FILTER_ALL)
		fuzz_fail("unknown filter bits", data, size);
	if (c.hidden & ~(TUI_COL_SIZE | TUI_COL_PERMS | TUI_COL_OFFSET | TUI_COL_DEV))
		fuzz_fail("unknown hidden column bits", data, size);
	return 0;
}
