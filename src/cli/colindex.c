/* colindex.c - every command's column table: see colindex.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/colindex.h"

static const struct {
	const char *where; /* the command and option, as a user types them */
	size_t (*table)(struct cli_column *out);
} tables[] = {
	{ "list -o", list_column_table },
	{ "list --by-file -o", list_file_column_table },
	{ "at -o", at_column_table },
	{ "stale -o", stale_column_table },
	{ "who -o", who_column_table },
	{ "libs -o", libs_column_table },
	{ "diff -o", diff_column_table },
	{ "diff --by-file -o", diff_file_column_table },
};

static bool has(const struct cli_column *cols, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const char *c = cli_column_name(&cols[i]);

		if (strlen(c) == len && !strncasecmp(c, name, len))
			return true;
	}
	return false;
}

int cli_colindex_where(const char *name, size_t len, char *buf, size_t size)
{
	struct cli_column cols[CLI_COLINDEX_MAX];
	size_t at = 0;
	int found = 0;

	buf[0] = '\0';
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		if (!has(cols, tables[t].table(cols), name, len))
			continue;
		if (at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s%s", found ? ", " : "", tables[t].where);
		found++;
	}
	if (found && at < size)
		snprintf(buf + at, size - at, " %s it", found > 1 ? "have" : "has");
	return found;
}
