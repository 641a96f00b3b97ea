#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/escape.h"
#include "tui/settings.h"

#define LINE_MAX_BYTES 1024
/* An unknown key is named in the warning, up to this many bytes of it, escaped. */
#define UNKNOWN_KEY_SHOWN 64
#define UNKNOWN_KEY_WHY_MAX (4 * UNKNOWN_KEY_SHOWN + 32)

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const char *const role_keys[TUI_COLOR_ROLES] = {
	[TUI_COLOR_EXEC] = "color.exec",
	[TUI_COLOR_WRITE] = "color.write",
	[TUI_COLOR_SHARED] = "color.shared",
	[TUI_COLOR_ANOMALY] = "color.anomaly",
	[TUI_COLOR_ADDED] = "color.added",
	[TUI_COLOR_REMOVED] = "color.removed",
	[TUI_COLOR_STALE] = "color.stale",
};

static const struct {
	const char *name;
	unsigned bit;
} hide_columns[] = {
	{ "SIZE", TUI_COL_SIZE },
	{ "PERMS", TUI_COL_PERMS },
	{ "OFFSET", TUI_COL_OFFSET },
	{ "DEV", TUI_COL_DEV },
};

void tui_settings_defaults(struct tui_settings *c)
{
	static const int defaults[TUI_COLOR_ROLES] = {
		[TUI_COLOR_EXEC] = 2, [TUI_COLOR_WRITE] = 3, [TUI_COLOR_SHARED] = 6,
		[TUI_COLOR_ANOMALY] = 1, [TUI_COLOR_ADDED] = 2, [TUI_COLOR_REMOVED] = 1,
		[TUI_COLOR_STALE] = 5,
	};

	memset(c, 0, sizeof(*c));
	c->delay = 1.0;
	c->color = true;
	memcpy(c->colors, defaults, sizeof(defaults));
	c->backend = MS_BACKEND_AUTO;
	for (int v = 0; v < TUI_CV_COUNT; v++)
		tui_colset_default(&c->cols[v], (enum tui_colview)v);
}

/* "red" -> 1; -2 if not a colour name. */
static int tui_color_parse(const char *name)
{
	if (!strcasecmp(name, "default"))
		return -1;
	for (size_t i = 0; i < sizeof(color_names) / sizeof(color_names[0]); i++)
		if (!strcasecmp(name, color_names[i]))
			return (int)i;
	return -2;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = false;
	else
		return -1;
	return 0;
}

/* The permission letters as `list --perms` takes them, plus f for file-backed. */
static int parse_filters(const char *v, unsigned *out)
{
	unsigned f = 0, perms = 0;
	char rest[16], bad;
	size_t n = 0;

	for (; *v; v++) {
		if (*v == 'f')
			f |= MS_FILTER_FILE_BACKED;
		else if (n + 1 < sizeof(rest))
			rest[n++] = *v;
		else
			return -1;
	}
	rest[n] = '\0';
	if (n && ms_filter_parse(rest, &perms, &bad) < 0)
		return -1;
	*out = f | perms;
	return 0;
}

static int parse_hide(const char *v, unsigned *out)
{
	unsigned bits = 0;

	while (*v) {
		size_t len = strcspn(v, ",");
		size_t i;

		for (i = 0; i < sizeof(hide_columns) / sizeof(hide_columns[0]); i++)
			if (strlen(hide_columns[i].name) == len && !strncasecmp(v, hide_columns[i].name, len))
				break;
		if (i == sizeof(hide_columns) / sizeof(hide_columns[0]))
			return -1;
		bits |= hide_columns[i].bit;
		v += len;
		if (*v == ',')
			v++;
	}
	*out = bits;
	return 0;
}

unsigned tui_settings_hide_columns(unsigned hidden)
{
	return (hidden & TUI_COL_SIZE ? 1u << TUI_MC_SIZE : 0) |
	       (hidden & TUI_COL_PERMS ? 1u << TUI_MC_PERMS : 0) |
	       (hidden & TUI_COL_OFFSET ? 1u << TUI_MC_OFFSET : 0) |
	       (hidden & TUI_COL_DEV ? 1u << TUI_MC_DEV : 0);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* NULL when the line applied, else why not (in why, size bytes, when it names the key). */
static const char *apply_line(struct tui_settings *c, char *line, char *why, size_t size)
{
	char *eq = strchr(line, '='), *key, *val;
	char *end;

	if (!eq)
		return "expected key = value";
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (!strcmp(key, "delay")) {
		double d = strtod(val, &end);

		if (end == val || *end || !(d >= 0.1 && d <= 3600))
			return "delay must be seconds between 0.1 and 3600";
		c->delay = d;
	} else if (!strcmp(key, "filters")) {
		if (parse_filters(val, &c->filter) < 0)
			return "filters takes letters among r w x s f";
	} else if (!strcmp(key, "color")) {
		if (parse_bool(val, &c->color) < 0)
			return "color takes yes or no";
	} else if (!strcmp(key, "hide")) {
		if (parse_hide(val, &c->hidden) < 0)
			return "hide takes columns among SIZE PERMS OFFSET DEV";
	} else if (!strncmp(key, "columns.", 8)) {
		for (int v = 0; v < TUI_CV_COUNT; v++) {
			if (strcmp(key + 8, tui_colview_key((enum tui_colview)v)))
				continue;
			if (tui_colset_parse(&c->cols[v], (enum tui_colview)v, val) < 0)
				return "columns takes the view's column names, each once, NAME last";
			return NULL;
		}
		return "unknown key (columns.procs, maps, files or stale)";
	} else if (!strcmp(key, "rss")) {
		if (parse_bool(val, &c->rss) < 0)
			return "rss takes yes or no";
	} else if (!strcmp(key, "backend")) {
		if (ms_backend_parse(val, &c->backend) < 0)
			return "backend takes auto, ioctl or text";
	} else {
		for (int r = 0; r < TUI_COLOR_ROLES; r++) {
			if (strcmp(key, role_keys[r]))
				continue;
			if (tui_color_parse(val) == -2)
				return "not a colour name";
			c->colors[r] = tui_color_parse(val);
			return NULL;
		}
		/* The key is the user's text: escaped, and cut short should a line be long. */
		if (strlen(key) > UNKNOWN_KEY_SHOWN)
			key[UNKNOWN_KEY_SHOWN] = '\0';
		snprintf(why, size, "unknown key '");
		ms_escape(key, strlen(key), why + strlen(why), size - strlen(why) - 1, MS_ESC_ASCII);
		strcat(why, "'");
		return why;
	}
	return NULL;
}

unsigned tui_settings_parse(struct tui_settings *c, const char *text, size_t len,
			  tui_settings_warn_fn warn, void *ctx)
{
	unsigned lineno = 0, bad = 0;
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char line[LINE_MAX_BYTES], *s;
		char named[UNKNOWN_KEY_WHY_MAX];
		const char *why = NULL;

		lineno++;
		if (n >= sizeof(line)) {
			why = "line too long";
		} else if (memchr(text + at, '\0', n)) {
			why = "NUL byte in line";
		} else {
			memcpy(line, text + at, n);
			line[n] = '\0';
			s = trim(line);
			if (*s && *s != '#')
				why = apply_line(c, s, named, sizeof(named));
		}
		if (why) {
			bad++;
			if (warn)
				warn(ctx, lineno, why);
		}
		at += n + (nl ? 1 : 0);
	}
	/* `hide`, the older way to say the maps view's columns. */
	if (!c->cols[TUI_CV_MAPS].given)
		c->cols[TUI_CV_MAPS].hidden |= tui_settings_hide_columns(c->hidden);
	return bad;
}

int tui_settings_load(struct tui_settings *c, struct ms_confdir *where, tui_settings_warn_fn warn,
		      void *ctx, struct ms_error *err)
{
	char *text = NULL;
	size_t len;
	int rc = ms_confdir_open(where, false, err);

	if (rc == 0)
		rc = ms_confdir_read(where, TUI_SETTINGS_FILE, TUI_SETTINGS_MAX_BYTES, &text, &len, err);
	ms_confdir_close(where);
	if (rc < 0)
		return rc;
	tui_settings_parse(c, text, len, warn, ctx);
	free(text);
	return 0;
}

/* The view a "columns.VIEW = ..." line sets, or -1 (line: n bytes, not NUL-terminated). */
static int columns_line_view(const char *line, size_t n)
{
	char key[64];
	size_t k = 0;

	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (k < n && k + 1 < sizeof(key) && line[k] != '=' && line[k] != ' ' && line[k] != '\t') {
		key[k] = line[k];
		k++;
	}
	key[k] = '\0';
	if (strncmp(key, "columns.", 8))
		return -1;
	for (int v = 0; v < TUI_CV_COUNT; v++)
		if (!strcmp(key + 8, tui_colview_key((enum tui_colview)v)))
			return v;
	return -1;
}

/* Append "columns.VIEW = ...\n" for view v to out (at most max bytes). */
static bool add_columns_line(const struct tui_settings *c, int v, char *out, size_t max, size_t *at)
{
	char list[TUI_COLS_MAX * 16];
	int n;

	tui_colset_format(&c->cols[v], (enum tui_colview)v, list, sizeof(list));
	n = snprintf(out + *at, max + 1 - *at, "columns.%s = %s\n", tui_colview_key((enum tui_colview)v),
		     list);
	if (n < 0 || (size_t)n > max - *at)
		return false;
	*at += (size_t)n;
	return true;
}

int tui_settings_save_columns(const struct tui_settings *c, struct ms_confdir *where,
			      struct ms_error *err)
{
	char *old = NULL, *out;
	size_t len = 0, at = 0, max = TUI_SETTINGS_MAX_BYTES;
	bool written[TUI_CV_COUNT] = { false };
	int rc = ms_confdir_open(where, true, err);

	if (rc == 0)
		rc = ms_confdir_read(where, TUI_SETTINGS_FILE, max, &old, &len, err);
	/* No file yet: the columns lines alone. */
	if (rc < 0 && where->fd >= 0 && err->sys_errno == ENOENT)
		rc = 0;
	if (rc < 0) {
		ms_confdir_close(where);
		return rc;
	}
	out = malloc(max + 1);
	if (!out) {
		free(old);
		ms_confdir_close(where);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	rc = 0;
	for (size_t pos = 0; pos < len && rc == 0;) {
		const char *nl = memchr(old + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (old + pos)) : len - pos;
		int v = columns_line_view(old + pos, n);

		if (v >= 0 && c->cols[v].given) {
			/* The view's line where it stood; a repeat of it goes. */
			if (!written[v] && !add_columns_line(c, v, out, max, &at))
				rc = -1;
			written[v] = true;
		} else if (n + 1 > max - at) {
			rc = -1;
		} else {
			memcpy(out + at, old + pos, n);
			at += n;
			out[at++] = '\n';
		}
		pos += n + (nl ? 1 : 0);
	}
	for (int v = 0; v < TUI_CV_COUNT && rc == 0; v++)
		if (c->cols[v].given && !written[v] && !add_columns_line(c, v, out, max, &at))
			rc = -1;
	free(old);
	if (rc < 0) {
		char shown[MS_ERRMSG_MAX / 2];

		ms_confdir_shown(where, TUI_SETTINGS_FILE, shown, sizeof(shown));
		rc = ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s: would be over %u bytes", shown,
				  (unsigned)max);
	} else {
		rc = ms_confdir_replace(where, TUI_SETTINGS_FILE, out, at, err);
	}
	free(out);
	ms_confdir_close(where);
	return rc;
}
