/*
 * The running copy's version from dnf's and yum's logs
 * (src/core/pkg/rpmlog.h), on logs the tests write into their own
 * directory (the opts dir seam; the owner seam set to the test's own uid,
 * so the rules run as on root's /var/log): the line and NEVRA parsers,
 * the rule by the copy's unlink time (upgrades, a reinstall, a downgrade,
 * an erase, two upgrades in one second, no entry, a log too young), the
 * rule by the holders' start, yum's yearless lines, rotated, gzip and
 * dated files, the bounds (caps, a gzip bomb, the owner and mode), and, as
 * nobody, a FIFO, a symlink and a huge sparse file where the log belongs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/pkg/rpmlog.h"
#include "core/pkg/rpmlog_parse.h"
#include "testutil.h"

/* Every history starts at T0, a fixed hour ago. */
static time_t t0;

static enum ms_rpmlog_action dnf_action(const char *line)
{
	struct ms_rpmlog_line ln;

	return ms_rpmlog_parse_dnf(line, strlen(line), &ln);
}

static enum ms_rpmlog_action yum_action(const char *line)
{
	struct ms_rpmlog_line ln;

	return ms_rpmlog_parse_yum(line, strlen(line), &ln);
}

static void expect_nevra(const char *s, const char *name, const char *evr, const char *arch)
{
	struct ms_rpmlog_nevra n;
	char got[MS_RPMLOG_VERSION_MAX + 1];

	if (!ms_rpmlog_parse_nevra(s, strlen(s), &n))
		fail_msg("\"%s\" is no NEVRA", s);
	ms_rpmlog_evr(&n, got, sizeof(got));
	assert_int_equal(n.name.len, strlen(name));
	assert_memory_equal(n.name.at, name, n.name.len);
	assert_string_equal(got, evr);
	assert_int_equal(n.arch.len, strlen(arch));
	assert_memory_equal(n.arch.at, arch, n.arch.len);
}

static void test_parse(void **state)
{
	static const char up[] = "2026-12-05T23:21:54+0100 SUBDEBUG Upgrade: foo-libs-2.0-1.fc40.x86_64";
	struct ms_rpmlog_line ln;
	struct ms_rpmlog_nevra n;
	char big[MS_RPMLOG_LINE_MAX + 64], name[300];

	(void)state;
	assert_int_equal(ms_rpmlog_parse_dnf(up, strlen(up), &ln), MS_RPMLOG_UPGRADE);
	/* 2026-12-05 22:21:54 UTC, counted by hand: 20792 days since 1970. */
	assert_true(ln.when == (time_t)20792 * 86400 + 22 * 3600 + 21 * 60 + 54);
	assert_int_equal(dnf_action("2026-12-05T22:21:54Z SUBDEBUG Upgrade: a-1-1.noarch"), MS_RPMLOG_UPGRADE);
	ms_rpmlog_parse_dnf("2026-12-05T22:21:54Z SUBDEBUG Upgrade: a-1-1.noarch", 50, &ln);
	assert_true(ln.when == (time_t)20792 * 86400 + 22 * 3600 + 21 * 60 + 54);
	ms_rpmlog_parse_dnf("2024-02-29T00:00:00-0530 INFO x", 31, &ln);
	assert_true(ln.when == (time_t)ms_rpmlog_days(2024, 2, 29) * 86400 + 5 * 3600 + 30 * 60);
	assert_true(ms_rpmlog_days(1970, 1, 1) == 0 && ms_rpmlog_days(2000, 3, 1) == 11017);

	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgraded: foo-1.0-1.x86_64"), MS_RPMLOG_UPGRADED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Installed: foo-1.0-1.x86_64"), MS_RPMLOG_INSTALL);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Obsolete: foo-1.0-1.x86_64"), MS_RPMLOG_INSTALL);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Erase: foo-1.0-1.x86_64"), MS_RPMLOG_ERASE);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Obsoleted: foo-1.0-1.x86_64"), MS_RPMLOG_OBSOLETED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Downgrade: foo-1.0-1.x86_64"), MS_RPMLOG_DOWNGRADE);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Downgraded: foo-2-1.x86_64"), MS_RPMLOG_DOWNGRADED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Reinstall: foo-2-1.x86_64"), MS_RPMLOG_REINSTALL);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Reinstalled: foo-2-1.x86_64"), MS_RPMLOG_REINSTALLED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 INFO --- logging initialized ---"), MS_RPMLOG_MARK);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 INFO Upgrade: foo-2-1.x86_64"), MS_RPMLOG_OTHER);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Cleanup: foo-2-1.x86_64"), MS_RPMLOG_OTHER);
	/* Not times, not packages. */
	assert_int_equal(dnf_action(""), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("warning: scriptlet said so"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("Dec 05 23:21:54 SUBDEBUG Upgrade: a-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-02-29T23:21:54+0000 SUBDEBUG Upgrade: a-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T24:21:54+0000 SUBDEBUG Upgrade: a-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+2400 SUBDEBUG Upgrade: a-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05 23:21:54+0000 SUBDEBUG Upgrade: a-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgrade: a-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgrade: a-1-1"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgrade: a-1-1.x "), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgrade: a\x1b[31m-1-1.x"), MS_RPMLOG_MALFORMED);
	assert_int_equal(dnf_action("2026-12-05T23:21:54+0000 SUBDEBUG Upgrade: 1:a-2:1-1.x"), MS_RPMLOG_MALFORMED);

	assert_int_equal(yum_action("Dec 05 23:21:54 Updated: foo-2.0-1.el7.x86_64"), MS_RPMLOG_UPGRADE);
	assert_int_equal(yum_action("Dec 05 23:21:54 Installed: foo-2.0-1.el7.x86_64"), MS_RPMLOG_INSTALL);
	assert_int_equal(yum_action("Dec 05 23:21:54 Erased: 1:foo-2.0-1.el7.x86_64"), MS_RPMLOG_ERASE);
	assert_int_equal(yum_action("Feb 29 23:21:54 Obsoleted: foo-2.0-1.el7.x86_64"), MS_RPMLOG_OBSOLETED);
	assert_int_equal(ms_rpmlog_parse_yum("Dec 05 23:21:54 Erased: foo", 27, &ln), MS_RPMLOG_ERASE);
	assert_true(ln.name_only && ln.nevra.name.len == 3 && ln.yum_stamp == 1205232154u);
	assert_int_equal(yum_action("Dec 05 23:21:54 Erased: fo o"), MS_RPMLOG_MALFORMED);
	assert_int_equal(yum_action("Dez 05 23:21:54 Updated: foo-2.0-1.el7.x86_64"), MS_RPMLOG_MALFORMED);
	assert_int_equal(yum_action("Feb 30 23:21:54 Updated: foo-2.0-1.el7.x86_64"), MS_RPMLOG_MALFORMED);
	assert_int_equal(yum_action("Dec 05 23:21:54 Updated: foo"), MS_RPMLOG_MALFORMED);
	assert_int_equal(yum_action("Dec 05 23:21:54 Cleanup: foo-2.0-1.el7.x86_64"), MS_RPMLOG_OTHER);

	/* Both forms of the epoch; a release with dots; the version field as rpm's database writes it. */
	expect_nevra("openssl-libs-1:3.0.7-27.el9.x86_64", "openssl-libs", "1:3.0.7-27.el9", "x86_64");
	expect_nevra("1:openssl-libs-1.0.1e-51.el7_2.5.x86_64", "openssl-libs", "1:1.0.1e-51.el7_2.5", "x86_64");
	expect_nevra("a-1-1.noarch", "a", "1-1", "noarch");
	assert_false(ms_rpmlog_parse_nevra("1:a-1:1-1.x", 11, &n));
	assert_false(ms_rpmlog_parse_nevra("-1-1.x", 6, &n));
	assert_false(ms_rpmlog_parse_nevra("a-1-1.", 6, &n));
	assert_false(ms_rpmlog_parse_nevra("a-1-1.x-y", 9, &n));
	/* A name longer than struct ms_pkg holds; the longest it holds. */
	snprintf(name, sizeof(name), "%0128d-1-1.x", 7);
	assert_false(ms_rpmlog_parse_nevra(name, strlen(name), &n));
	snprintf(name, sizeof(name), "%0127d-1-1.x", 7);
	assert_true(ms_rpmlog_parse_nevra(name, strlen(name), &n));
	/* A version over version[128] once written EPOCH:VERSION-RELEASE. */
	snprintf(name, sizeof(name), "a-9:%0125d-1.x", 7);
	assert_false(ms_rpmlog_parse_nevra(name, strlen(name), &n));
	/* A line over the cap, whatever it holds. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, up, strlen(up));
	assert_int_equal(dnf_action(big), MS_RPMLOG_MALFORMED);
}

/* A log text being written: dnf's lines at times given as seconds since the epoch. */
struct logtext {
	char *text;
};

static void dnf_line(struct logtext *l, time_t t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void dnf_line(struct logtext *l, time_t t, const char *fmt, ...)
{
	char when[40], *msg, *joined;
	struct tm tm;
	va_list ap;

	/* The zone's offset as dnf writes it: the reader must turn it into the same second. */
	assert_non_null(localtime_r(&t, &tm));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm);
	va_start(ap, fmt);
	assert_true(vasprintf(&msg, fmt, ap) > 0);
	va_end(ap);
	assert_true(asprintf(&joined, "%s%s %s\n", l->text ? l->text : "", when, msg) > 0);
	free(msg);
	free(l->text);
	l->text = joined;
}

/* A run of dnf from before T0, so the log reaches back far enough. */
static struct logtext dnf_log(void)
{
	struct logtext l = { 0 };

	dnf_line(&l, t0 - 3600, "INFO --- logging initialized ---");
	dnf_line(&l, t0 - 3600, "SUBDEBUG Installed: hist-1.0-1.x86_64");
	return l;
}

/* What dnf writes for a transaction that upgrades (verb "Upgrade") name from old to new at t. */
static void dnf_swap(struct logtext *l, time_t t, const char *verb, const char *name, const char *old,
		     const char *new)
{
	dnf_line(l, t, "INFO --- logging initialized ---");
	dnf_line(l, t, "SUBDEBUG %s: %s-%s.x86_64", verb, name, new);
	dnf_line(l, t + 1, "SUBDEBUG %sd: %s-%s.x86_64", verb, name, old);
}

static void put(const char *dir, const char *name, const struct logtext *l)
{
	char *path = tu_join(dir, name);

	assert_int_equal(tu_spit(path, l->text ? l->text : ""), 0);
	assert_int_equal(chmod(path, 0644), 0);
	free(path);
}

static struct ms_pkg rpm_pkg(const char *name, const char *version)
{
	struct ms_pkg p = { .found = true, .source = MS_PKG_SOURCE_RPM };

	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.arch, sizeof(p.arch), "x86_64");
	snprintf(p.version, sizeof(p.version), "%s", version);
	return p;
}

/* The answer for p's copy c (unlinked at c.unlinked, or started at c.start), with the read's stats. */
static struct ms_pkg running(const char *dir, struct ms_pkg p, struct ms_copy c, struct ms_rpmlog_stats *stats)
{
	struct ms_rpmlog_opts opts = { .dir = dir, .owner_uid = geteuid() };
	struct ms_rpmlog_stats mine;
	struct ms_error err = { 0 };

	assert_int_equal(ms_rpmlog_running(&opts, &p, &c, 1, stats ? stats : &mine, &err), 0);
	return p;
}

static struct ms_copy unlinked_at(time_t t)
{
	return (struct ms_copy){ .start = t0 - 7200, .unlinked = { t, 250000000 } };
}

static void expect_running(const char *dir, const char *name, const char *installed, struct ms_copy c,
			   const char *want)
{
	struct ms_pkg got = running(dir, rpm_pkg(name, installed), c, NULL);

	if (got.running_state != MS_PKG_RUNNING_KNOWN)
		fail_msg("%s: unknown (%s), wanted %s", name, got.running_why, want);
	assert_string_equal(got.running, want);
}

/* Unknown, the reason holding why, with these candidates ("" none). */
static void expect_not_known(const char *dir, const char *name, const char *installed, struct ms_copy c,
			     const char *why, const char *first, const char *second)
{
	struct ms_pkg got = running(dir, rpm_pkg(name, installed), c, NULL);

	if (got.running_state != MS_PKG_RUNNING_UNKNOWN)
		fail_msg("%s: running %s, wanted unknown", name, got.running);
	if (!strstr(got.running_why, why))
		fail_msg("%s: reason \"%s\" lacks \"%s\"", name, got.running_why, why);
	assert_string_equal(got.running, first);
	assert_string_equal(got.running_alt, second);
}

/*
 * By the copy's own unlink time, through dnf's upgrades, a reinstall and a
 * downgrade: each copy is named by the element whose window holds it,
 * whatever its holders' start.
 */
static void test_by_inode(void **state)
{
	const char *dir = *state;
	struct logtext l = dnf_log();

	dnf_swap(&l, t0 + 100, "Upgrade", "hist", "1.0-1", "2.0-1");
	dnf_swap(&l, t0 + 200, "Upgrade", "hist", "2.0-1", "3.0-1");
	dnf_swap(&l, t0 + 300, "Reinstall", "hist", "3.0-1", "3.0-1");
	dnf_swap(&l, t0 + 400, "Downgrade", "hist", "3.0-1", "1.0-1");
	/* Two transactions in one second. */
	dnf_line(&l, t0 + 500, "SUBDEBUG Installed: quick-1.0-1.x86_64");
	dnf_line(&l, t0 + 500, "SUBDEBUG Upgrade: quick-2.0-1.x86_64");
	dnf_line(&l, t0 + 500, "SUBDEBUG Upgraded: quick-1.0-1.x86_64");
	dnf_line(&l, t0 + 500, "SUBDEBUG Upgrade: quick-3.0-1.x86_64");
	dnf_line(&l, t0 + 500, "SUBDEBUG Upgraded: quick-2.0-1.x86_64");
	/* An erase, with an epoch, whose element runs three seconds to the next one. */
	dnf_line(&l, t0 + 600, "SUBDEBUG Erase: gone-2:4.0-1.x86_64");
	dnf_line(&l, t0 + 603, "SUBDEBUG Erase: other-1-1.x86_64");
	put(dir, "dnf.rpm.log", &l);
	free(l.text);

	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 100), "1.0-1");
	/* In the cleanup's window (a file only the old version held). */
	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 101), "1.0-1");
	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 200), "2.0-1");
	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 300), "3.0-1");
	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 400), "3.0-1");
	/* A second late (the element took a little longer than its line says). */
	expect_running(dir, "hist", "1.0-1", unlinked_at(t0 + 202), "2.0-1");
	expect_running(dir, "gone", "0:4.0-1", unlinked_at(t0 + 602), "2:4.0-1");
	expect_not_known(dir, "quick", "3.0-1", unlinked_at(t0 + 500), "two of rpm's upgrades", "1.0-1", "2.0-1");
	/* No entry explains it: replaced by hand. */
	expect_not_known(dir, "hist", "1.0-1", unlinked_at(t0 + 250), "no upgrade or removal of hist", "", "");
	expect_not_known(dir, "hist", "1.0-1", unlinked_at(t0 + 250), "rpm had installed 3.0-1", "", "");
	/* Before the log's first line. */
	expect_not_known(dir, "hist", "1.0-1", unlinked_at(t0 - 7200), "before the oldest line", "", "");
	/* Another package's entries say nothing of this one. */
	expect_not_known(dir, "stranger", "1-1", unlinked_at(t0 + 100), "no upgrade or removal of stranger", "", "");
}

/* Without the unlink time: the holders' start. */
static void test_by_start(void **state)
{
	const char *dir = *state;
	struct logtext l = dnf_log();

	dnf_swap(&l, t0 + 100, "Upgrade", "one", "1.0-1", "2.0-1");
	dnf_swap(&l, t0 + 100, "Upgrade", "two", "1.0-1", "2.0-1");
	dnf_swap(&l, t0 + 200, "Upgrade", "two", "2.0-1", "3.0-1");
	dnf_swap(&l, t0 + 300, "Reinstall", "re", "5-1", "5-1");
	dnf_swap(&l, t0 + 310, "Reinstall", "re", "5-1", "5-1");
	put(dir, "dnf.rpm.log", &l);
	free(l.text);

	expect_running(dir, "one", "2.0-1", (struct ms_copy){ .start = t0 }, "1.0-1");
	expect_running(dir, "re", "5-1", (struct ms_copy){ .start = t0 }, "5-1");
	expect_running(dir, "two", "3.0-1", (struct ms_copy){ .start = t0 + 150 }, "2.0-1");
	expect_not_known(dir, "two", "3.0-1", (struct ms_copy){ .start = t0 }, "more than once", "1.0-1", "2.0-1");
	/* The database says another version than the log put in last. */
	expect_not_known(dir, "one", "9.0-1", (struct ms_copy){ .start = t0 }, "disagree", "", "");
	expect_not_known(dir, "one", "2.0-1", (struct ms_copy){ .start = t0 + 1000 }, "no upgrade or removal", "", "");
	expect_not_known(dir, "one", "2.0-1", (struct ms_copy){ .start = t0 - 7200 }, "do not reach back", "", "");
}

/*
 * yum: a line after each element, no year, no zone; the version an update
 * replaced is the one installed before.  The year comes from the file's
 * mtime, a turn of the year from the months going down.
 */
static void test_yum(void **state)
{
	const char *dir = *state;
	struct tm at = { .tm_year = 2025 - 1900, .tm_mon = 0, .tm_mday = 10, .tm_hour = 12, .tm_isdst = -1 };
	time_t mtime = mktime(&at), upd, dec;
	struct ms_rpmlog_stats stats;
	struct timeval times[2];
	char *path = tu_join(dir, "yum.log");

	at = (struct tm){ .tm_year = 2024 - 1900, .tm_mon = 11, .tm_mday = 30, .tm_hour = 9, .tm_min = 0,
			  .tm_sec = 5, .tm_isdst = -1 };
	dec = mktime(&at);
	at = (struct tm){ .tm_year = 2025 - 1900, .tm_mon = 0, .tm_mday = 9, .tm_hour = 8, .tm_min = 30,
			  .tm_sec = 10, .tm_isdst = -1 };
	upd = mktime(&at);
	assert_int_equal(tu_spit(path, "Dec 30 09:00:00 Installed: bash-4.2-1.x86_64\n"
				       "Dec 30 09:00:05 Installed: 1:ylib-1.0-1.x86_64\n"
				       "Jan 09 08:30:02 Installed: bash-4.2-2.x86_64\n"
				       "Jan 09 08:30:10 Updated: 1:ylib-2.0-1.x86_64\n"
				       "Jan 09 08:31:00 Erased: other\n"),
			 0);
	times[0] = times[1] = (struct timeval){ .tv_sec = mtime };
	assert_int_equal(utimes(path, times), 0);

	/* Unlinked while rpm installed the update: between the line before and its own. */
	expect_running(dir, "ylib", "1:2.0-1", unlinked_at(upd - 4), "1:1.0-1");
	expect_running(dir, "ylib", "1:2.0-1", unlinked_at(upd), "1:1.0-1");
	/* The first line is 2024's: a copy unlinked before it is before the log. */
	expect_not_known(dir, "ylib", "1:2.0-1", unlinked_at(dec - 86400), "before the oldest line", "", "");
	running(dir, rpm_pkg("ylib", "1:2.0-1"), unlinked_at(upd), &stats);
	assert_int_equal(stats.log[1].files, 1);
	assert_int_equal(stats.log[1].malformed, 0);
	/* An mtime a year later puts every line a year later: the copy is then before the log. */
	times[0] = times[1] = (struct timeval){ .tv_sec = mtime + 366 * 86400 };
	assert_int_equal(utimes(path, times), 0);
	expect_not_known(dir, "ylib", "1:2.0-1", unlinked_at(upd), "before the oldest line", "", "");
	free(path);
}

static void gzip_in(const char *dir, const char *name)
{
	char *cmd;

	assert_true(asprintf(&cmd, "cd '%s' && gzip -n -9 '%s'", dir, name) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Rotated copies, numbered then dated, gzip among them, read newest first until far enough back. */
static void test_rotated(void **state)
{
	const char *dir = *state;
	struct ms_rpmlog_stats stats;
	struct logtext oldest = dnf_log(), middle = { 0 }, newest = { 0 };

	dnf_swap(&oldest, t0 + 10, "Upgrade", "one", "1.0-1", "2.0-1");
	dnf_line(&middle, t0 + 50, "INFO --- logging initialized ---");
	dnf_swap(&middle, t0 + 100, "Upgrade", "two", "1.0-1", "2.0-1");
	dnf_line(&newest, t0 + 200, "INFO --- logging initialized ---");
	put(dir, "dnf.rpm.log", &newest);
	put(dir, "dnf.rpm.log.1", &middle);
	put(dir, "dnf.rpm.log-20250101", &oldest);
	put(dir, "dnf.rpm.log-20240101", &oldest);
	free(newest.text);
	free(middle.text);
	free(oldest.text);
	expect_running(dir, "two", "2.0-1", unlinked_at(t0 + 100), "1.0-1");
	running(dir, rpm_pkg("two", "2.0-1"), unlinked_at(t0 + 100), &stats);
	assert_int_equal(stats.log[0].files, 2);
	expect_running(dir, "one", "2.0-1", unlinked_at(t0 + 10), "1.0-1");
	running(dir, rpm_pkg("one", "2.0-1"), unlinked_at(t0 + 10), &stats);
	assert_int_equal(stats.log[0].files, 3);
	assert_int_equal(stats.log[0].stopped.code, 0);
#ifdef HAVE_ZLIB
	gzip_in(dir, "dnf.rpm.log-20250101");
	gzip_in(dir, "dnf.rpm.log.1");
	expect_running(dir, "one", "2.0-1", unlinked_at(t0 + 10), "1.0-1");
	expect_running(dir, "two", "2.0-1", unlinked_at(t0 + 101), "1.0-1");
#endif
}

/* Malformed lines (a scriptlet's output) and one over the cap are skipped; the lines around count. */
static void test_malformed_and_long(void **state)
{
	const char *dir = *state;
	struct ms_rpmlog_stats stats;
	struct logtext l = dnf_log();
	char *big = malloc(3 * MS_RPMLOG_LINE_MAX), *joined;
	struct ms_pkg got;

	assert_non_null(big);
	dnf_line(&l, t0 + 100, "SUBDEBUG Upgrade: one-2.0-1.x86_64");
	dnf_line(&l, t0 + 100, "INFO a scriptlet said\nits second line\n\x1b]0;title\x07");
	memset(big, 'x', 3 * MS_RPMLOG_LINE_MAX - 1);
	big[3 * MS_RPMLOG_LINE_MAX - 1] = '\0';
	memcpy(big, "SUBDEBUG Upgraded: one-0.5-1.x86_64 ", 36);
	dnf_line(&l, t0 + 100, "%s", big);
	free(big);
	dnf_line(&l, t0 + 101, "SUBDEBUG Upgraded: one-1.0-1.x86_64");
	assert_true(asprintf(&joined, "%s2026-99-99T00:00:00Z SUBDEBUG Erase: one-2.0-1.x86_64", l.text) > 0);
	free(l.text);
	l.text = joined;
	put(dir, "dnf.rpm.log", &l);
	free(l.text);

	got = running(dir, rpm_pkg("one", "2.0-1"), unlinked_at(t0 + 100), &stats);
	assert_int_equal(got.running_state, MS_PKG_RUNNING_KNOWN);
	assert_string_equal(got.running, "1.0-1");
	assert_int_equal(stats.log[0].long_lines, 1);
	assert_int_equal(stats.log[0].malformed, 4);
}

/* A file over its cap (sparse: no disk), a gzip bomb: refused, the log ends there. */
static void test_caps(void **state)
{
	const char *dir = *state;
	struct ms_rpmlog_stats stats;
	struct logtext l = dnf_log();
	char *path = tu_join(dir, "dnf.rpm.log"), *yum, *cmd;

	dnf_swap(&l, t0 + 100, "Upgrade", "one", "1.0-1", "2.0-1");
	put(dir, "dnf.rpm.log", &l);
	yum = tu_join(dir, "yum.log");
	assert_int_equal(tu_spit(yum, "Dec 05 23:21:54 Updated: one-2.0-1.x86_64\n"), 0);
	assert_int_equal(truncate(path, (off_t)MS_RPMLOG_FILE_MAX + 4096), 0);
	expect_not_known(dir, "one", "2.0-1", unlinked_at(t0 + 100), "", "", "");
	running(dir, rpm_pkg("one", "2.0-1"), unlinked_at(t0 + 100), &stats);
	assert_int_equal(stats.log[0].files, 0);
	assert_int_equal(stats.log[0].stopped.code, MS_ERR_LIMIT);
	/* yum's log is read on its own. */
	assert_int_equal(stats.log[1].files, 1);
	assert_int_equal(unlink(yum), 0);
	free(yum);
	free(path);
#ifdef HAVE_ZLIB
	put(dir, "dnf.rpm.log", &l);
	assert_true(asprintf(&cmd, "head -c %u /dev/zero | gzip -n -9 > '%s/dnf.rpm.log.1.gz'",
			     MS_RPMLOG_FILE_MAX + (1u << 20), dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* Needs the older file (the start is before dnf.rpm.log's first line), which is a bomb. */
	expect_not_known(dir, "one", "2.0-1", (struct ms_copy){ .start = t0 - 7200 }, "do not reach back", "", "");
	running(dir, rpm_pkg("one", "2.0-1"), (struct ms_copy){ .start = t0 - 7200 }, &stats);
	assert_int_equal(stats.log[0].files, 1);
	assert_int_equal(stats.log[0].stopped.code, MS_ERR_LIMIT);
	assert_non_null(strstr(stats.log[0].stopped.msg, "dnf.rpm.log.1.gz"));
#else
	(void)cmd;
#endif
	free(l.text);
}

/* A file of another owner, or writable by the group: not trusted. */
static void test_owner_and_mode(void **state)
{
	const char *dir = *state;
	struct ms_rpmlog_opts opts = { .dir = dir, .owner_uid = geteuid() + 1 };
	struct ms_rpmlog_stats stats;
	struct ms_error err = { 0 };
	struct logtext l = dnf_log();
	struct ms_pkg p = rpm_pkg("one", "2.0-1");
	struct ms_copy c = unlinked_at(t0 + 100);
	char *path = tu_join(dir, "dnf.rpm.log");

	dnf_swap(&l, t0 + 100, "Upgrade", "one", "1.0-1", "2.0-1");
	put(dir, "dnf.rpm.log", &l);
	free(l.text);
	assert_int_equal(ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err), 0);
	assert_int_equal(p.running_state, MS_PKG_RUNNING_UNKNOWN);
	assert_int_equal(stats.log[0].stopped.code, MS_ERR_NOACCESS);
	expect_running(dir, "one", "2.0-1", c, "1.0-1");
	assert_int_equal(chmod(path, 0664), 0);
	expect_not_known(dir, "one", "2.0-1", c, "no dnf or yum log", "", "");
	free(path);
}

/* As nobody, nobody's directory and the owner seam set to nobody: a FIFO, a symlink, a huge file. */
static int attack_as_nobody(const char *dir)
{
	struct ms_rpmlog_opts opts = { .dir = dir, .owner_uid = 65534 };
	struct ms_rpmlog_stats stats;
	struct ms_error err = { 0 };
	struct logtext l = dnf_log();
	struct ms_copy c = unlinked_at(t0 + 100);
	char *log = tu_join(dir, "dnf.rpm.log"), *good = tu_join(dir, "good.log");
	struct ms_pkg p;
	int fd;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	alarm(20);
	dnf_swap(&l, t0 + 100, "Upgrade", "one", "1.0-1", "2.0-1");
	if (tu_spit(good, l.text) < 0 || chmod(good, 0644) < 0)
		return 11;
	free(l.text);
	if (mkfifo(log, 0644) < 0)
		return 12;
	p = rpm_pkg("one", "2.0-1");
	if (ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err) < 0 || p.running_state != MS_PKG_RUNNING_UNKNOWN ||
	    stats.log[0].stopped.code != MS_ERR_INVAL || !strstr(stats.log[0].stopped.msg, "FIFO"))
		return 13;
	unlink(log);
	if (symlink("good.log", log) < 0)
		return 14;
	p = rpm_pkg("one", "2.0-1");
	if (ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err) < 0 || p.running_state != MS_PKG_RUNNING_UNKNOWN ||
	    stats.log[0].stopped.sys_errno != ELOOP)
		return 15;
	unlink(log);
	if (rename(good, log) < 0)
		return 16;
	p = rpm_pkg("one", "2.0-1");
	if (ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err) < 0 || p.running_state != MS_PKG_RUNNING_KNOWN)
		return 17;
	fd = open(log, O_WRONLY | O_TRUNC);
	if (fd < 0 || ftruncate(fd, (off_t)1 << 40) < 0 || close(fd) < 0)
		return 18;
	p = rpm_pkg("one", "2.0-1");
	if (ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err) < 0 || p.running_state != MS_PKG_RUNNING_UNKNOWN ||
	    stats.log[0].stopped.code != MS_ERR_LIMIT || stats.log[0].bytes != 0)
		return 19;
	/* nobody's own file is not root's. */
	opts.owner_uid = 0;
	if (ms_rpmlog_running(&opts, &p, &c, 1, &stats, &err) < 0 || stats.log[0].stopped.code != MS_ERR_NOACCESS)
		return 20;
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
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_by_inode, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_by_start, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_yum, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_rotated, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_malformed_and_long, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_caps, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_owner_and_mode, tu_tmpdir_setup, tu_tmpdir_teardown),
		cmocka_unit_test(test_attack_as_nobody),
	};

	t0 = time(NULL) - 3600;
	return cmocka_run_group_tests_name("rpmlog", tests, NULL, NULL);
}
