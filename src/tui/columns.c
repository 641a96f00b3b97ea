#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tui/columns.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/stale_cols.h"

/* The engine: each view's table sits beside its model (procs_cols.c, maps_cols.c, stale_cols.c, ...). */

static const struct {
	const char *key, *title;
} views[TUI_CV_COUNT] = {
	[TUI_CV_PROCS] = { "procs", "process list" },
	[TUI_CV_MAPS] = { "maps", "maps view" },
	[TUI_CV_FILES] = { "files", "files view" },
	[TUI_CV_STALE] = { "stale", "stale view" },
	[TUI_CV_LIBS] = { "libs", "libraries view" },
	[TUI_CV_LIBPROCS] = { "libprocs", "library's processes" },
};

const struct tui_column *tui_columns(enum tui_colview view, size_t *count)
{
	switch (view) {
	case TUI_CV_PROCS: *count = tui_procs_ncols; return tui_procs_cols;
	case TUI_CV_MAPS: *count = tui_maps_ncols; return tui_maps_cols;
	case TUI_CV_FILES: *count = tui_files_ncols; return tui_files_cols;
	case TUI_CV_LIBS: *count = tui_libs_ncols; return tui_libs_cols;
	case TUI_CV_LIBPROCS: *count = tui_libprocs_ncols; return tui_libprocs_cols;
	default: break;
	}
	*count = TUI_SC_COUNT;
	return tui_stale_cols;
}

const struct tui_column *tui_columns_band(enum tui_colview view)
{
	return view == TUI_CV_MAPS ? &tui_maps_band : NULL;
}

int tui_column_fact(enum tui_colview view, int id)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);

	return id >= 0 && (size_t)id < n ? c[id].fact - 1 : -1;
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
	tui_layout_fit(l, view, s, off, x0, width, beside, NULL, tui_locale_escape_flags());
}

/*
 * A view's table as the policy sees it: with the band (tui_columns_band),
 * when asked for, as one more column before the last, shown last of
 * the colset; want (NULL: none) renumbered to match.
 */
struct table {
	struct tui_column c[TUI_COLS_MAX + 1];
	size_t n;             /* entries, the last column last */
	struct tui_colset s;
	int want_at[TUI_COLS_MAX + 1];
	const int *want;      /* want_at, or NULL */
	int band;             /* the band's id, -1 without */
};

static void table_make(struct table *t, enum tui_colview view, const struct tui_colset *s, bool band,
		       const int *want)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);
	const struct tui_column *b = band ? tui_columns_band(view) : NULL;

	t->s = *s;
	t->band = -1;
	memcpy(t->c, c, n * sizeof(*c));
	t->n = n;
	if (want)
		memcpy(t->want_at, want, n * sizeof(*want));
	if (b && n < TUI_COLS_MAX && s->n < TUI_COLS_MAX) {
		t->band = (int)n - 1;
		t->c[n] = c[n - 1];
		t->c[n - 1] = *b;
		t->want_at[n] = want ? want[n - 1] : 0;
		t->want_at[n - 1] = 0;
		t->s.order[t->s.n++] = (unsigned char)(n - 1);
		t->n = n + 1;
	}
	t->want = want ? t->want_at : NULL;
}

/* The shown column of lowest rank in want, ranked below below (0: any rank), or -1. */
static int lowest_rank(const struct tui_column *c, size_t n, unsigned want, int below)
{
	int best = -1;

	for (size_t id = 0; id + 1 < n; id++)
		if ((want & (1u << id)) && c[id].drop && (!below || c[id].drop < below) &&
		    (best < 0 || c[id].drop < c[best].drop))
			best = (int)id;
	return best;
}

/* The cells a column at width w can give up: down to its minimum, never a version's. */
static int room_to_give(const struct tui_column *c, int w)
{
	int least = c->min ? c->min : w;

	return c->cut == TUI_CUT_NEVER || w <= least ? 0 : w - least;
}

static int slack(const struct tui_column *c, size_t n, unsigned shown, const int *w)
{
	int sum = 0;

	for (size_t id = 0; id + 1 < n; id++)
		if (shown & (1u << id))
			sum += room_to_give(&c[id], w[id]);
	return sum;
}

/* The cells the columns ranked below the last one take, spaces included. */
static int below_last(const struct tui_column *c, size_t n, unsigned shown, const int *w)
{
	int sum = 0;

	for (size_t id = 0; id + 1 < n; id++)
		if ((shown & (1u << id)) && c[id].drop && c[n - 1].drop && c[id].drop < c[n - 1].drop)
			sum += w[id] + 1;
	return sum;
}

static int heading_len(const struct tui_column *c)
{
	return (int)strlen(c->heading ? c->heading : c->name);
}

/* Each shown column's width before any drop (w), the cells they take with x0 and beside. */
static int place(const struct tui_column *c, const struct tui_colset *s, unsigned off, int x0,
		 int width, int beside, const int *want, int *w, unsigned *shown, unsigned *dropped)
{
	int used = x0 + beside;

	*shown = 0;
	for (size_t i = 0; i < s->n; i++) {
		int id = s->order[i];

		if ((s->hidden | off) & (1u << id))
			continue;
		if (c[id].min_screen && width < c[id].min_screen) {
			*dropped |= 1u << id;
			continue;
		}
		w[id] = c[id].width;
		/* A version: as wide as its widest cell on screen, never cut. */
		if (c[id].cut == TUI_CUT_NEVER && want && want[id] > 0)
			w[id] = want[id] > heading_len(&c[id]) ? want[id] : heading_len(&c[id]);
		*shown |= 1u << id;
		used += w[id] + 1;
	}
	return used;
}

int tui_layout_reach(enum tui_colview view, const struct tui_colset *s, unsigned off, int x0,
		     int width, int beside, const int *want)
{
	return tui_layout_reach_band(view, s, off, x0, width, beside, false, want);
}

int tui_layout_reach_band(enum tui_colview view, const struct tui_colset *s, unsigned off, int x0,
			  int width, int beside, bool band, const int *want)
{
	struct table t;
	int w[TUI_COLS_MAX + 1], used;
	unsigned shown, dropped = 0;

	table_make(&t, view, s, band, want);
	used = place(t.c, &t.s, off, x0, width, beside, t.want, w, &shown, &dropped);
	return width - (used - below_last(t.c, t.n, shown, w) - slack(t.c, t.n, shown, w));
}

void tui_layout_fit(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
		    unsigned off, int x0, int width, int beside, const int *want, unsigned escape_flags)
{
	tui_layout_fit_band(l, view, s, off, x0, width, beside, false, want, escape_flags);
}

void tui_layout_fit_band(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			 unsigned off, int x0, int width, int beside, bool band, const int *want,
			 unsigned escape_flags)
{
	struct table t;
	const struct tui_column *c = t.c;
	size_t n;
	int w[TUI_COLS_MAX + 1], used, need = TUI_LAST_MIN, id;
	unsigned shown;

	table_make(&t, view, s, band, want);
	n = t.n;
	s = &t.s;
	want = t.want;
	memset(l, 0, sizeof(*l));
	l->view = view;
	l->x0 = x0;
	l->ellipsis = tui_ellipsis(escape_flags);
	if (want && want[n - 1] > need)
		need = want[n - 1];
	used = place(c, s, off, x0, width, beside, want, w, &shown, &l->dropped);
	/* A want no drop could meet (a name longer than the screen) drops nothing. */
	if (used - below_last(c, n, shown, w) - slack(c, n, shown, w) + need > width)
		need = TUI_LAST_MIN;
	/* The last column's file names whole: columns ranked below it drop, lowest first. */
	while (c[n - 1].drop && used + need > width &&
	       (id = lowest_rank(c, n, shown, c[n - 1].drop)) >= 0) {
		shown &= ~(1u << id);
		l->dropped |= 1u << id;
		used -= w[id] + 1;
	}
	/* Then cuttable columns give up to their minimum, in drop order, when that is enough. */
	if (used + need > width && used + need - width <= slack(c, n, shown, w))
		for (int rank = 0; rank < TUI_COLS_MAX && used + need > width; rank++)
			for (id = 0; id + 1 < (int)n && used + need > width; id++) {
				int give = room_to_give(&c[id], w[id]);

				if (!(shown & (1u << id)) || c[id].drop != rank || !give)
					continue;
				if (give > used + need - width)
					give = used + need - width;
				w[id] -= give;
				used -= give;
			}
	/* The last column's least room: any column with a rank drops, lowest first. */
	while (used + TUI_LAST_MIN > width && (id = lowest_rank(c, n, shown, 0)) >= 0) {
		shown &= ~(1u << id);
		l->dropped |= 1u << id;
		used -= w[id] + 1;
	}
	/* The band is no column of the rows: it keeps its cells or gives them up. */
	if (t.band >= 0) {
		l->band = shown & (1u << t.band) ? w[t.band] + 1 : 0;
		shown &= ~(1u << t.band);
		l->dropped &= ~(1u << t.band);
	}
	used = x0;
	for (size_t i = 0; i < s->n; i++) {
		id = s->order[i];
		if (!(shown & (1u << id)))
			continue;
		l->id[l->n] = (unsigned char)id;
		l->x[l->n] = used;
		l->width[l->n] = w[id];
		l->n++;
		used += w[id] + 1;
	}
	l->last_x = used;
}

bool tui_layout_fit_yielding(struct tui_layout *l, enum tui_colview view, const struct tui_colset *s,
			     unsigned off, int x0, int width, int beside, const int *want,
			     unsigned escape_flags)
{
	size_t n;
	struct tui_layout plain;
	int room;

	tui_columns(view, &n);
	tui_layout_fit(l, view, s, off, x0, width, beside, want, escape_flags);
	room = width - l->last_x - beside;
	if (!want || room >= want[n - 1])
		return true;
	tui_layout_fit(&plain, view, s, off, x0, width, 0, want, escape_flags);
	/* Only for names it makes whole, or for columns it keeps. */
	if (width - plain.last_x < want[n - 1] && plain.n <= l->n)
		return true;
	*l = plain;
	return false;
}

void tui_layout_want(int *want, enum tui_colview view, tui_cell_fn cell, const void *ctx)
{
	size_t n;
	const struct tui_column *c = tui_columns(view, &n);

	for (size_t id = 0; id + 1 < n; id++) {
		char text[TUI_CELL_MAX];
		int cols;

		if (c[id].cut != TUI_CUT_NEVER)
			continue;
		text[0] = '\0';
		cell(ctx, (int)id, text, sizeof(text));
		tui_text_fit(text, strlen(text), INT_MAX / 2, &cols);
		if (cols > want[id])
			want[id] = cols;
	}
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

/* text (ASCII or escaped) into a cell of width columns, aligned, and a space. */
static void put_cell(char *buf, size_t size, size_t *at, const char *text, int width, bool left)
{
	int cols, n;
	size_t len = tui_text_fit(text, strlen(text), width, &cols);

	if (*at >= size)
		return;
	n = snprintf(buf + *at, size - *at, "%*s%.*s%*s ", left ? 0 : width - cols, "", (int)len, text,
		     left ? width - cols : 0, "");
	if (n > 0)
		*at = *at + (size_t)n < size ? *at + (size_t)n : size - 1;
}

/* A cell's text cut to width as its column says, the layout's mark showing the cut. */
static void cut_cell(const struct tui_layout *l, const struct tui_column *c, int width, const char *text,
		     char *out, size_t size)
{
	const char *mark = l->ellipsis ? l->ellipsis : "...";

	if (c->cut == TUI_CUT_PATH || c->cut == TUI_CUT_MIDDLE)
		tui_elide(text, strlen(text), width, mark, out, size);
	else
		tui_cut_end(text, strlen(text), width, mark, out, size);
}

size_t tui_layout_row(char *buf, size_t size, size_t at, const struct tui_layout *l,
		      tui_cell_fn cell, const void *ctx)
{
	size_t n;
	const struct tui_column *c = tui_columns(l->view, &n);

	for (size_t i = 0; i < l->n; i++) {
		char text[TUI_CELL_MAX], fitted[TUI_CELL_MAX];

		text[0] = '\0';
		cell(ctx, l->id[i], text, sizeof(text));
		cut_cell(l, &c[l->id[i]], l->width[i], text, fitted, sizeof(fitted));
		put_cell(buf, size, &at, fitted, l->width[i], c[l->id[i]].left);
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

void tui_layout_heading_by_key(char *buf, size_t size, const struct tui_layout *l, int key,
				bool reverse, const char *last)
{
	size_t n;
	const struct tui_column *c = tui_columns(l->view, &n);
	int id = -1;

	for (size_t i = 0; i < n; i++)
		if (c[i].sort == key)
			id = (int)i;
	tui_layout_heading(buf, size, l, id, id >= 0 && c[id].desc != reverse, last);
}

void tui_columns_drop_order(enum tui_colview view, char *buf, size_t size)
{
	struct table t;
	struct tui_colset all;
	size_t at = 0;

	tui_colset_default(&all, view);
	table_make(&t, view, &all, true, NULL);
	buf[0] = '\0';
	for (int rank = 1; rank < TUI_COLS_MAX; rank++)
		for (size_t i = 0; i + 1 < t.n && at < size; i++)
			if (t.c[i].drop == rank)
				at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
						       t.c[i].name);
}
