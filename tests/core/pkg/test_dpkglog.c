/*
 * The running copy's version from dpkg's log (src/core/pkg/dpkglog.h), on
 * logs the tests write into their own directory (the opts dir seam; the
 * owner seam set to the test's own uid, so the rules run as they would on
 * root's /var/log): the line parser, the rule (one upgrade, none, several,
 * a reinstall chain, another architecture, a log that does not reach back
 * to the start), rotated files read newest first with gzip ones, malformed
 * and over-long lines, and, as nobody, a FIFO, a symlink and a huge sparse
 * file where dpkg.log belongs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/pkg/dpkglog.h"
#include "core/pkg/dpkglog_parse.h"
#include "testutil.h"

/* Every test starts a process "at" START, a fixed hour ago. */
static time_t start;

static void expect_parse(const char *line, enum ms_dpkglog_action want)
{
	struct ms_dpkglog_line ln;
	enum ms_dpkglog_action got = ms_dpkglog_parse_line(line, strlen(line), &ln);

	if (got != want)
		fail_msg("\"%s\": action %d, wanted %d", line, (int)got, (int)want);
}

static void test_parse_line(void **state)
{
	static const char up[] = "2026-12-03 10:00:07 upgrade libssl3:amd64 3.0.19-1~deb12u1 3.0.22-1~deb12u2";
	struct ms_dpkglog_line ln;
	char name_129[300], long_line[MS_DPKGLOG_LINE_MAX + 64];

	(void)state;
	assert_int_equal(ms_dpkglog_parse_line(up, strlen(up), &ln), MS_DPKGLOG_UPGRADE);
	assert_true(ln.stamp == 20261203100007ull);
	assert_int_equal(ln.pkg.len, 7);
	assert_memory_equal(ln.pkg.at, "libssl3", 7);
	assert_int_equal(ln.arch.len, 5);
	assert_memory_equal(ln.arch.at, "amd64", 5);
	assert_int_equal(ln.old_version.len, strlen("3.0.19-1~deb12u1"));
	assert_memory_equal(ln.old_version.at, "3.0.19-1~deb12u1", ln.old_version.len);
	assert_memory_equal(ln.new_version.at, "3.0.22-1~deb12u2", ln.new_version.len);

	expect_parse("2026-12-03 10:00:00 remove libfoo:amd64 1.2-1 <none>", MS_DPKGLOG_REMOVE);
	expect_parse("2026-12-03 10:00:00 purge libfoo:amd64 1.2-1 <none>", MS_DPKGLOG_PURGE);
	/* The architecture after the last colon, as an epoch has colons too. */
	expect_parse("2026-12-03 10:00:00 upgrade a:b:i386 1:2.0 1:2.1", MS_DPKGLOG_UPGRADE);
	expect_parse("2026-12-03 10:00:00 status installed libssl3:amd64 3.0.22-1~deb12u2", MS_DPKGLOG_STATUS);
	expect_parse("2026-12-03 10:00:00 status installed libssl3:amd64", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 install libfoo:amd64 <none> 1.0", MS_DPKGLOG_OTHER);
	expect_parse("2026-12-03 10:00:00 startup archives unpack", MS_DPKGLOG_OTHER);
	expect_parse("2026-12-03 10:00:00 trigproc man-db:amd64 2.11.2-2 <none>", MS_DPKGLOG_OTHER);

	/* Not dates, not fields. */
	expect_parse("", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-13-03 10:00:00 upgrade a:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-00 10:00:00 upgrade a:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 24:00:00 upgrade a:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026/12/03 10:00:00 upgrade a:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 1a:00:00 upgrade a:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1 2 3", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1  2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1 2 ", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade noarch 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade :amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a: 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1 2\x1b[31m", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a\tb:amd64 1 2", MS_DPKGLOG_MALFORMED);
	expect_parse("2026-12-03 10:00:00 upgrade a:amd64 1 \xc3\xa9", MS_DPKGLOG_MALFORMED);
	/* A name longer than struct ms_pkg holds. */
	snprintf(name_129, sizeof(name_129), "2026-12-03 10:00:00 upgrade %0128d:amd64 1 2", 7);
	expect_parse(name_129, MS_DPKGLOG_MALFORMED);
	snprintf(name_129, sizeof(name_129), "2026-12-03 10:00:00 upgrade %0127d:amd64 1 2", 7);
	expect_parse(name_129, MS_DPKGLOG_UPGRADE);
	/* A line over the cap, whatever it holds. */
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	memcpy(long_line, "2026-12-03 10:00:00 upgrade a:amd64 1 ", 38);
	expect_parse(long_line, MS_DPKGLOG_MALFORMED);

	assert_true(ms_dpkglog_stamp(0) != 0);
}

/* A log line at t (seconds since the epoch, written in local time as dpkg does). */
static void add_line(char **text, time_t t, const char *rest)
{
	char stamp[32], *joined;
	struct tm tm;

	assert_non_null(localtime_r(&t, &tm));
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	assert_true(asprintf(&joined, "%s%s %s\n", *text ? *text : "", stamp, rest) > 0);
	free(*text);
	*text = joined;
}

static void write_log(const char *dir, const char *name, const char *text)
{
	char *path = tu_join(dir, name);

	assert_int_equal(tu_spit(path, text ? text : ""), 0);
	free(path);
}

/* A log whose first line is before the start, so it reaches back far enough. */
static char *log_from_before(void)
{
	char *text = NULL;

	add_line(&text, start - 3600, "startup archives unpack");
	return text;
}

static struct ms_pkg pkg(const char *name, const char *arch, const char *version)
{
	struct ms_pkg p = { .found = true, .source = MS_PKG_SOURCE_DPKG };

	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.arch, sizeof(p.arch), "%s", arch);
	snprintf(p.version, sizeof(p.version), "%s", version);
	return p;
}

/* The answer for one package, and the read's statistics. */
static struct ms_pkg ask(const char *dir, struct ms_pkg p, struct ms_dpkglog_stats *stats)
{
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = geteuid() };
	struct ms_dpkglog_stats local;
	struct ms_error err = { 0 };

	assert_int_equal(ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, stats ? stats : &local, &err), 0);
	return p;
}

static void expect_known(const char *dir, struct ms_pkg p, const char *running)
{
	struct ms_pkg got = ask(dir, p, NULL);

	if (got.running_state != MS_PKG_RUNNING_KNOWN)
		fail_msg("%s: running unknown, wanted %s", p.name, running);
	assert_string_equal(got.running, running);
}

static void expect_unknown(const char *dir, struct ms_pkg p)
{
	struct ms_pkg got = ask(dir, p, NULL);

	if (got.running_state != MS_PKG_RUNNING_UNKNOWN)
		fail_msg("%s: running %s, wanted unknown", p.name, got.running);
	assert_true(got.running_why[0] != '\0');
}

/* Unknown, with these candidates (NULL: none) and a reason holding why. */
static void expect_candidates(const char *dir, struct ms_pkg p, struct ms_copy c, const char *first,
			      const char *second, const char *why)
{
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = geteuid() };
	struct ms_error err = { 0 };

	assert_int_equal(ms_dpkglog_running(&opts, &p, &c, 1, NULL, &err), 0);
	if (p.running_state != MS_PKG_RUNNING_UNKNOWN)
		fail_msg("%s: running %s, wanted unknown", p.name, p.running);
	assert_string_equal(p.running, first ? first : "");
	assert_string_equal(p.running_alt, second ? second : "");
	if (!strstr(p.running_why, why))
		fail_msg("%s: reason \"%s\" lacks \"%s\"", p.name, p.running_why, why);
}

/* Known by the copy's own unlink time, whatever the start says. */
static void expect_dated(const char *dir, struct ms_pkg p, time_t unlinked, const char *running)
{
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = geteuid() };
	struct ms_copy c = { .start = start, .unlinked = { unlinked, 500000000 } };
	struct ms_error err = { 0 };

	assert_int_equal(ms_dpkglog_running(&opts, &p, &c, 1, NULL, &err), 0);
	if (p.running_state != MS_PKG_RUNNING_KNOWN)
		fail_msg("%s: unknown (%s), wanted %s", p.name, p.running_why, running);
	assert_string_equal(p.running, running);
}

/* The lines dpkg writes for an upgrade of name from old to new at t, done a second later. */
static void add_upgrade(char **text, time_t t, const char *name, const char *old, const char *new)
{
	char *line;

	assert_true(asprintf(&line, "upgrade %s:amd64 %s %s", name, old, new) > 0);
	add_line(text, t, line);
	free(line);
	assert_true(asprintf(&line, "status half-installed %s:amd64 %s", name, old) > 0);
	add_line(text, t, line);
	free(line);
	assert_true(asprintf(&line, "status unpacked %s:amd64 %s", name, new) > 0);
	add_line(text, t + 1, line);
	free(line);
	assert_true(asprintf(&line, "status installed %s:amd64 %s", name, new) > 0);
	add_line(text, t + 1, line);
	free(line);
}

/*
 * The copy's unlink time names the upgrade that replaced it: through
 * upgrades, a reinstall and a downgrade, for a copy mapped before them all
 * or late (dlopen), whatever the process's start.
 */
static void test_by_inode(void **state)
{
	const char *dir = *state;
	char *text = log_from_before();

	add_upgrade(&text, start + 100, "hist", "1.0", "2.0");
	add_upgrade(&text, start + 200, "hist", "2.0", "3.0");
	add_upgrade(&text, start + 300, "hist", "3.0", "3.0");
	add_upgrade(&text, start + 400, "hist", "3.0", "1.0");
	/* Two upgrades in one second: the unlink time cannot tell them apart. */
	add_upgrade(&text, start + 500, "quick", "1.0", "2.0");
	add_upgrade(&text, start + 500, "quick", "2.0", "3.0");
	/* A removal: its window closes at config-files. */
	add_line(&text, start + 600, "remove rm:amd64 4.0 <none>");
	add_line(&text, start + 600, "status half-installed rm:amd64 4.0");
	add_line(&text, start + 603, "status config-files rm:amd64 4.0");
	/*
	 * A slow reinstall: "half-configured" and "unpacked" of the same
	 * version come before its files change; the backup links go after the
	 * closing "unpacked", before the next line.
	 */
	add_line(&text, start + 700, "upgrade re:amd64 5.0 5.0");
	add_line(&text, start + 700, "status half-configured re:amd64 5.0");
	add_line(&text, start + 700, "status unpacked re:amd64 5.0");
	add_line(&text, start + 700, "status half-installed re:amd64 5.0");
	add_line(&text, start + 703, "status unpacked re:amd64 5.0");
	add_line(&text, start + 706, "startup packages configure");
	write_log(dir, "dpkg.log", text);
	free(text);

	expect_dated(dir, pkg("hist", "", "1.0"), start + 100, "1.0");
	expect_dated(dir, pkg("hist", "", "1.0"), start + 101, "1.0"); /* inside the window */
	expect_dated(dir, pkg("hist", "", "1.0"), start + 200, "2.0"); /* started at 1.0, mapped 2.0 late */
	expect_dated(dir, pkg("hist", "", "1.0"), start + 301, "3.0");
	expect_dated(dir, pkg("hist", "", "1.0"), start + 400, "3.0");
	/* A second early (the log's whole seconds): still that upgrade's. */
	expect_dated(dir, pkg("hist", "", "1.0"), start + 99, "1.0");
	expect_dated(dir, pkg("rm", "", ""), start + 602, "4.0");
	expect_dated(dir, pkg("re", "", "5.0"), start + 702, "5.0");
	expect_dated(dir, pkg("re", "", "5.0"), start + 706, "5.0");
	expect_candidates(dir, pkg("quick", "", "3.0"),
			  (struct ms_copy){ .start = start, .unlinked = { start + 500, 0 } }, "1.0", "2.0",
			  "in that second");
	/* Replaced by hand between upgrades: no entry explains it. */
	expect_candidates(dir, pkg("hist", "", "1.0"),
			  (struct ms_copy){ .start = start, .unlinked = { start + 250, 0 } }, NULL, NULL,
			  "no upgrade or removal of hist (dpkg had installed 3.0)");
	/* The log must reach back to the unlink time. */
	expect_candidates(dir, pkg("hist", "", "1.0"),
			  (struct ms_copy){ .start = start, .unlinked = { start - 7200, 0 } }, NULL, NULL,
			  "before the oldest line");
	/* Without the unlink time (not root), the start: several upgrades since, two candidates at most. */
	expect_candidates(dir, pkg("quick", "", "3.0"), (struct ms_copy){ .start = start }, "1.0", "2.0",
			  "only root");
	expect_candidates(dir, pkg("hist", "", "1.0"), (struct ms_copy){ .start = start }, NULL, NULL, "only root");
}

static void test_rule(void **state)
{
	const char *dir = *state;
	char *text = log_from_before();

	/* Before the start: the process mapped what that upgrade installed. */
	add_line(&text, start - 600, "upgrade before:amd64 0.9 1.0");
	/* One upgrade after it. */
	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	/* Two from different versions: it could have mapped either. */
	add_line(&text, start + 60, "upgrade two:amd64 1.0 2.0");
	add_line(&text, start + 120, "upgrade two:amd64 2.0 3.0");
	/* Down and up again: the first and last start from the same version, not the one between. */
	add_line(&text, start + 60, "upgrade zigzag:amd64 1.0 2.0");
	add_line(&text, start + 70, "upgrade zigzag:amd64 2.0 1.0");
	add_line(&text, start + 80, "upgrade zigzag:amd64 1.0 3.0");
	/* A chain from the same version: reinstalls, then an upgrade. */
	add_line(&text, start + 60, "upgrade chain:amd64 1.0 1.0");
	add_line(&text, start + 120, "upgrade chain:amd64 1.0 2.0");
	/* A reinstall alone: the running version is the installed one. */
	add_line(&text, start + 60, "upgrade again:amd64 2.0 2.0");
	/* A removal, then installed again (an install replaces nothing). */
	add_line(&text, start + 60, "remove gone:amd64 1.5 <none>");
	add_line(&text, start + 61, "purge gone:amd64 1.5 <none>");
	add_line(&text, start + 120, "install gone:amd64 <none> 1.6");
	/* Another architecture's copy, and an arch-all one. */
	add_line(&text, start + 60, "upgrade multi:i386 1.0 2.0");
	add_line(&text, start + 60, "upgrade allarch:all 4.0 5.0");
	/* The log and the database disagree: the last upgrade went elsewhere. */
	add_line(&text, start + 60, "upgrade odd:amd64 1.0 2.0");
	/* Within the slack before the start: counted as after it. */
	add_line(&text, start - 1, "upgrade edge:amd64 7.0 8.0");
	write_log(dir, "dpkg.log", text);
	free(text);

	expect_unknown(dir, pkg("before", "", "1.0"));
	expect_known(dir, pkg("one", "", "2.0"), "1.0");
	expect_unknown(dir, pkg("two", "", "3.0"));
	expect_unknown(dir, pkg("zigzag", "", "3.0"));
	expect_known(dir, pkg("chain", "", "2.0"), "1.0");
	expect_known(dir, pkg("again", "", "2.0"), "2.0");
	expect_known(dir, pkg("gone", "", "1.6"), "1.5");
	expect_unknown(dir, pkg("multi", "amd64", "2.0"));
	expect_known(dir, pkg("multi", "i386", "2.0"), "1.0");
	expect_known(dir, pkg("multi", "", "2.0"), "1.0");
	expect_known(dir, pkg("allarch", "amd64", "5.0"), "4.0");
	expect_unknown(dir, pkg("odd", "", "3.0"));
	expect_known(dir, pkg("edge", "", "8.0"), "7.0");
	expect_unknown(dir, pkg("never-logged", "", "1.0"));
}

/* Only what dpkg owns is asked; the rest keeps its state. */
static void test_only_dpkg_answers(void **state)
{
	const char *dir = *state;
	char *text = log_from_before();
	struct ms_pkg p[3] = { pkg("one", "", "2.0"), pkg("one", "", "2.0"), pkg("one", "", "2.0") };
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = geteuid() };
	struct ms_copy starts[3] = { { .start = start }, { .start = start }, { .start = start } };
	struct ms_error err = { 0 };

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	write_log(dir, "dpkg.log", text);
	free(text);
	p[1].source = MS_PKG_SOURCE_RPM;
	p[2].found = false;
	assert_int_equal(ms_dpkglog_running(&opts, p, starts, 3, NULL, &err), 0);
	assert_int_equal(p[0].running_state, MS_PKG_RUNNING_KNOWN);
	assert_int_equal(p[1].running_state, MS_PKG_RUNNING_INSTALLED);
	assert_int_equal(p[2].running_state, MS_PKG_RUNNING_INSTALLED);
}

/* The last line without its newline (dpkg still writing it) counts. */
static void test_last_line_unfinished(void **state)
{
	const char *dir = *state;
	char *text = log_from_before();

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	text[strlen(text) - 1] = '\0';
	write_log(dir, "dpkg.log", text);
	free(text);
	expect_known(dir, pkg("one", "", "2.0"), "1.0");
}

/* The log must reach back before the start, or an upgrade could be missing. */
static void test_log_too_young(void **state)
{
	const char *dir = *state;
	char *text = NULL;

	add_line(&text, start + 30, "startup archives unpack");
	add_line(&text, start + 60, "upgrade one:amd64 2.0 3.0");
	write_log(dir, "dpkg.log", text);
	free(text);
	expect_unknown(dir, pkg("one", "", "3.0"));
	/* No log at all: unknown, not an error. */
	write_log(dir, "dpkg.log", "");
	expect_unknown(dir, pkg("one", "", "3.0"));
}

static void gzip_file(const char *dir, const char *name)
{
	char *path = tu_join(dir, name), *cmd;

	assert_true(asprintf(&cmd, "gzip -n -9 '%s'", path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
}

/* Rotated files are read newest first; a gzip one too; a hole ends the log. */
static void test_rotated(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_stats stats;
	char *newest = NULL, *middle = NULL, *oldest = log_from_before();
	char *path;

	add_line(&oldest, start + 10, "upgrade one:amd64 1.0 2.0");
	add_line(&oldest, start + 20, "upgrade two:amd64 1.0 2.0");
	add_line(&middle, start + 100, "startup archives unpack");
	add_line(&middle, start + 110, "upgrade two:amd64 2.0 3.0");
	add_line(&newest, start + 200, "status installed one:amd64 2.0");
	write_log(dir, "dpkg.log", newest);
	write_log(dir, "dpkg.log.1", middle);
	write_log(dir, "dpkg.log.2", oldest);
	gzip_file(dir, "dpkg.log.2");
	free(newest);
	free(middle);
	free(oldest);

#ifdef HAVE_ZLIB
	expect_known(dir, pkg("one", "", "2.0"), "1.0");
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 3);
	assert_int_equal(stats.stopped.code, 0);
#endif
	/* Two upgrades across the files, from different versions. */
	expect_unknown(dir, pkg("two", "", "3.0"));

	/* Without .1 the log has a hole: it ends at dpkg.log, after the start. */
	path = tu_join(dir, "dpkg.log.1");
	assert_int_equal(unlink(path), 0);
	free(path);
	expect_unknown(dir, pkg("one", "", "2.0"));
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 1);

	/* A corrupt gzip file ends the log too, with a reason. */
	write_log(dir, "dpkg.log.1", "");
	path = tu_join(dir, "dpkg.log.2.gz");
	assert_int_equal(truncate(path, 30), 0);
	free(path);
	expect_unknown(dir, pkg("one", "", "2.0"));
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 2);
	assert_true(stats.stopped.code < 0);
	assert_non_null(strstr(stats.stopped.msg, "dpkg.log.2.gz"));
}

/* Early stop: once a file reaches back before every start, older ones are not read. */
static void test_stops_when_far_enough(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_stats stats;
	char *text = log_from_before();

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	write_log(dir, "dpkg.log", text);
	write_log(dir, "dpkg.log.1", text);
	free(text);
	expect_known(dir, pkg("one", "", "2.0"), "1.0");
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 1);
}

/* Malformed lines and one over the cap are skipped; the lines around them count. */
static void test_malformed_and_long_lines(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_stats stats;
	char *text = log_from_before(), *big, *joined;
	struct ms_pkg got;

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	/* An upgrade line inside a line over the cap: not taken. */
	big = malloc(3 * MS_DPKGLOG_LINE_MAX);
	assert_non_null(big);
	memset(big, 'x', 3 * MS_DPKGLOG_LINE_MAX - 1);
	big[3 * MS_DPKGLOG_LINE_MAX - 1] = '\0';
	memcpy(big, "upgrade one:amd64 0.5 1.0 ", 26);
	add_line(&text, start + 70, big);
	free(big);
	assert_true(asprintf(&joined, "%sgarbage\n\x1b]0;title\x07\n2026-99-99 upgrade\n", text) > 0);
	free(text);
	text = joined;
	add_line(&text, start + 80, "upgrade multi:amd64 9.0 9.1");
	write_log(dir, "dpkg.log", text);
	free(text);

	got = ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(got.running_state, MS_PKG_RUNNING_KNOWN);
	assert_string_equal(got.running, "1.0");
	assert_int_equal(stats.long_lines, 1);
	assert_int_equal(stats.malformed, 4);
	expect_known(dir, pkg("multi", "", "9.1"), "9.0");
}

/* A file larger than its cap (sparse: no disk) is refused whole, quickly. */
static void test_file_over_cap(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_stats stats;
	char *text = log_from_before(), *path;

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	write_log(dir, "dpkg.log", text);
	free(text);
	path = tu_join(dir, "dpkg.log");
	assert_int_equal(truncate(path, (off_t)MS_DPKGLOG_FILE_MAX + 4096), 0);
	free(path);
	expect_unknown(dir, pkg("one", "", "2.0"));
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 0);
	assert_int_equal(stats.stopped.code, MS_ERR_LIMIT);
}

#ifdef HAVE_ZLIB
/* A small gzip file that inflates past the cap is cut off there, and ends the log. */
static void test_gzip_bomb(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_stats stats;
	char *text = NULL, *cmd;

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	write_log(dir, "dpkg.log", text);
	free(text);
	assert_true(asprintf(&cmd, "head -c %u /dev/zero | gzip -n -9 > '%s/dpkg.log.1.gz'",
			     MS_DPKGLOG_FILE_MAX + (1u << 20), dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	expect_unknown(dir, pkg("one", "", "2.0"));
	ask(dir, pkg("one", "", "2.0"), &stats);
	assert_int_equal(stats.files, 1);
	assert_int_equal(stats.stopped.code, MS_ERR_LIMIT);
	assert_non_null(strstr(stats.stopped.msg, "dpkg.log.1.gz"));
}
#endif

/* Files that are not the owner's, or writable by others, are not trusted. */
static void test_owner_and_mode(void **state)
{
	const char *dir = *state;
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = geteuid() + 1 };
	struct ms_dpkglog_stats stats;
	struct ms_error err = { 0 };
	char *text = log_from_before(), *path;
	struct ms_pkg p = pkg("one", "", "2.0");

	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	write_log(dir, "dpkg.log", text);
	free(text);
	assert_int_equal(ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err), 0);
	assert_int_equal(p.running_state, MS_PKG_RUNNING_UNKNOWN);
	assert_int_equal(stats.stopped.code, MS_ERR_NOACCESS);
	expect_known(dir, pkg("one", "", "2.0"), "1.0");
	path = tu_join(dir, "dpkg.log");
	assert_int_equal(chmod(path, 0664), 0);
	expect_unknown(dir, pkg("one", "", "2.0"));
	assert_int_equal(chmod(path, 0644), 0);
	free(path);
}

/*
 * As nobody, in a directory of nobody's (the owner seam set to nobody, so
 * only the type and size checks stand between the file and the reader):
 * a FIFO, a symlink to a good log, a huge sparse file.  Each is refused or
 * bounded, and nothing hangs: SIGALRM ends a child that blocks.
 */
static int attack_as_nobody(const char *dir)
{
	struct ms_dpkglog_opts opts = { .dir = dir, .owner_uid = 65534 };
	struct ms_dpkglog_stats stats;
	struct ms_error err = { 0 };
	char *text = log_from_before(), *log, *good;
	struct ms_pkg p;
	int fd;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	alarm(20);
	log = tu_join(dir, "dpkg.log");
	good = tu_join(dir, "good.log");
	add_line(&text, start + 60, "upgrade one:amd64 1.0 2.0");
	if (tu_spit(good, text) < 0 || chmod(good, 0644) < 0)
		return 11;
	free(text);

	if (mkfifo(log, 0644) < 0)
		return 12;
	p = pkg("one", "", "2.0");
	if (ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err) < 0 ||
	    p.running_state != MS_PKG_RUNNING_UNKNOWN || stats.stopped.code != MS_ERR_INVAL ||
	    !strstr(stats.stopped.msg, "FIFO"))
		return 13;
	unlink(log);

	if (symlink("good.log", log) < 0)
		return 14;
	p = pkg("one", "", "2.0");
	if (ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err) < 0 ||
	    p.running_state != MS_PKG_RUNNING_UNKNOWN || stats.stopped.sys_errno != ELOOP)
		return 15;
	unlink(log);

	/* The good log itself, under its name: the seam does let it through. */
	if (rename(good, log) < 0)
		return 16;
	p = pkg("one", "", "2.0");
	if (ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err) < 0 ||
	    p.running_state != MS_PKG_RUNNING_KNOWN)
		return 17;

	/* Huge and sparse: refused at the cap, not read to its end. */
	fd = open(log, O_WRONLY | O_TRUNC);
	if (fd < 0 || ftruncate(fd, (off_t)1 << 40) < 0 || close(fd) < 0)
		return 18;
	p = pkg("one", "", "2.0");
	if (ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err) < 0 ||
	    p.running_state != MS_PKG_RUNNING_UNKNOWN || stats.stopped.code != MS_ERR_LIMIT ||
	    stats.bytes != 0)
		return 19;
	/* And nobody's own file is not trusted as root's. */
	opts.owner_uid = 0;
	fd = open(log, O_WRONLY | O_TRUNC);
	if (fd < 0 || close(fd) < 0)
		return 20;
	if (ms_dpkglog_running(&opts, &p, &(struct ms_copy){ .start = start }, 1, &stats, &err) < 0 || stats.stopped.code != MS_ERR_NOACCESS)
		return 21;
	free(log);
	free(good);
	return 0;
}

static void test_attack_as_nobody(void **state)
{
	(void)state;
	tu_nobody_steps(attack_as_nobody);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test_setup_teardown(test_rule, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_by_inode, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_only_dpkg_answers, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_last_line_unfinished, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_log_too_young, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotated, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_stops_when_far_enough, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_malformed_and_long_lines, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_file_over_cap, tu_tmpdir_setup, tu_tmpdir_teardown),
#ifdef HAVE_ZLIB
		cmocka_unit_test_setup_teardown(test_gzip_bomb, tu_tmpdir_setup, tu_tmpdir_teardown),
#endif
		cmocka_unit_test_setup_teardown(test_owner_and_mode, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test(test_attack_as_nobody),
	};

	start = time(NULL) - 3600;
	return cmocka_run_group_tests_name("dpkglog", tests, NULL, NULL);
}
