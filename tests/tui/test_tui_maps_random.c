/*
 * The maps view's model under random keys, against a process whose
 * mappings change at random, checked after every step against a reference
 * parsed from /proc/PID/maps text, not through the engine (maps_ref.h).
 *
 * The model is fed the way the view feeds it (maps_feed.h: the same
 * queries, the same index and pull-up), through the real engine on a real
 * ms-fixture.  Keys: moves, pages, Home, End, kernel filters, a name
 * filter, sorts, g to an address, a new screen height.  Before each timer
 * tick the fixture maps, unmaps, mprotects or mremaps inside an area of
 * its own.  After each step:
 *   - the live rows are the reference's rows for the model's window
 *     (address order) or every matching mapping in the sort order;
 *   - with an index built since the last tick, its count and total size;
 *   - the screen is full (as many rows as fit, or all that match);
 *   - the selection is on a shown row, and stays on its mapping across a
 *     filter, name filter or sort change when that mapping still shows;
 *   - `+` only on a mapping that appeared at one of the last TUI_MARK_TICKS
 *     ticks, `-` ghosts only for pieces of one that vanished then, never over
 *     a live row, and at a tick every change inside what the view had seen
 *     since the tick before is marked (a vanished mapping by a ghost over
 *     what no mapping covers now).
 *
 * MS_MODEL_STEPS sets the number of steps (default 1000), MS_MODEL_SEED the
 * seed (default: from the clock).  A failure prints both, the step and its
 * action; the fixture runs without address randomization, so the same seed
 * replays the same keys and changes at the same addresses.  MS_MODEL_TRACE
 * prints each step.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "fixture_client.h"
#include "maps_ref.h"
#include "tui/maps_feed.h"
#include "tui/maps_model.h"

#define CHURN_PAGES 160
#define HISTORY (TUI_MARK_TICKS + 1)

struct span {
	uint64_t lo, hi;
};

struct spans {
	struct span v[256];
	size_t n;
	bool all;
};

struct run {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct tui_mapview vm;
	uint64_t churn;
	unsigned seed;
	long step;
	char action[160];
	struct refset now;
	struct refset listed;         /* the text when the sorted rows were last listed */
	struct refset snaps[HISTORY]; /* the text at the last ticks, newest first */
	long ticks;
	struct spans seen_cur, seen_prev;
	long prev_tick_snap_ok;       /* ticks since seen_prev started with a known filter */
	bool ioctl;
};

static void dump(const struct run *r);

#define CHECK(r, cond, ...)                                                                   \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "model test FAILED: seed %u step %ld (%s): ", (r)->seed, \
				(r)->step, (r)->action);                                      \
			fprintf(stderr, __VA_ARGS__);                                         \
			fprintf(stderr, "\n  replay: MS_MODEL_SEED=%u\n", (r)->seed);         \
			dump(r);                                                              \
			fail_msg("check failed: %s", #cond);                                  \
		}                                                                             \
	} while (0)

/*
 * The rows the model should show (pointers into r->now): its window from
 * top, read in chunks as the view reads them, or everything sorted.  lo,
 * hi: the range the window covers.
 */
static size_t expected_rows(struct run *r, const struct ref **out, uint64_t *lo, uint64_t *hi)
{
	const struct tui_mapview *vm = &r->vm;
	size_t want = tui_mapview_window_size(vm), n = 0, i = 0, matched = 0, taken = 0;
	const struct ref *first = NULL, *last = NULL;
	bool more;

	/* Sorted rows are as old as the last full listing (the index's age). */
	if (tui_mapview_sorted(vm)) {
		for (i = 0; i < r->listed.n; i++)
			if (ref_kernel_match(&r->listed.v[i], vm->filter) &&
			    ref_name_match(vm, r->listed.v[i].name, r->listed.v[i].name_len))
				out[n++] = &r->listed.v[i];
		qsort_r(out, n, sizeof(*out), ref_sort_cmp, (void *)vm);
		*lo = 0;
		*hi = UINT64_MAX;
		return n;
	}
	while (i < r->now.n && r->now.v[i].end <= vm->top)
		i++;
	do {
		size_t chunk = 0;

		for (; i < r->now.n && chunk < want; i++) {
			const struct ref *m = &r->now.v[i];

			if (!ref_kernel_match(m, vm->filter))
				continue;
			chunk++;
			taken++;
			first = first ? first : m;
			last = m;
			if (ref_name_match(vm, m->name, m->name_len)) {
				matched++;
				out[n++] = m;
			}
		}
		more = chunk == want;
	} while (more && matched < want && vm->name_filter[0]);
	*lo = first && first->start < vm->top ? first->start : vm->top;
	*hi = more && last ? last->end : UINT64_MAX;
	(void)taken;
	return n;
}

static size_t count_matching(const struct run *r, uint64_t *total)
{
	const struct refset *s = tui_mapview_sorted(&r->vm) ? &r->listed : &r->now;
	size_t n = 0;

	*total = 0;
	for (size_t i = 0; i < s->n; i++)
		if (ref_kernel_match(&s->v[i], r->vm.filter) &&
		    ref_name_match(&r->vm, s->v[i].name, s->v[i].name_len)) {
			n++;
			*total += s->v[i].end - s->v[i].start;
		}
	return n;
}

static void spans_add(struct spans *s, uint64_t lo, uint64_t hi)
{
	if (s->n < sizeof(s->v) / sizeof(s->v[0]))
		s->v[s->n++] = (struct span){ lo, hi };
	else
		s->all = false, s->n = 0; /* too many to track: expect nothing */
}

/* Inside the union of the spans (merged on the fly: they may touch). */
static bool spans_cover(const struct spans *s, uint64_t lo, uint64_t hi)
{
	bool moved = true;

	if (s->all)
		return true;
	while (lo < hi && moved) {
		moved = false;
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].lo <= lo && lo < s->v[i].hi) {
				lo = s->v[i].hi;
				moved = true;
			}
	}
	return lo >= hi;
}

/* Did x appear (appeared) or vanish at one of the last TUI_MARK_TICKS ticks? */
static bool changed_recently(const struct run *r, const struct ref *x, bool appeared)
{
	for (long k = 0; k < TUI_MARK_TICKS && k + 1 < HISTORY && k + 1 <= r->ticks; k++) {
		bool before = refset_has(&r->snaps[k + 1], x), after = refset_has(&r->snaps[k], x);

		if (appeared ? !before && after : before && !after)
			return true;
	}
	return false;
}

/* m is a piece of y: inside its range, the same mapping otherwise (a file's offset follows). */
static bool piece_of(const struct ms_mapping *m, const struct ref *y)
{
	return y->start <= m->start && m->end <= y->end && m->perms == y->perms &&
	       m->inode == y->inode && m->dev_major == y->major && m->dev_minor == y->minor &&
	       (!y->inode || m->offset == y->offset + (m->start - y->start));
}

/* Is m a piece of a mapping that vanished at one of the last TUI_MARK_TICKS ticks? */
static bool vanished_recently(const struct run *r, const struct ms_mapping *m)
{
	for (long k = 0; k < TUI_MARK_TICKS && k + 1 < HISTORY && k + 1 <= r->ticks; k++)
		for (size_t i = 0; i < r->snaps[k + 1].n; i++)
			if (piece_of(m, &r->snaps[k + 1].v[i]) && !refset_has(&r->snaps[k], &r->snaps[k + 1].v[i]))
				return true;
	return false;
}

/* Some address in [a, b) that no mapping matching filter covers now? */
static bool bare_now(const struct run *r, unsigned filter, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < r->now.n && a < b; i++) {
		const struct ref *v = &r->now.v[i];

		if (!ref_kernel_match(v, filter) || v->end <= a)
			continue;
		if (v->start > a)
			return true;
		a = v->end;
	}
	return a < b;
}

/* ---- the checks ---- */

/* A name for the log: control bytes and non-ASCII as \xNN (the fixture has an ESC in one). */
static void put_name(const char *name, size_t len)
{
	for (size_t i = 0; name && i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputc('\n', stderr);
}

/* The model's rows and the text, for a failure's log. */
static void dump(const struct run *r)
{
	const struct tui_mapview *vm = &r->vm;

	fprintf(stderr, "  model: top %" PRIx64 " limit %" PRIx64 " height %zu sel_row %zu filter 0x%x name \"%s\" sort %s%s\n",
		vm->top, vm->window_limit, vm->height, vm->sel_row, vm->filter, vm->name_filter,
		tui_map_sort_name(vm->sort), vm->sort_reverse ? " reversed" : "");
	for (size_t i = 0; i < vm->nrows; i++) {
		fprintf(stderr, "    row %2zu %c %" PRIx64 "-%" PRIx64 " %x ", i,
			vm->rows[i].mark == TUI_MARK_ADDED ? '+' : vm->rows[i].mark == TUI_MARK_REMOVED ? '-' : ' ',
			vm->rows[i].m->start, vm->rows[i].m->end, vm->rows[i].m->perms);
		put_name(vm->rows[i].m->name, vm->rows[i].m->name_len);
	}
	fprintf(stderr, "  text now:\n");
	for (size_t i = 0; i < r->now.n; i++) {
		fprintf(stderr, "    %" PRIx64 "-%" PRIx64 " %s ", r->now.v[i].start, r->now.v[i].end,
			r->now.v[i].ptext);
		put_name(r->now.v[i].name, r->now.v[i].name_len);
	}
}

static void check_marks(struct run *r, bool at_tick, uint64_t lo, uint64_t hi)
{
	const struct tui_mapview *vm = &r->vm;

	for (size_t i = 0; i < vm->nrows; i++) {
		const struct tui_maprow *row = &vm->rows[i];
		struct ref x = { .start = row->m->start, .end = row->m->end, .perms = row->m->perms,
				 .offset = row->m->offset, .inode = row->m->inode,
				 .major = row->m->dev_major, .minor = row->m->dev_minor };

		if (row->mark == TUI_MARK_ADDED)
			CHECK(r, changed_recently(r, &x, true),
			      "row %zu %" PRIx64 "-%" PRIx64 " marked + but did not appear lately", i,
			      x.start, x.end);
		if (row->mark != TUI_MARK_REMOVED)
			continue;
		CHECK(r, vanished_recently(r, row->m),
		      "ghost row %zu %" PRIx64 "-%" PRIx64 " but that mapping did not vanish lately", i,
		      x.start, x.end);
		for (size_t j = 0; j < vm->nrows; j++)
			CHECK(r, vm->rows[j].mark == TUI_MARK_REMOVED || vm->rows[j].m->end <= x.start ||
				 vm->rows[j].m->start >= x.end,
			      "ghost row %zu overlaps live row %zu", i, j);
	}
	if (!at_tick || tui_mapview_sorted(vm) || r->ticks < 1)
		return;
	/* Every change of this tick inside what was seen since the last one is marked. */
	for (size_t i = 0; i < vm->nrows; i++) {
		const struct ref *x = vm->rows[i].mark == TUI_MARK_REMOVED ? NULL :
				      refset_find(&r->now, vm->rows[i].m);

		if (x && !refset_has(&r->snaps[1], x) && spans_cover(&r->seen_prev, x->start, x->end))
			CHECK(r, vm->rows[i].mark == TUI_MARK_ADDED,
			      "row %zu %" PRIx64 "-%" PRIx64 " %s appeared at this tick, in view, unmarked",
			      i, x->start, x->end, x->ptext);
	}
	for (size_t k = 0; k < r->snaps[1].n; k++) {
		const struct ref *x = &r->snaps[1].v[k];
		bool shown = false;

		if (refset_has(&r->now, x) || !ref_kernel_match(x, vm->filter) ||
		    !ref_name_match(vm, x->name, x->name_len) || x->end <= lo || x->start >= hi ||
		    x->end <= vm->top || x->start >= vm->window_limit ||
		    !spans_cover(&r->seen_prev, x->start, x->end))
			continue;
		/* A ghost keeps the part no live mapping covers, shown or name-filtered out. */
		for (size_t i = 0; i < vm->nrows; i++)
			if (vm->rows[i].mark == TUI_MARK_REMOVED && piece_of(vm->rows[i].m, x))
				shown = true;
		CHECK(r, shown || !bare_now(r, vm->filter, x->start > vm->top ? x->start : vm->top,
					    x->end < vm->window_limit ? x->end : vm->window_limit),
		      "%" PRIx64 "-%" PRIx64 " %s vanished at this tick, no ghost for what is left bare",
		      x->start, x->end, x->ptext);
	}
}

static void check(struct run *r, bool at_tick, const struct ms_mapping *was_sel, bool keep_sel,
		  unsigned long walks_before)
{
	struct tui_mapview *vm = &r->vm;
	const struct ref **want = calloc(r->now.n + r->listed.n + 1, sizeof(*want));
	size_t n, live = 0, first, shown, total_n;
	uint64_t lo, hi, total;

	assert_non_null(want);
	if (tui_mapview_sorted(vm) && vm->index_age == 0)
		refset_copy(&r->listed, &r->now);
	n = expected_rows(r, want, &lo, &hi);
	for (size_t i = 0; i < vm->nrows; i++) {
		const struct ms_mapping *m = vm->rows[i].m;

		if (vm->rows[i].mark == TUI_MARK_REMOVED)
			continue;
		CHECK(r, live < n, "row %zu %" PRIx64 "-%" PRIx64 " is one more than the %zu expected", i,
		      m->start, m->end, n);
		CHECK(r, ref_is_mapping(m, want[live]) && ref_same_name(m, want[live]),
		      "row %zu is %" PRIx64 "-%" PRIx64 ", expected %" PRIx64 "-%" PRIx64 " %s", i,
		      m->start, m->end, want[live]->start, want[live]->end, want[live]->ptext);
		live++;
	}
	CHECK(r, live == n, "%zu live rows, expected %zu (top %" PRIx64 ")", live, n, vm->top);
	total_n = count_matching(r, &total);
	if (vm->index_valid && vm->index_age == 0) {
		CHECK(r, vm->nstarts == total_n, "header count %zu, expected %zu", vm->nstarts, total_n);
		CHECK(r, vm->total_size == total, "header size %" PRIu64 ", expected %" PRIu64,
		      vm->total_size, total);
	}
	first = tui_mapview_first_shown(vm);
	shown = vm->nrows > first ? vm->nrows - first : 0;
	shown = shown < vm->height ? shown : vm->height;
	CHECK(r, shown >= (total_n < vm->height ? total_n : vm->height),
	      "screen not full: %zu of %zu rows shown, %zu match (top %" PRIx64 ")", shown, vm->height,
	      total_n, vm->top);
	if (vm->nrows) {
		CHECK(r, vm->sel_row < vm->nrows && vm->sel_row >= first && vm->sel_row < first + vm->height,
		      "selection row %zu not shown (first %zu, %zu rows)", vm->sel_row, first, vm->nrows);
		CHECK(r, vm->rows[vm->sel_row].m->start == vm->sel, "selection address out of step");
	}
	if (keep_sel && was_sel->end) {
		for (size_t i = 0; i < vm->nrows; i++)
			if (vm->rows[i].mark != TUI_MARK_REMOVED && vm->rows[i].m->start == was_sel->start &&
			    vm->rows[i].m->end == was_sel->end)
				CHECK(r, vm->sel_row == i, "selection left %" PRIx64 ", which still shows",
				      was_sel->start);
	}
	check_marks(r, at_tick, lo, hi);
	/* What the view saw in this step, for the next tick's completeness check. */
	if (!tui_mapview_sorted(vm)) {
		spans_add(&r->seen_cur, lo, hi);
		if (vm->index_walks != walks_before)
			r->seen_cur.all = true;
	}
	free(want);
}

/* ---- the steps ---- */

static void refresh(struct run *r, bool timer)
{
	struct ms_error err;

	CHECK(r, tui_mapfeed_refresh(&r->vm, r->maps, timer, NULL, &err) >= 0, "refresh: %s",
	      err.msg);
}

static void moved(struct run *r, int rc, int (*again)(struct tui_mapview *, long), long delta)
{
	struct ms_error err;

	rc = tui_mapfeed_moved(&r->vm, r->maps, rc, again, delta, NULL, &err);
	CHECK(r, rc >= 0, "move: %s", err.msg);
	if (rc == TUI_MV_REQUERY || tui_mapview_sorted(&r->vm))
		refresh(r, false);
}

static void mutate(struct run *r)
{
	static const char *const prots[] = { "r", "rw", "rx", "-", "rwx" };
	int n = rand() % 4;

	for (int i = 0; i < n; i++) {
		unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
		unsigned long pages = 1 + (unsigned long)(rand() % 6);
		unsigned long at = (unsigned long)(rand() % (CHURN_PAGES - 8));
		uint64_t addr = r->churn + at * page, to = r->churn + (unsigned long)(rand() % (CHURN_PAGES - 8)) * page;
		const char *prot = prots[rand() % 5];

		/* The kernel may refuse one (mremap across two mappings): that is a change too, of nothing. */
		switch (rand() % 5) {
		case 0: fixture_commandf(&r->fx, "anon %" PRIx64 " %lu %s", addr, pages, prot); break;
		case 1: fixture_commandf(&r->fx, "file %" PRIx64 " %lu %s %lu", addr, pages, prot, at % 50); break;
		case 2: fixture_commandf(&r->fx, "unmapat %" PRIx64 " %lu", addr, pages); break;
		case 3: fixture_commandf(&r->fx, "protect %" PRIx64 " %lu %s", addr, pages, prot); break;
		default:
			fixture_commandf(&r->fx, "remap %" PRIx64 " %lu %" PRIx64 " %lu", addr, pages,
					 rand() % 2 ? addr : to, 1 + (unsigned long)(rand() % 6));
			break;
		}
	}
}

static void tick(struct run *r)
{
	mutate(r);
	for (int k = HISTORY - 1; k > 0; k--)
		refset_copy(&r->snaps[k], &r->snaps[k - 1]);
	refset_read(r->fx.pid, r->ioctl, &r->snaps[0]);
	r->ticks++;
	r->seen_prev = r->seen_cur;
	memset(&r->seen_cur, 0, sizeof(r->seen_cur));
	refresh(r, true);
}

static void forget_seen(struct run *r)
{
	memset(&r->seen_cur, 0, sizeof(r->seen_cur));
	memset(&r->seen_prev, 0, sizeof(r->seen_prev));
}

static void one_step(struct run *r)
{
	static const unsigned bits[] = { MS_FILTER_FILE_BACKED, MS_FILTER_EXECUTABLE,
					 MS_FILTER_WRITABLE, MS_FILTER_READABLE, MS_FILTER_SHARED };
	static const char *const names[] = { "", "churn", ".dat", "lib", "ms-", "zz-nothing" };
	static const enum tui_map_sort sorts[] = { TUI_MSORT_SIZE, TUI_MSORT_PERMS, TUI_MSORT_INODE,
						    TUI_MSORT_NAME };
	struct tui_mapview *vm = &r->vm;
	const struct tui_maprow *selrow = tui_mapview_selected(vm);
	struct ms_mapping was = { 0 };
	bool at_tick = false, keep_sel = false;
	long page = (long)vm->height;
	unsigned long walks = vm->index_walks;
	int a = rand() % 100;

	if (selrow && selrow->mark != TUI_MARK_REMOVED)
		was = (struct ms_mapping){ .start = selrow->m->start, .end = selrow->m->end };
	if (a < 25) {
		snprintf(r->action, sizeof(r->action), "tick");
		tick(r);
		at_tick = true;
	} else if (a < 35) {
		snprintf(r->action, sizeof(r->action), "down");
		moved(r, tui_mapview_move(vm, 1), tui_mapview_move, 1);
	} else if (a < 42) {
		snprintf(r->action, sizeof(r->action), "up");
		moved(r, tui_mapview_move(vm, -1), tui_mapview_move, -1);
	} else if (a < 48) {
		snprintf(r->action, sizeof(r->action), "page down");
		moved(r, tui_mapview_move(vm, page), tui_mapview_move, page);
	} else if (a < 55) {
		snprintf(r->action, sizeof(r->action), "page up");
		moved(r, tui_mapview_move(vm, -page), tui_mapview_move, -page);
	} else if (a < 60) {
		snprintf(r->action, sizeof(r->action), "home");
		moved(r, tui_mapview_home(vm), NULL, 0);
	} else if (a < 67) {
		snprintf(r->action, sizeof(r->action), "end");
		moved(r, tui_mapview_end(vm), NULL, 0);
	} else if (a < 75) {
		unsigned bit = bits[rand() % 5];

		snprintf(r->action, sizeof(r->action), "filter ^0x%x", bit);
		tui_mapview_set_filter(vm, vm->filter ^ bit);
		forget_seen(r);
		refresh(r, false);
		keep_sel = true;
	} else if (a < 81) {
		const char *s = names[rand() % 6];

		snprintf(r->action, sizeof(r->action), "name filter \"%s\"", s);
		tui_mapview_set_name_filter(vm, s);
		refresh(r, false);
		keep_sel = true;
	} else if (a < 85) {
		bool back = rand() % 2;
		enum tui_map_sort s = back ? TUI_MSORT_ADDRESS : sorts[rand() % 4];
		bool rev = !back && rand() % 2;

		snprintf(r->action, sizeof(r->action), "sort %s%s", tui_map_sort_name(s), rev ? " reversed" : "");
		tui_mapview_set_sort(vm, s, rev);
		forget_seen(r);
		refresh(r, false);
		keep_sel = true;
	} else if (a < 93) {
		uint64_t addr = rand() % 2 || !r->now.n ? r->churn + (uint64_t)(rand() % CHURN_PAGES) * 4096 :
				r->now.v[rand() % r->now.n].start;
		struct ms_mapping m = { 0 };
		struct ms_error err;

		snprintf(r->action, sizeof(r->action), "g %" PRIx64, addr);
		if (ms_maps_next(r->maps, addr, vm->filter, &m, &err) == 0) {
			tui_mapview_goto(vm, m.start);
			refresh(r, false);
		}
		ms_mapping_reset(&m);
	} else {
		size_t h = 2 + (size_t)(rand() % 24);

		snprintf(r->action, sizeof(r->action), "height %zu", h);
		vm->height = h;
		refresh(r, false);
	}
	refset_read(r->fx.pid, r->ioctl, &r->now);
	if (getenv("MS_MODEL_TRACE"))
		fprintf(stderr, "step %ld: %s (top %" PRIx64 ", %zu rows, index age %u)\n", r->step,
			r->action, vm->top, vm->nrows, vm->index_age);
	check(r, at_tick, &was, keep_sel, walks);
}

static int setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	*state = r;
	/* The fixture inherits it: the same seed gives the same addresses, so a failure replays. */
	personality(ADDR_NO_RANDOMIZE);
	if (fixture_start(&r->fx) < 0) {
		/* cmocka runs no teardown after a failed setup. */
		free(r);
		*state = NULL;
		return -1;
	}
	return 0;
}

/* Also after a failed check: the fixture holds the test's output open. */
static int teardown(void **state)
{
	struct run *r = *state;

	tui_mapview_free(&r->vm);
	ms_maps_close(r->maps);
	ms_proc_close(r->proc);
	fixture_stop(&r->fx);
	refset_free(&r->now);
	refset_free(&r->listed);
	for (int k = 0; k < HISTORY; k++)
		refset_free(&r->snaps[k]);
	free(r);
	return 0;
}

static void test_random_keys_and_changes(void **state)
{
	struct run *r = *state;
	const char *env = getenv("MS_MODEL_STEPS");
	long steps = env ? strtol(env, NULL, 10) : 1000;
	struct ms_error err;
	const struct fx_map *area;

	env = getenv("MS_MODEL_SEED");
	r->seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
	srand(r->seed);
	print_message("maps model: seed %u, %ld steps (MS_MODEL_SEED, MS_MODEL_STEPS)\n", r->seed, steps);
	assert_int_equal(fixture_commandf(&r->fx, "churn %d", CHURN_PAGES), 0);
	area = fixture_find(&r->fx, "churn");
	assert_non_null(area);
	r->churn = area->start;
	assert_int_equal(ms_proc_open(r->fx.pid, &r->proc, &err), 0);
	assert_int_equal(ms_maps_open(r->proc, NULL, &r->maps, &err), 0);
	r->ioctl = ms_maps_backend(r->maps) == MS_BACKEND_IOCTL;
	/* Enough to fill a screen from the start. */
	for (int i = 0; i < 12; i++)
		fixture_commandf(&r->fx, "anon %" PRIx64 " 1 %s", r->churn + (uint64_t)(2 * i + 1) * 4096,
				 i % 2 ? "r" : "rw");
	tui_mapview_init(&r->vm, 0, 10);
	refset_read(r->fx.pid, r->ioctl, &r->snaps[0]);
	snprintf(r->action, sizeof(r->action), "start");
	refresh(r, true);
	refset_read(r->fx.pid, r->ioctl, &r->now);
	check(r, false, &(struct ms_mapping){ 0 }, false, 0);
	for (r->step = 1; r->step <= steps; r->step++)
		one_step(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_keys_and_changes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
