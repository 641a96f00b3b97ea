#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/files/filemap.h"
#include "tui/columns.h"
#include "tui/files_model.h"
#include "tui/libs_model.h"
#include "tui/maps_model.h"
#include "tui/procs_model.h"
#include "tui/stale_cols.h"

/*
 * The tables.  Widths and alignment are the rows' (format.c); drop ranks
 * say which column goes first when the last one would get fewer than
 * TUI_LAST_MIN columns.
 */
static const struct tui_column procs_cols[] = {
	[TUI_PC_PID] = { "PID", NULL, 7, false, 0, TUI_PCOL_PID, false, 0, 0 },
	[TUI_PC_USER] = { "USER", NULL, 8, true, 3, TUI_PCOL_USER, false, 0, 0 },
	[TUI_PC_MAPS] = { "MAPS", NULL, 6, false, 1, TUI_PCOL_MAPS, false, 0, 0 },
	[TUI_PC_MAPPED] = { "MAPPED", NULL, 9, false, 2, TUI_PCOL_MAPPED, false, 0, 0 },
	[TUI_PC_RSS] = { "RSS", NULL, 7, false, 4, TUI_PCOL_RSS, false, 0, 0 },
	[TUI_PC_STALE] = { "STALE", NULL, 6, false, 5, TUI_PCOL_STALE, false, 0, 0 },
	[TUI_PC_COMMAND] = { "COMMAND", NULL, 0, true, 0, TUI_PCOL_COMMAND, false, 0, 0 },
};

static const struct tui_column maps_cols[] = {
	[TUI_MC_RANGE] = { "START-END", "             START-END", 25, true, 0, TUI_MSORT_ADDRESS, false,
			   0, TUI_COLF_KEEP },
	[TUI_MC_SIZE] = { "SIZE", NULL, 6, false, 5, TUI_MSORT_SIZE, false, 0, 0 },
	[TUI_MC_RSS] = { "RSS", NULL, 6, false, 4, TUI_MSORT_RSS, false, 0, TUI_COLF_TOGGLED },
	[TUI_MC_PERMS] = { "PERMS", "PERM", 4, true, 3, TUI_MSORT_PERMS, false, 0, 0 },
	[TUI_MC_OFFSET] = { "OFFSET", NULL, 8, false, 2, -1, false, 0, 0 },
	[TUI_MC_DEV] = { "DEV", "DEV:INODE", 16, true, 1, TUI_MSORT_INODE, false, 0, 0 },
	[TUI_MC_NAME] = { "NAME", NULL, 0, true, 0, TUI_MSORT_NAME, false, 0, 0 },
};

static const struct tui_column files_cols[] = {
	[TUI_FC_MAPS] = { "MAPS", NULL, 5, false, 8, MS_FILESORT_MAPS, true, 0, 0 },
	[TUI_FC_SIZE] = { "SIZE", NULL, 6, false, 0, MS_FILESORT_SIZE, true, 0, 0 },
	[TUI_FC_RSS] = { "RSS", NULL, 6, false, 9, MS_FILESORT_RSS, true, 0, TUI_COLF_TOGGLED },
	/* 11: "r--,r-x,rw-", a library's usual sets (filemap.h) */
	[TUI_FC_PERMS] = { "PERMS", NULL, 11, true, 6, -1, false, 0, 0 },
	[TUI_FC_VERDICT] = { "VERDICT", NULL, 10, true, 10, -1, false, 0, 0 },
	/* 13: "not packaged"; 16: "3.0.19-1~deb12u1", a usual Debian version */
	[TUI_FC_PACKAGE] = { "PACKAGE", NULL, 13, true, 7, -1, false, 0, 0 },
	[TUI_FC_VERSION] = { "VERSION", NULL, 16, true, 5, -1, false, 0, 0 },
	[TUI_FC_FILEVER] = { "FILEVER", NULL, 9, true, 4, -1, false, 0, TUI_COLF_OFF },
	[TUI_FC_SONAME] = { "SONAME", NULL, 22, true, 3, -1, false, TUI_FILEVIEW_SONAME_COLS, 0 },
	/* 16: "GLIBCXX_3.4.30"; longer names end in '~'.  Chosen in the chooser (C). */
	[TUI_FC_LIBVER] = { "LIBVER", NULL, 16, true, 2, -1, false, 0, TUI_COLF_OFF },
	[TUI_FC_BUILDID] = { "BUILDID", NULL, 40, true, 1, -1, false, TUI_FILEVIEW_BUILDID_COLS, 0 },
	[TUI_FC_NAME] = { "NAME", NULL, 0, true, 0, MS_FILESORT_NAME, false, 0, 0 },
};

/* The libraries view (L): `mapscope libs`'s columns, NAME last. */
static const struct tui_column libs_cols[] = {
	[TUI_LC_PROCS] = { "PROCS", NULL, 6, false, 0, TUI_LIBSORT_PROCS, true, 0, 0 },
	[TUI_LC_RSS] = { "RSS", NULL, 6, false, 5, TUI_LIBSORT_RSS, true, 0, 0 },
	[TUI_LC_VERDICT] = { "VERDICT", NULL, 10, true, 4, TUI_LIBSORT_VERDICT, true, 0, 0 },
	[TUI_LC_PACKAGE] = { "PACKAGE", NULL, 13, true, 3, TUI_LIBSORT_PACKAGE, false, 0, 0 },
	[TUI_LC_VERSION] = { "VERSION", NULL, 16, true, 2, -1, false, 0, 0 },
	[TUI_LC_INSTALLED] = { "INSTALLED", NULL, 16, true, 2, -1, false, 0, TUI_COLF_OFF },
	[TUI_LC_SONAME] = { "SONAME", NULL, 22, true, 1, -1, false, 0, TUI_COLF_OFF },
	[TUI_LC_BUILDID] = { "BUILDID", NULL, 40, true, 1, -1, false, 0, TUI_COLF_OFF },
	/* 12: "docker:0123456789ab" is cut; "host" and "other root" fit. */
	[TUI_LC_WHERE] = { "WHERE", NULL, 12, true, 1, -1, false, 0, 0 },
	[TUI_LC_NAME] = { "NAME", NULL, 0, true, 0, TUI_LIBSORT_NAME, false, 0, 0 },
};

/* The processes of one file (Enter in the libraries view). */
static const struct tui_column libprocs_cols[] = {
	[TUI_LPC_PID] = { "PID", NULL, 7, false, 0, -1, false, 0, 0 },
	[TUI_LPC_MAPS] = { "MAPS", NULL, 5, false, 2, -1, false, 0, 0 },
	[TUI_LPC_RSS] = { "RSS", NULL, 6, false, 3, -1, false, 0, 0 },
	[TUI_LPC_WHERE] = { "WHERE", NULL, 12, true, 1, -1, false, 0, 0 },
	[TUI_LPC_COMM] = { "COMM", NULL, 0, true, 0, -1, false, 0, 0 },
};

static const struct {
	const struct tui_column *cols;
	size_t n;
	const char *key, *title;
} views[TUI_CV_COUNT] = {
#define VIEW(t, k, title) { t, sizeof(t) / sizeof(t[0]), k, title }
	[TUI_CV_PROCS] = VIEW(procs_cols, "procs", "process list"),
	[TUI_CV_MAPS] = VIEW(maps_cols, "maps", "maps view"),
	[TUI_CV_FILES] = VIEW(files_cols, "files", "files view"),
	[TUI_CV_STALE] = { tui_stale_cols, TUI_SC_COUNT, "stale", "stale view" },
	[TUI_CV_LIBS] = VIEW(libs_cols, "libs", "libraries view"),
	[TUI_CV_LIBPROCS] = VIEW(libprocs_cols, "libprocs", "library's processes"),
#undef VIEW
};

_Static_assert(sizeof(files_cols) / sizeof(files_cols[0]) <= TUI_COLS_MAX, "TUI_COLS_MAX");

const struct tui_column *tui_columns(enum tui_colview view, size_t *count)
{
	*count = views[view].n;
	return views[view].cols;
}

const char *tui_colview_key(enum tui_colview view)
{
	return views[view].key;
}

const char *tui_colview_title(enum tui_colview view)
{
	return views[view].title;
}

void tui_colset_default(struct tui_colset *s, enum tui_colview view)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i + 1 < n; i++) {
		s->order[s->n++] = (unsigned char)i;
		if (c[i].flags & TUI_COLF_OFF)
			s->hidden |= 1u << i;
	}
}

static int find_column(enum tui_colview view, const char *name, size_t len)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);

	for (size_t i = 0; i < n; i++)
		if (strlen(c[i].name) == len && !strncasecmp(c[i].name, name, len))
			return (int)i;
	return -1;
}

int tui_colset_parse(struct tui_colset *s, enum tui_colview view, const char *text)
{
	struct tui_colset out = { .given = true };
	unsigned seen = 0;
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);
	int last = (int)n - 1;

	while (*text) {
		size_t len = strcspn(text, ",");
		int id;

		while (len && (*text == ' ' || *text == '\t'))
			text++, len--;
		while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
			len--;
		id = find_column(view, text, len);
		if (id < 0 || (seen & (1u << id)))
			return -1;
		seen |= 1u << id;
		if (id == last) {
			text += strcspn(text, ",");
			if (*text)
				return -1; /* the last column only last */
			break;
		}
		out.order[out.n++] = (unsigned char)id;
		text += strcspn(text, ",");
		if (*text == ',')
			text++;
	}
	for (int i = 0; i < last; i++) {
		if (seen & (1u << i))
			continue;
		if (c[i].flags & TUI_COLF_KEEP) {
			memmove(out.order + 1, out.order, out.n);
			out.order[0] = (unsigned char)i;
			out.n++;
		} else {
			out.order[out.n++] = (unsigned char)i;
			out.hidden |= 1u << i;
		}
	}
	*s = out;
	return 0;
}

void tui_colset_format(const struct tui_colset *s, enum tui_colview view, char *buf, size_t size)
{
	size_t n, at = 0;
	const struct tui_column *c = tui_columns(view, &n);

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && at < size; i++) {
		if (s->hidden & (1u << s->order[i]))
			continue;
		at += (size_t)snprintf(buf + at, size - at, "%s,", c[s->order[i]].name);
	}
	if (at < size)
		snprintf(buf + at, size - at, "%s", c[n - 1].name);
}

bool tui_colset_toggle(struct tui_colset *s, enum tui_colview view, size_t pos)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);

	if (pos >= s->n || (c[s->order[pos]].flags & (TUI_COLF_KEEP | TUI_COLF_TOGGLED)))
		return false;
	s->hidden ^= 1u << s->order[pos];
	return true;
}

bool tui_colset_move(struct tui_colset *s, size_t pos, int dir)
{
	size_t to = dir < 0 ? pos - 1 : pos + 1;
	unsigned char t;

	if (pos >= s->n || (dir < 0 && pos == 0) || (dir > 0 && to >= s->n))
		return false;
	t = s->order[pos];
	s->order[pos] = s->order[to];
	s->order[to] = t;
	return true;
}

void tui_layout_make(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
		     unsigned off, int x0, int width)
{
	tui_layout_make_beside(l, view, s, off, x0, width, 0);
}

void tui_layout_make_beside(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			    unsigned off, int x0, int width, int beside)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);
	unsigned want = 0;
	int used = x0;

	memset(l, 0, sizeof(*l));
	l->view = view;
	l->x0 = x0;
	for (size_t i = 0; i < s->n; i++) {
		int id = s->order[i];

		if ((s->hidden | off) & (1u << id))
			continue;
		if (c[id].min_screen && width < c[id].min_screen) {
			l->dropped |= 1u << id;
			continue;
		}
		want |= 1u << id;
		used += c[id].width + 1;
	}
	/* Drop by rank until the last column has its room, or nothing can go. */
	while (used + beside + TUI_LAST_MIN > width) {
		int best = -1;

		for (size_t id = 0; id + 1 < n; id++)
			if ((want & (1u << id)) && c[id].drop &&
			    (best < 0 || c[id].drop < c[best].drop))
				best = (int)id;
		if (best < 0)
			break;
		want &= ~(1u << best);
		l->dropped |= 1u << best;
		used -= c[best].width + 1;
	}
	used = x0;
	for (size_t i = 0; i < s->n; i++) {
		int id = s->order[i];

		if (!(want & (1u << id)))
			continue;
		l->id[l->n] = (unsigned char)id;
		l->x[l->n] = used;
		l->width[l->n] = c[id].width;
		l->n++;
		used += c[id].width + 1;
	}
	l->last_x = used;
}

bool tui_layout_shows(const struct tui_layout *l, int id)
{
	size_t n;

	tui_columns(l->view, &n);
	if (id == (int)n - 1)
		return true;
	for (size_t i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return true;
	return false;
}

int tui_layout_hit(const struct tui_layout *l, int x)
{
	size_t n;

	tui_columns(l->view, &n);
	if (x >= l->last_x)
		return (int)n - 1;
	for (size_t i = 0; i < l->n; i++)
		if (x >= l->x[i] && x < l->x[i] + l->width[i])
			return l->id[i];
	return -1;
}

bool tui_layout_sort_click(const struct tui_layout *l, int x, int *sort, bool *reverse)
{
	size_t n;
	const struct tui_column *c = tui_columns(l->view, &n);
	int id = tui_layout_hit(l, x);

	if (id < 0 || c[id].sort < 0)
		return false;
	if (*sort == c[id].sort) {
		*reverse = !*reverse;
	} else {
		*sort = c[id].sort;
		*reverse = false;
	}
	return true;
}

const char *tui_sort_arrow(bool descending)
{
	return descending ? "v" : "^";
}

/* text into a cell of width columns (ASCII, or cut), aligned, and a space. */
static void put_cell(char *buf, size_t size, size_t *at, const char *text, int width, bool left)
{
	int len = (int)strnlen(text, (size_t)width);
	int n;

	if (*at >= size)
		return;
	n = snprintf(buf + *at, size - *at, left ? "%-*.*s " : "%*.*s ", width, len, text);
	if (n > 0)
		*at = *at + (size_t)n < size ? *at + (size_t)n : size - 1;
}

size_t tui_layout_row(char *buf, size_t size, size_t at, const struct tui_layout *l,
		      tui_cell_fn cell, const void *ctx)
{
	size_t n;
	const struct tui_column *c = tui_columns(l->view, &n);

	for (size_t i = 0; i < l->n; i++) {
		char text[128];

		text[0] = '\0';
		cell(ctx, l->id[i], text, sizeof(text));
		put_cell(buf, size, &at, text, l->width[i], c[l->id[i]].left);
	}
	return at;
}

void tui_layout_heading(char *buf, size_t size, const struct tui_layout *l, int sort_id,
			bool descending, const char *last)
{
	size_t n, at = 0;
	const struct tui_column *c = tui_columns(l->view, &n);

	if (size)
		snprintf(buf, size, "%*s", l->x0, "");
	at = (size_t)l->x0 < size ? (size_t)l->x0 : size;
	for (size_t i = 0; i < l->n; i++) {
		const struct tui_column *col = &c[l->id[i]];
		char text[64];

		int len = snprintf(text, sizeof(text), "%s%s", col->heading ? col->heading : col->name,
				   l->id[i] == sort_id ? tui_sort_arrow(descending) : "");

		/* An arrow that does not fit takes the space after the cell ("PERM^"). */
		if (len == l->width[i] + 1 && col->left && at + (size_t)len < size) {
			memcpy(buf + at, text, (size_t)len + 1);
			at += (size_t)len;
			continue;
		}
		put_cell(buf, size, &at, text, l->width[i], col->left);
	}
	if (at < size)
		snprintf(buf + at, size - at, "%s%s", last ? last : c[n - 1].name,
			 sort_id == (int)n - 1 ? tui_sort_arrow(descending) : "");
}

void tui_columns_drop_order(enum tui_colview view, char *buf, size_t size)
{
	size_t n, at = 0;
	const struct tui_column *c = tui_columns(view, &n);

	buf[0] = '\0';
	for (int rank = 1; rank < TUI_COLS_MAX; rank++)
		for (size_t i = 0; i < n && at < size; i++)
			if (c[i].drop == rank)
				at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
						       c[i].name);
}
