/* libs_model.c - the libraries view's model: see libs_model.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/elf/buildid.h"
#include "tui/elide.h"
#include "tui/format.h"
#include "tui/libs_model.h"

void tui_libview_init(struct tui_libview *lv, size_t height)
{
	memset(lv, 0, sizeof(*lv));
	lv->sort = TUI_LIBSORT_PROCS;
	lv->height = height ? height : 1;
}

static void free_table(struct ms_libtable *t)
{
	if (t) {
		ms_libtable_free(t);
		free(t);
	}
}

void tui_libview_free(struct tui_libview *lv)
{
	free_table(lv->table);
	free(lv->order);
	memset(lv, 0, sizeof(*lv));
}

const char *tui_libsort_name(enum tui_libsort key)
{
	static const char *const names[TUI_LIBSORT_COUNT] = {
		[TUI_LIBSORT_PROCS] = "PROCS", [TUI_LIBSORT_RSS] = "RSS", [TUI_LIBSORT_VERDICT] = "VERDICT",
		[TUI_LIBSORT_PACKAGE] = "PACKAGE", [TUI_LIBSORT_NAME] = "NAME",
	};

	return key < TUI_LIBSORT_COUNT ? names[key] : "?";
}

static struct tui_libkey key_of(const struct ms_libtable_row *r)
{
	return (struct tui_libkey){ r->dev_major, r->dev_minor, r->inode };
}

static bool key_is(const struct tui_libkey *k, const struct ms_libtable_row *r)
{
	return k->inode == r->inode && k->dev_major == r->dev_major && k->dev_minor == r->dev_minor;
}

/* The row's text of fact f (facts.h), into buf (MS_FACT_TEXT_MAX bytes), NUL-terminated. */
static const char *fact_of(const struct ms_libtable_row *r, enum ms_fact f, char *buf)
{
	struct ms_fact_src src;
	size_t len;
	const char *text;

	ms_libtable_row_facts(NULL, r, &src);
	text = ms_fact_text(f, &src, 0, buf, MS_FACT_TEXT_MAX, &len);
	if (text != buf)
		memcpy(buf, text, len);
	buf[len < MS_FACT_TEXT_MAX ? len : MS_FACT_TEXT_MAX - 1] = '\0';
	return buf;
}

/* Stale first: deleted, then replaced, then the others in their order. */
static int verdict_rank(enum ms_stale_verdict v)
{
	return v == MS_STALE_DELETED ? 0 : v == MS_STALE_REPLACED ? 1 : 2 + (int)v;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

struct sort_ctx {
	const struct ms_libtable *t;
	enum tui_libsort key;
	bool reverse;
	const struct ms_libtable_row *r; /* a row's processes, by PID */
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *sorting = arg;
	const struct ms_libtable_row *x = &sorting->t->rows[*(const size_t *)a];
	const struct ms_libtable_row *y = &sorting->t->rows[*(const size_t *)b];
	int c = 0;

	switch (sorting->key) {
	case TUI_LIBSORT_PROCS: c = -cmp_u64(x->nuses, y->nuses); break;
	case TUI_LIBSORT_RSS: c = -cmp_u64(x->rss, y->rss); break;
	case TUI_LIBSORT_VERDICT: c = verdict_rank(x->verdict) - verdict_rank(y->verdict); break;
	case TUI_LIBSORT_PACKAGE: {
		char px[MS_FACT_TEXT_MAX], py[MS_FACT_TEXT_MAX];

		c = strcmp(fact_of(x, MS_FACT_PACKAGE, px), fact_of(y, MS_FACT_PACKAGE, py));
		break;
	}
	default: break;
	}
	if (sorting->reverse)
		c = -c;
	if (!c) {
		c = ms_libtable_row_cmp(x, y);
		if (sorting->reverse && sorting->key == TUI_LIBSORT_NAME)
			c = -c;
	}
	return c;
}

/* The first row shown, so that sel shows and the screen stays full. */
static size_t top_for(size_t top, size_t sel, size_t height, size_t count)
{
	if (sel < top)
		top = sel;
	else if (sel >= top + height)
		top = sel - height + 1;
	if (count <= height)
		return 0;
	return top > count - height ? count - height : top;
}

static void keep_visible(struct tui_libview *lv)
{
	lv->top = top_for(lv->top, lv->sel, lv->height, lv->count);
}

void tui_libview_select(struct tui_libview *lv, size_t row)
{
	if (!lv->count) {
		lv->sel = lv->top = 0;
		lv->have_sel = false;
		return;
	}
	lv->sel = row < lv->count ? row : lv->count - 1;
	lv->sel_key = key_of(&lv->table->rows[lv->order[lv->sel]]);
	lv->have_sel = true;
	keep_visible(lv);
}

/* Sort the order and select the remembered file, or the row at its place. */
static void resort(struct tui_libview *lv)
{
	size_t again = lv->sel;
	struct sort_ctx sorting = { .t = lv->table, .key = lv->sort, .reverse = lv->reverse };

	if (!lv->table)
		return;
	qsort_r(lv->order, lv->count, sizeof(*lv->order), row_cmp, &sorting);
	for (size_t i = 0; lv->have_sel && i < lv->count; i++)
		if (key_is(&lv->sel_key, &lv->table->rows[lv->order[i]])) {
			again = i;
			break;
		}
	tui_libview_select(lv, again);
}

/* Does row r show the text (its path, SONAME, package or source package contains it)? */
static bool row_has(const struct ms_libtable_row *r, const char *text)
{
	char buf[MS_FACT_TEXT_MAX];
	const char *pkg;

	if (!text[0] || tui_find_in(r->name, r->name_len, text) ||
	    (r->soname && tui_find_in(r->soname, strlen(r->soname), text)))
		return true;
	/* The source package too, as `libs PATTERN` searches it (openssl for libssl3). */
	pkg = fact_of(r, MS_FACT_PACKAGE, buf);
	return (pkg[0] && tui_find_in(pkg, strlen(pkg), text)) ||
	       (r->pkg && r->pkg->found && tui_find_in(r->pkg->src_name, strlen(r->pkg->src_name), text));
}

/* The rows shown: kept, mapped by some process, and showing the filter; then sorted. */
static void build_order(struct tui_libview *lv)
{
	const struct ms_libtable *t = lv->table;
	size_t n = 0;

	for (size_t i = 0; t && i < t->count; i++)
		if (t->rows[i].kept && t->rows[i].nuses && row_has(&t->rows[i], lv->filter))
			lv->order[n++] = i;
	lv->count = n;
	resort(lv);
}

int tui_libview_apply(struct tui_libview *lv, struct ms_libtable *fresh)
{
	size_t *order = calloc(fresh->count ? fresh->count : 1, sizeof(*order));

	if (!order) {
		free_table(fresh);
		return MS_ERR_NOMEM;
	}
	free_table(lv->table);
	free(lv->order);
	lv->table = fresh;
	lv->order = order;
	build_order(lv);
	return 0;
}

void tui_libview_set_filter(struct tui_libview *lv, const char *text)
{
	snprintf(lv->filter, sizeof(lv->filter), "%s", text);
	if (lv->table)
		build_order(lv);
}

void tui_libview_set_height(struct tui_libview *lv, size_t height)
{
	lv->height = height ? height : 1;
	keep_visible(lv);
}

void tui_libview_move(struct tui_libview *lv, long delta)
{
	long target = (long)lv->sel + delta;

	tui_libview_select(lv, target < 0 ? 0 : (size_t)target);
}

bool tui_libview_click(struct tui_libview *lv, size_t line)
{
	if (line >= lv->height || lv->top + line >= lv->count)
		return false;
	tui_libview_select(lv, lv->top + line);
	return true;
}

const struct ms_libtable_row *tui_libview_row(const struct tui_libview *lv, size_t i)
{
	return i < lv->count ? &lv->table->rows[lv->order[i]] : NULL;
}

const struct ms_libtable_row *tui_libview_selected(const struct tui_libview *lv)
{
	return tui_libview_row(lv, lv->sel);
}

void tui_libview_sort_step(struct tui_libview *lv, int dir)
{
	lv->sort = (enum tui_libsort)(((int)lv->sort + (dir < 0 ? TUI_LIBSORT_COUNT - 1 : 1)) % TUI_LIBSORT_COUNT);
	resort(lv);
}

void tui_libview_sort_reverse(struct tui_libview *lv)
{
	lv->reverse = !lv->reverse;
	resort(lv);
}

void tui_libview_set_sort(struct tui_libview *lv, enum tui_libsort key, bool reverse)
{
	lv->sort = key < TUI_LIBSORT_COUNT ? key : TUI_LIBSORT_PROCS;
	lv->reverse = reverse;
	resort(lv);
}

static bool row_has_search(const void *ctx, size_t i)
{
	const struct tui_libview *lv = ctx;

	return lv->search[0] && row_has(&lv->table->rows[lv->order[i]], lv->search);
}

bool tui_libview_search(struct tui_libview *lv, int dir, bool from_current)
{
	size_t row;

	if (!lv->count || !lv->search[0])
		return false;
	row = tui_find_row(lv->count, lv->sel, dir, from_current, row_has_search, lv);
	if (row >= lv->count)
		return false;
	tui_libview_select(lv, row);
	return true;
}

void tui_libwhere_text(const struct ms_libtable *t, const struct ms_libtable_proc *p, unsigned esc,
		       char *out, size_t size)
{
	(void)t;
	if (!p->other_root)
		snprintf(out, size, "host");
	else if (!p->has_container)
		snprintf(out, size, "other root");
	else
		ms_container_describe(&p->container, esc | MS_ESC_ASCII, out, size);
}

/* The processes of one file. */

void tui_libprocs_init(struct tui_libprocs *lp, const struct ms_libtable_row *r, size_t height)
{
	memset(lp, 0, sizeof(*lp));
	lp->file = key_of(r);
	lp->height = height ? height : 1;
}

void tui_libprocs_free(struct tui_libprocs *lp)
{
	free(lp->order);
	lp->order = NULL;
	lp->count = 0;
}

static int use_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	const struct ms_libtable_use *x = &s->r->uses[*(const size_t *)a];
	const struct ms_libtable_use *y = &s->r->uses[*(const size_t *)b];

	return cmp_u64((uint64_t)ms_libtable_proc_of(s->t, x)->pid, (uint64_t)ms_libtable_proc_of(s->t, y)->pid);
}

static void procs_visible(struct tui_libprocs *lp)
{
	lp->top = top_for(lp->top, lp->sel, lp->height, lp->count);
}

const struct ms_libtable_use *tui_libprocs_use(const struct tui_libprocs *lp,
					       const struct ms_libtable_row *r, size_t i)
{
	return r && i < lp->count && lp->order[i] < r->nuses ? &r->uses[lp->order[i]] : NULL;
}

void tui_libprocs_select(struct tui_libprocs *lp, const struct ms_libtable *t,
			 const struct ms_libtable_row *r, size_t i)
{
	const struct ms_libtable_use *u;

	if (!lp->count) {
		lp->sel = lp->top = 0;
		return;
	}
	lp->sel = i < lp->count ? i : lp->count - 1;
	u = tui_libprocs_use(lp, r, lp->sel);
	if (u)
		lp->sel_pid = ms_libtable_proc_of(t, u)->pid;
	procs_visible(lp);
}

void tui_libprocs_move(struct tui_libprocs *lp, const struct ms_libtable *t,
		       const struct ms_libtable_row *r, long delta)
{
	long target = (long)lp->sel + delta;

	tui_libprocs_select(lp, t, r, target < 0 ? 0 : (size_t)target);
}

int tui_libprocs_sync(struct tui_libprocs *lp, const struct tui_libview *lv,
		      const struct ms_libtable_row **row)
{
	const struct ms_libtable_row *r = lv->table ? ms_libtable_find(lv->table, lp->file.dev_major,
								       lp->file.dev_minor, lp->file.inode) : NULL;
	size_t *order, again = lp->sel;

	*row = r;
	order = calloc(r && r->nuses ? r->nuses : 1, sizeof(*order));
	if (!order)
		return MS_ERR_NOMEM;
	for (size_t i = 0; r && i < r->nuses; i++)
		order[i] = i;
	if (r) {
		struct sort_ctx by_pid = { .t = lv->table, .r = r };

		qsort_r(order, r->nuses, sizeof(*order), use_cmp, &by_pid);
	}
	free(lp->order);
	lp->order = order;
	lp->count = r ? r->nuses : 0;
	for (size_t i = 0; lp->sel_pid && i < lp->count; i++)
		if (ms_libtable_proc_of(lv->table, &r->uses[order[i]])->pid == lp->sel_pid)
			again = i;
	tui_libprocs_select(lp, lv->table, r, again);
	return 0;
}

void tui_libprocs_set_height(struct tui_libprocs *lp, size_t height)
{
	lp->height = height ? height : 1;
	procs_visible(lp);
}
