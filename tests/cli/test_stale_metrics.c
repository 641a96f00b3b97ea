/*
 * The OpenMetrics document of a stale report, from reports built here:
 * each grouped metric keeps at most STALE_METRICS_MAX_SERIES series, the
 * ones with the most processes, and sums the rest in one overflow series;
 * a unit is told apart by its container (empty on the host, "other root"
 * under an unknown one);
 * a hostile unit name is escaped once, by OpenMetrics' rules, so the
 * document still parses and gives the name back; grouping a
 * hundred thousand distinct units takes well under a second (by hash: the
 * linear search it replaced took minutes there); and the document ends in
 * the scan timestamp and "# EOF".
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cli/stale_metrics.h"
#include "testutil.h"

#define UNIT_METRIC "mapscope_stale_unit_processes{"
#define HOST ",container=\"\"}"

/* procs stale processes; process i is in the unit names[i % nnames]. */
static void build(struct ms_stale_report *r, size_t procs, const char *(*name_of)(size_t i))
{
	memset(r, 0, sizeof(*r));
	r->procs = calloc(procs, sizeof(*r->procs));
	assert_non_null(r->procs);
	r->count = r->capacity = procs;
	r->stale_procs = procs;
	for (size_t i = 0; i < procs; i++) {
		struct ms_stale_proc *p = &r->procs[i];

		p->pid = (pid_t)(i + 100);
		p->stale_files = 1;
		p->unit.user_uid = -1;
		p->has_unit = true;
		snprintf(p->unit.name, sizeof(p->unit.name), "%s", name_of(i));
	}
}

static char *render(const struct ms_stale_report *r)
{
	struct procscan ps;
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);

	memset(&ps, 0, sizeof(ps));
	assert_non_null(mem);
	assert_int_equal(stale_metrics_write(mem, r, &ps), 0);
	assert_int_equal(fclose(mem), 0);
	return doc;
}

/* Units 0..1199: unit k has one process, and units 0..9 have ten more each. */
static const char *many_name(size_t i)
{
	static char name[64];

	snprintf(name, sizeof(name), "u%04zu.service", i < 1200 ? i : (i - 1200) % 10);
	return name;
}

static void test_bounded_series(void **state)
{
	struct ms_stale_report r;
	char *doc;

	(void)state;
	build(&r, 1200 + 100, many_name);
	doc = render(&r);
	assert_int_equal(tu_count_lines(doc, UNIT_METRIC), STALE_METRICS_MAX_SERIES + 1);
	/* The biggest first: units 0..9 with 11 processes each are kept. */
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"u0000.service\"" HOST " 11\n"));
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"u0009.service\"" HOST " 11\n"));
	/* Ties by name: 1190 units of one process, 990 kept, u1000..u1199 summed. */
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"u0999.service\"" HOST " 1\n"));
	assert_null(strstr(doc, "u1000.service"));
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"\",container=\"\",overflow=\"true\"} 200\n"));
	/* All on the host: one container series. */
	assert_non_null(strstr(doc, "\nmapscope_stale_container_processes{container=\"\"} 1300\n"));
	free(doc);
	ms_stale_report_free(&r);
}

static const char *hostile_name(size_t i)
{
	return i ? "plain.service" : "a\"b\\c\nd} 99\n# EOF\n\x1b[1m\xff.service";
}

static void test_hostile_unit_name_quoted(void **state)
{
	struct ms_stale_report r;
	char *doc;

	(void)state;
	build(&r, 2, hostile_name);
	doc = render(&r);
	/* One "# EOF", at the end; the newline never reaches the document raw. */
	assert_int_equal(tu_count_lines(doc, "# EOF"), 1);
	assert_string_equal(doc + strlen(doc) - 6, "# EOF\n");
	assert_int_equal(tu_count_lines(doc, UNIT_METRIC), 2);
	/*
	 * Escaped once, by OpenMetrics' rules, so a scraper reads the name back;
	 * what the format cannot escape (ESC, a byte that is not UTF-8) as U+FFFD.
	 */
	assert_non_null(strstr(doc, "unit=\"a\\\"b\\\\c\\nd} 99\\n# EOF\\n\xef\xbf\xbd[1m\xef\xbf\xbd.service\""));
	free(doc);
	ms_stale_report_free(&r);
}

/* nginx on the host, in container abc (twice) and under an unknown root. */
static void test_units_by_container(void **state)
{
	struct ms_stale_report r;
	char *doc;

	(void)state;
	build(&r, 4, hostile_name);
	for (size_t i = 0; i < 4; i++)
		snprintf(r.procs[i].unit.name, sizeof(r.procs[i].unit.name), "nginx.service");
	for (size_t i = 1; i < 4; i++)
		r.procs[i].other_root = true;
	for (size_t i = 1; i < 3; i++) {
		r.procs[i].has_container = true;
		r.procs[i].container.engine = "docker";
		snprintf(r.procs[i].container.name, sizeof(r.procs[i].container.name), "abc");
	}
	doc = render(&r);
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"nginx.service\",container=\"docker:abc\"} 2\n"));
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"nginx.service\"" HOST " 1\n"));
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"nginx.service\",container=\"other root\"} 1\n"));
	assert_non_null(strstr(doc, "\nmapscope_stale_container_processes{container=\"docker:abc\"} 2\n"));
	free(doc);
	ms_stale_report_free(&r);
}

static const char *distinct_name(size_t i)
{
	static char name[64];

	snprintf(name, sizeof(name), "run-u%zu.scope", i);
	return name;
}

static void test_grouping_is_not_quadratic(void **state)
{
	struct ms_stale_report r;
	struct timespec t0, t1;
	char *doc;

	(void)state;
	build(&r, 100000, distinct_name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	doc = render(&r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 < 2.0);
	assert_non_null(strstr(doc, UNIT_METRIC "unit=\"\",container=\"\",overflow=\"true\"} 99000\n"));
	free(doc);
	ms_stale_report_free(&r);
}

static void test_timestamp_then_eof(void **state)
{
	struct ms_stale_report r;
	long long when = 0;
	const char *line;
	char *doc;

	(void)state;
	build(&r, 0, many_name);
	doc = render(&r);
	line = strstr(doc, "\nmapscope_stale_scan_timestamp_seconds ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "\nmapscope_stale_scan_timestamp_seconds %lld.", &when), 1);
	assert_true(llabs(when - (long long)time(NULL)) < 60);
	assert_non_null(strstr(line + 1, "\n# EOF\n"));
	assert_string_equal(doc + strlen(doc) - 6, "# EOF\n");
	/* Nothing stale: no series, but the family is still declared. */
	assert_int_equal(tu_count_lines(doc, UNIT_METRIC), 0);
	assert_int_equal(tu_count_lines(doc, "# TYPE mapscope_stale_unit_processes gauge"), 1);
	free(doc);
	ms_stale_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded_series),
		cmocka_unit_test(test_hostile_unit_name_quoted),
		cmocka_unit_test(test_units_by_container),
		cmocka_unit_test(test_grouping_is_not_quadratic),
		cmocka_unit_test(test_timestamp_then_eof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
