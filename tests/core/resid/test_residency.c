/*
 * Residency against live processes: for every mapping of a quiescent
 * fixture, RSS and swap from PAGEMAP_SCAN equal /proc/PID/smaps Rss and
 * Swap exactly; the pages the fixture touched are counted as it touched
 * them (written, read-only on the zero page -- or on real pages, where
 * the kernel's own smaps shows it allocates them for a read fault --,
 * untouched, a file read in part); the walk continues from walk_end when the output vector is small;
 * and the smaps fallback (forced, or chosen after ENOTTY through the ioctl
 * seam) gives the same numbers.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "resfix.h"
#include "maps/maps.h"
#include "resid/residency.h"

struct res_ctx {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list;
	long page;
};

static struct ms_residency *open_res(struct ms_proc *proc, enum ms_res_backend b,
				     ms_ioctl_fn fn, size_t vec_len)
{
	struct ms_res_opts opts = { .backend = b, .ioctl_fn = fn, .vec_len = vec_len };
	struct ms_residency *res = NULL;
	struct ms_error err;

	if (ms_residency_open(proc, &opts, &res, &err) < 0)
		fail_msg("open residency %s: %s", ms_res_backend_name(b), err.msg);
	return res;
}

static struct ms_resinfo *query_all(struct res_ctx *c, struct ms_residency *res)
{
	struct ms_resinfo *out = calloc(c->list.count, sizeof(*out));
	struct ms_error err;

	assert_non_null(out);
	if (ms_residency_query(res, c->list.items, c->list.count, out, &err) < 0)
		fail_msg("query: %s", err.msg);
	return out;
}

static int setup(void **state)
{
	struct res_ctx *c = calloc(1, sizeof(*c));
	/* The text backend lists [vsyscall] too, so every smaps record is compared. */
	struct ms_maps_opts mo = { .backend = MS_BACKEND_TEXT };
	struct ms_error err;

	assert_non_null(c);
	assert_int_equal(resfix_start(&c->fx), 0);
	c->page = sysconf(_SC_PAGESIZE);
	if (ms_proc_open(c->fx.pid, &c->proc, &err) < 0 ||
	    ms_maps_open(c->proc, &mo, &c->maps, &err) < 0 ||
	    ms_maps_collect(c->maps, 0, &c->list, &err) < 0)
		fail_msg("%s", err.msg);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct res_ctx *c = *state;

	ms_maplist_free(&c->list);
	ms_maps_close(c->maps);
	ms_proc_close(c->proc);
	fixture_stop(&c->fx);
	free(c);
	return 0;
}

static size_t index_of(const struct res_ctx *c, const char *kind)
{
	const struct fx_map *fm = fixture_find(&c->fx, kind);

	assert_non_null(fm);
	for (size_t i = 0; i < c->list.count; i++)
		if (c->list.items[i].start == fm->start && c->list.items[i].end == fm->end)
			return i;
	fail_msg("mapping %s not listed", kind);
	return 0;
}

/*
 * Query, with smaps read just before and just after; khugepaged may still
 * be at work on the huge regions, so try again until both reads agree
 * (bounded by a deadline, not a sleep).
 */
static struct ms_resinfo *stable_query(struct res_ctx *c, struct ms_residency *res,
				       struct smaps_set *smaps)
{
	time_t deadline = time(NULL) + 20;

	for (;;) {
		struct smaps_set before, after;
		struct ms_resinfo *out;

		assert_int_equal(resfix_read_smaps(c->fx.pid, &before), 0);
		out = query_all(c, res);
		assert_int_equal(resfix_read_smaps(c->fx.pid, &after), 0);
		if (resfix_smaps_same(&before, &after) || time(NULL) > deadline) {
			free(before.recs);
			*smaps = after;
			return out;
		}
		free(before.recs);
		free(after.recs);
		free(out);
	}
}

static void check_against_smaps(struct res_ctx *c, struct ms_residency *res)
{
	struct smaps_set smaps;
	struct ms_resinfo *out = stable_query(c, res, &smaps);
	size_t compared = 0;

	for (size_t i = 0; i < c->list.count; i++) {
		const struct ms_mapping *m = &c->list.items[i];
		const struct smaps_rec *s = resfix_smaps_find(&smaps, m->start, m->end);

		if (!s)
			fail_msg("%llx-%llx not in smaps", (unsigned long long)m->start,
				 (unsigned long long)m->end);
		else if (out[i].rss != s->rss || out[i].swap != s->swap ||
		    out[i].huge != s->anon_huge + s->hugetlb || out[i].hugetlb != s->hugetlb)
			fail_msg("%s: %llx-%llx %.*s: rss %llu swap %llu huge %llu, smaps %llu %llu %llu",
				 ms_res_backend_name(ms_residency_backend(res)),
				 (unsigned long long)m->start, (unsigned long long)m->end,
				 (int)m->name_len, m->name ? m->name : "",
				 (unsigned long long)out[i].rss, (unsigned long long)out[i].swap,
				 (unsigned long long)out[i].huge, (unsigned long long)s->rss,
				 (unsigned long long)s->swap, (unsigned long long)(s->anon_huge + s->hugetlb));
		compared++;
	}
	/* Every mapping of the process, the fixture's and libc's and the stack alike. */
	assert_int_equal(compared, smaps.count);
	free(smaps.recs);
	free(out);
}

/* The first mapping whose PSS, USS or DIRTY the query and smaps do not agree on, or count. */
static size_t private_mismatch(const struct res_ctx *c, const struct ms_resinfo *out, const struct smaps_set *smaps)
{
	for (size_t i = 0; i < c->list.count; i++) {
		const struct ms_mapping *m = &c->list.items[i];
		const struct smaps_rec *s = resfix_smaps_find(smaps, m->start, m->end);

		if (!s || !out[i].pss_known || out[i].pss != s->pss || out[i].uss != s->priv ||
		    out[i].dirty != s->dirty)
			return i;
	}
	return c->list.count;
}

/*
 * The smaps backend's PSS, USS and DIRTY, mapping by mapping; some are
 * non-zero.  A page's PSS is its size over the processes that map it, so
 * a process that maps or unmaps libc between the reads (on a busy host,
 * or another test beside this one) moves it in both smaps reads and none
 * of the query's, or the reverse: the query is made again until it agrees
 * with smaps, for as long as stable_query waits.
 */
static void check_private_against_smaps(struct res_ctx *c, struct ms_residency *res)
{
	time_t deadline = time(NULL) + 20;
	struct smaps_set smaps;
	struct ms_resinfo *out = stable_query(c, res, &smaps);
	uint64_t uss = 0, dirty = 0;
	size_t bad;

	while ((bad = private_mismatch(c, out, &smaps)) < c->list.count && time(NULL) <= deadline) {
		free(smaps.recs);
		free(out);
		out = stable_query(c, res, &smaps);
	}
	if (bad < c->list.count) {
		const struct ms_mapping *m = &c->list.items[bad];
		const struct smaps_rec *s = resfix_smaps_find(&smaps, m->start, m->end);

		fail_msg("%llx-%llx: pss %llu uss %llu dirty %llu, smaps %llu %llu %llu",
			 (unsigned long long)m->start, (unsigned long long)m->end,
			 (unsigned long long)out[bad].pss, (unsigned long long)out[bad].uss,
			 (unsigned long long)out[bad].dirty, s ? (unsigned long long)s->pss : 0ull,
			 s ? (unsigned long long)s->priv : 0ull, s ? (unsigned long long)s->dirty : 0ull);
	}
	for (size_t i = 0; i < c->list.count; i++) {
		uss += out[i].uss;
		dirty += out[i].dirty;
	}
	/* The fixture writes its anonymous pages: they are private and dirty. */
	assert_true(uss > 0);
	assert_true(dirty > 0);
	free(smaps.recs);
	free(out);
}

static void test_pagemap_equals_smaps(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);

	assert_int_equal(ms_residency_backend(res), MS_RES_PAGEMAP);
	check_against_smaps(c, res);
	ms_residency_close(res);
}

static void test_smaps_backend_equals_smaps(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_SMAPS, NULL, 0);

	assert_int_equal(ms_residency_backend(res), MS_RES_SMAPS);
	check_against_smaps(c, res);
	check_private_against_smaps(c, res);
	assert_true(ms_residency_stats(res)->smaps_reads > 0);
	assert_int_equal(ms_residency_stats(res)->scans, 0);
	ms_residency_close(res);
}

static void test_known_pages(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct ms_resinfo *out = query_all(c, res);
	uint64_t p = (uint64_t)c->page;
	const struct ms_resinfo *file = &out[index_of(c, "file-partial")];
	const struct ms_resinfo *read = &out[index_of(c, "anon-read")];
	struct smaps_rec sr;

	assert_int_equal(out[index_of(c, "anon-written")].rss, 5 * p);
	assert_int_equal(out[index_of(c, "anon-written")].zero, 0);
	/* How this kernel backed the 3 pages only read, from its own smaps. */
	assert_int_equal(resfix_smaps_of(&c->fx, "anon-read", &sr), 0);
	if (resfix_read_on_zero_page(&sr)) {
		print_message("anon-read: the kernel mapped the zero page (smaps Rss 0)\n");
		/* Read-only pages map the zero page: not resident, but counted apart. */
		assert_int_equal(read->rss, 0);
		assert_int_equal(read->zero, 3 * p);
	} else {
		print_message("anon-read: the kernel allocated real pages on the read faults, no zero page (smaps Rss %llu)\n",
			      (unsigned long long)sr.rss);
		/* Real pages: resident like written ones, none on the zero page. */
		assert_int_equal(sr.rss, 3 * p);
		assert_int_equal(read->rss, 3 * p);
		assert_int_equal(read->zero, 0);
	}
	assert_true(read->zero_known);
	assert_int_equal(out[index_of(c, "anon-untouched")].rss, 0);
	assert_int_equal(out[index_of(c, "anon-untouched")].zero, 0);
	assert_int_equal(out[index_of(c, "shared-written")].rss, 2 * p);
	assert_int_equal(out[index_of(c, "striped")].rss, 32 * p);
	/* Read in part: MADV_RANDOM keeps the kernel from reading around the two pages. */
	assert_int_equal(file->rss, 2 * p);
	for (size_t i = 0; i < c->list.count; i++)
		assert_int_equal(out[i].swap, 0); /* nothing was swapped out */
	free(out);
	ms_residency_close(res);
}

static void test_huge_pages(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct smaps_set smaps;
	struct ms_resinfo *out = stable_query(c, res, &smaps);
	size_t w = index_of(c, "thp-written"), r = index_of(c, "thp-read");
	const struct smaps_rec *sw = resfix_smaps_find(&smaps, c->list.items[w].start, c->list.items[w].end);
	const struct smaps_rec *sr = resfix_smaps_find(&smaps, c->list.items[r].start, c->list.items[r].end);

	assert_non_null(sw);
	/* 2 MiB written: resident whether or not the kernel found a huge page. */
	assert_int_equal(out[w].rss, 2 * 1024 * 1024);
	assert_int_equal(out[w].huge, sw ? sw->anon_huge : UINT64_MAX);
	assert_non_null(sr);
	if (sr && resfix_read_on_zero_page(sr)) {
		print_message("thp-read: the kernel mapped the zero page (smaps Rss 0)\n");
		/* Only read: nothing resident (the huge zero page or small zero pages). */
		assert_int_equal(out[r].rss, 0);
		assert_int_equal(out[r].huge, 0);
		assert_true(out[r].zero > 0);
	} else if (sr) {
		print_message("thp-read: the kernel allocated real pages on the read fault, no zero page (smaps Rss %llu, AnonHugePages %llu)\n",
			      (unsigned long long)sr->rss, (unsigned long long)sr->anon_huge);
		/*
		 * One byte read: a whole huge page when the kernel gave one
		 * (AnonHugePages), else the one small page read; resident, and
		 * nothing on the zero page.
		 */
		assert_int_equal(out[r].huge, sr->anon_huge);
		assert_int_equal(out[r].rss, sr->anon_huge ? 2 * 1024 * 1024 : (uint64_t)c->page);
		assert_int_equal(out[r].rss, sr->rss);
		assert_int_equal(out[r].zero, 0);
	}
	free(smaps.recs);
	free(out);
	ms_residency_close(res);
}

/* One region per call: the walk must continue from walk_end. */
static void test_small_vector_continues(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *big = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct ms_residency *tiny = open_res(c->proc, MS_RES_PAGEMAP, NULL, 1);
	struct ms_resinfo *a = NULL, *b = NULL;

	/*
	 * The process lives on (its stack, libc's pages) between the two
	 * walks: compare a pair taken while the whole walk before and after
	 * gave the same, a bounded number of tries.
	 */
	for (int tries = 0; tries < 20; tries++) {
		struct ms_resinfo *again;
		bool same = true;

		free(a);
		free(b);
		a = query_all(c, big);
		b = query_all(c, tiny);
		again = query_all(c, big);
		for (size_t i = 0; i < c->list.count; i++)
			same = same && a[i].rss == again[i].rss && a[i].zero == again[i].zero &&
			       a[i].huge == again[i].huge;
		free(again);
		if (same)
			break;
	}
	for (size_t i = 0; i < c->list.count; i++) {
		assert_int_equal(a[i].rss, b[i].rss);
		assert_int_equal(a[i].zero, b[i].zero);
		assert_int_equal(a[i].huge, b[i].huge);
	}
	/* striped alone has 32 separate resident runs. */
	assert_true(ms_residency_stats(tiny)->scans >= 32);
	assert_int_equal(ms_residency_stats(tiny)->scans, ms_residency_stats(tiny)->regions);
	assert_true(ms_residency_stats(big)->scans < ms_residency_stats(tiny)->scans);
	free(a);
	free(b);
	ms_residency_close(big);
	ms_residency_close(tiny);
}

/* A window of a few mappings gives what the whole list gives for them. */
static void test_window_matches_whole(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct ms_resinfo *all = query_all(c, res), part[3];
	size_t first = index_of(c, "anon-read");
	struct ms_error err;

	assert_true(first + 3 <= c->list.count);
	assert_int_equal(ms_residency_query(res, &c->list.items[first], 3, part, &err), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(part[i].rss, all[first + i].rss);
		assert_int_equal(part[i].zero, all[first + i].zero);
	}
	free(all);
	ms_residency_close(res);
}

static int notty_calls;

static int fake_notty(int fd, unsigned long request, void *arg)
{
	(void)fd;
	(void)request;
	(void)arg;
	notty_calls++;
	errno = ENOTTY;
	return -1;
}

static void test_enotty_falls_back_to_smaps(void **state)
{
	struct res_ctx *c = *state;
	struct ms_res_opts opts = { .backend = MS_RES_PAGEMAP, .ioctl_fn = fake_notty };
	struct ms_residency *res = NULL;
	struct ms_error err;

	notty_calls = 0;
	res = open_res(c->proc, MS_RES_AUTO, fake_notty, 0);
	assert_true(notty_calls > 0);
	assert_int_equal(ms_residency_backend(res), MS_RES_SMAPS);
	check_against_smaps(c, res);
	ms_residency_close(res);

	/* Asked for pagemap by name: no silent fallback. */
	assert_int_equal(ms_residency_open(c->proc, &opts, &res, &err), MS_ERR_NOTSUP);
	assert_non_null(strstr(err.msg, "PAGEMAP_SCAN"));
}

static int eintr_left;

static int flaky_eintr(int fd, unsigned long request, void *arg)
{
	if (eintr_left > 0) {
		eintr_left--;
		errno = EINTR;
		return -1;
	}
	return ioctl(fd, request, arg);
}

static void test_eintr_retried(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, flaky_eintr, 0);
	struct ms_resinfo *out;

	eintr_left = 3;
	out = query_all(c, res);
	assert_int_equal(eintr_left, 0);
	assert_int_equal(out[index_of(c, "anon-written")].rss, 5 * (uint64_t)c->page);
	free(out);
	ms_residency_close(res);
}

static void test_out_of_order_refused(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *res = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct ms_mapping two[2];
	struct ms_resinfo out[2];
	struct ms_error err;

	two[0] = c->list.items[1];
	two[1] = c->list.items[0];
	assert_int_equal(ms_residency_query(res, two, 2, out, &err), MS_ERR_INVAL);
	ms_residency_close(res);
}

static void test_exited_process(void **state)
{
	struct res_ctx *c = *state;
	struct ms_residency *scan = open_res(c->proc, MS_RES_PAGEMAP, NULL, 0);
	struct ms_residency *text = open_res(c->proc, MS_RES_SMAPS, NULL, 0);
	struct ms_resinfo *out = calloc(c->list.count, sizeof(*out));
	struct ms_error err;

	assert_non_null(out);
	fixture_kill(&c->fx, true);
	assert_int_equal(ms_residency_query(scan, c->list.items, c->list.count, out, &err), MS_ERR_EXITED);
	assert_int_equal(ms_residency_query(text, c->list.items, c->list.count, out, &err), MS_ERR_EXITED);
	free(out);
	ms_residency_close(scan);
	ms_residency_close(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pagemap_equals_smaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smaps_backend_equals_smaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_vector_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_matches_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enotty_falls_back_to_smaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eintr_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_process, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
