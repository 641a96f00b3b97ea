/* rpmlog.c - the running copy's version from dnf's and yum's logs: see rpmlog.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "pkg/rpmlog.h"
#include "pkg/rpmlog_parse.h"

_Static_assert(MS_RPMLOG_LINE_MAX == MS_PKGLOG_LINE_MAX, "rpm's log lines are cut by the shared reader");

#define LOOK 64 /* entries looked through for a partner or a version before */

/* A line of the logs about a package asked. */
struct entry {
	size_t name;          /* index into the read's names */
	time_t at, from, to;  /* its line; the window in which rpm changed the files */
	uint64_t order;       /* the logs' own order: newer files after older, lines in file order */
	enum ms_rpmlog_action act;
	bool yum, paired;
	uint32_t ystamp, yfrom; /* yum: MMDDhhmmss of its line and of the element before (0: none) */
	unsigned yroll, yroll_from; /* yum: the turns of the year before each, in its file */
	char arch[MS_RPMLOG_ARCH_MAX + 1];
	char version[MS_RPMLOG_VERSION_MAX + 1]; /* its own line's; "" for a name-only erase */
	char took[MS_RPMLOG_VERSION_MAX + 1];    /* the version whose files it took away; "": unknown */
	char put[MS_RPMLOG_VERSION_MAX + 1];     /* the version it put in place; "": none or unknown */
};

struct logread {
	const char **names; /* distinct package names asked about, sorted */
	size_t nnames;
	struct entry *ev;
	size_t nev, cap;
	bool overflow;
	time_t oldest;      /* the oldest line of the files read whole; 0: none */
	time_t need;        /* a log is read back to before this */
	bool yum;           /* the log being read */
	unsigned log_index; /* 0 dnf, 1 yum */
	size_t *malformed;
	/* the file being read */
	size_t first;       /* its first entry */
	uint64_t order;
	time_t file_oldest;
	long pending;       /* dnf: the entry whose window the next element closes; -1: none */
	time_t mtime;
	uint32_t y_last, y_first, y_elem; /* yum: its last and first line, the last element */
	unsigned y_roll, y_roll_first, y_roll_elem;
	unsigned y_month;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long name_index(const struct logread *lr, const char *name, size_t len)
{
	return ms_pkglog_name_find(lr->names, lr->nnames, name, len);
}

static bool takes_away(enum ms_rpmlog_action a)
{
	return a >= MS_RPMLOG_UPGRADED;
}

static bool puts_in(enum ms_rpmlog_action a)
{
	return a >= MS_RPMLOG_INSTALL && a <= MS_RPMLOG_REINSTALL;
}

/*
 * An element, or dnf starting again: the window of the entry before ends
 * here.  After the last element of a transaction comes the next run of
 * dnf, so that one's is its own second.
 */
static void element_seen(struct logread *lr, time_t when, bool next_run)
{
	struct entry *e;

	if (lr->pending < 0)
		return;
	e = &lr->ev[lr->pending];
	e->to = when < e->from || next_run ? e->from : when;
	if (e->to > e->from + MS_RPMLOG_ELEMENT_MAX)
		e->to = e->from + MS_RPMLOG_ELEMENT_MAX;
	lr->pending = -1;
}

static int keep(struct logread *lr, enum ms_rpmlog_action act, const struct ms_rpmlog_line *ln, size_t name)
{
	struct entry *e;

	if (lr->nev >= MS_RPMLOG_EVENTS_MAX) {
		lr->overflow = true;
		return 0;
	}
	if (ms_grow((void **)&lr->ev, &lr->cap, lr->nev, sizeof(*lr->ev), 64) < 0)
		return MS_ERR_NOMEM;
	e = &lr->ev[lr->nev];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->act = act;
	e->yum = ln->yum;
	e->order = ++lr->order;
	e->at = e->from = e->to = ln->when;
	snprintf(e->arch, sizeof(e->arch), "%.*s", (int)ln->nevra.arch.len, ln->nevra.arch.at);
	if (!ln->name_only)
		ms_rpmlog_evr(&ln->nevra, e->version, sizeof(e->version));
	if (takes_away(act))
		snprintf(e->took, sizeof(e->took), "%s", e->version);
	else
		snprintf(e->put, sizeof(e->put), "%s", e->version);
	if (act == MS_RPMLOG_REINSTALL)
		snprintf(e->took, sizeof(e->took), "%s", e->version);
	if (ln->yum) {
		e->ystamp = ln->yum_stamp;
		e->yroll = lr->y_roll;
		e->yfrom = lr->y_elem;
		e->yroll_from = lr->y_roll_elem;
	} else {
		lr->pending = (long)lr->nev;
	}
	lr->nev++;
	return 0;
}

static void note_yum_time(struct logread *lr, uint32_t stamp)
{
	unsigned month = stamp / 100000000;

	if (lr->y_month && month < lr->y_month)
		lr->y_roll++;
	lr->y_month = month;
	if (!lr->y_first) {
		lr->y_first = stamp;
		lr->y_roll_first = lr->y_roll;
	}
	lr->y_last = stamp;
}

static int take_line(void *ctx, const char *s, size_t len)
{
	struct logread *lr = ctx;
	struct ms_rpmlog_line ln;
	enum ms_rpmlog_action act = lr->yum ? ms_rpmlog_parse_yum(s, len, &ln) : ms_rpmlog_parse_dnf(s, len, &ln);
	long name;
	int rc = 0;

	if (act == MS_RPMLOG_MALFORMED) {
		(*lr->malformed)++;
		return 0;
	}
	if (lr->yum)
		note_yum_time(lr, ln.yum_stamp);
	else if (!lr->file_oldest || ln.when < lr->file_oldest)
		lr->file_oldest = ln.when;
	if (act == MS_RPMLOG_OTHER)
		return 0;
	if (!lr->yum)
		element_seen(lr, ln.when, act == MS_RPMLOG_MARK);
	if (act != MS_RPMLOG_MARK && (name = name_index(lr, ln.nevra.name.at, ln.nevra.name.len)) >= 0)
		rc = keep(lr, act, &ln, (size_t)name);
	if (lr->yum && act != MS_RPMLOG_MARK) {
		lr->y_elem = ln.yum_stamp;
		lr->y_roll_elem = lr->y_roll;
	}
	return rc;
}

static void file_begin(void *ctx, const struct ms_pkglog_file *f)
{
	struct logread *lr = ctx;

	lr->first = lr->nev;
	lr->order = ((uint64_t)lr->log_index << 60) | ((uint64_t)(MS_RPMLOG_FILES - f->index) << 40);
	lr->file_oldest = 0;
	lr->pending = -1;
	lr->mtime = f->st->st_mtime;
	lr->y_last = lr->y_first = lr->y_elem = 0;
	lr->y_roll = lr->y_roll_first = lr->y_roll_elem = lr->y_month = 0;
}

/* A yum time (MMDDhhmmss, local) in a year, as seconds since the epoch; 0 when it is none. */
static time_t yum_time(int year, uint32_t stamp)
{
	struct tm tm = {
		.tm_year = year - 1900,
		.tm_mon = (int)(stamp / 100000000) - 1,
		.tm_mday = (int)(stamp / 1000000 % 100),
		.tm_hour = (int)(stamp / 10000 % 100),
		.tm_min = (int)(stamp / 100 % 100),
		.tm_sec = (int)(stamp % 100),
		.tm_isdst = -1,
	};
	time_t t = mktime(&tm);

	return t == (time_t)-1 ? 0 : t;
}

/* The year of each yum line of the file just read, from its mtime: rpmlog.h. */
static void date_yum_file(struct logread *lr)
{
	struct tm mt;
	int last_year;
	uint32_t mstamp;

	if (!lr->y_last || !localtime_r(&lr->mtime, &mt)) {
		lr->nev = lr->first;
		return;
	}
	mstamp = (uint32_t)((mt.tm_mon + 1) * 100000000 + mt.tm_mday * 1000000 + mt.tm_hour * 10000 +
			    mt.tm_min * 100 + mt.tm_sec);
	last_year = mt.tm_year + 1900 - (lr->y_last > mstamp);
	for (size_t i = lr->first; i < lr->nev; i++) {
		struct entry *e = &lr->ev[i];
		time_t from;

		e->at = e->to = yum_time(last_year - (int)(lr->y_roll - e->yroll), e->ystamp);
		from = e->yfrom ? yum_time(last_year - (int)(lr->y_roll - e->yroll_from), e->yfrom) : e->at;
		if (!from || from > e->at)
			from = e->at;
		e->from = from < e->at - MS_RPMLOG_ELEMENT_MAX ? e->at - MS_RPMLOG_ELEMENT_MAX : from;
	}
	lr->file_oldest = yum_time(last_year - (int)(lr->y_roll - lr->y_roll_first), lr->y_first);
}

static void file_end(void *ctx, bool ok)
{
	struct logread *lr = ctx;

	if (!ok) {
		lr->nev = lr->first;
		return;
	}
	if (lr->yum)
		date_yum_file(lr);
	if (lr->file_oldest && (!lr->oldest || lr->file_oldest < lr->oldest))
		lr->oldest = lr->file_oldest;
}

static bool reaches_back(void *ctx)
{
	struct logread *lr = ctx;

	return lr->oldest && lr->oldest < lr->need;
}

static const struct ms_pkglog_ops rpm_ops = {
	.begin = file_begin,
	.line = take_line,
	.end = file_end,
	.enough = reaches_back,
};

/* dnf's log, then yum's, each newest file first. */
static int read_logs(struct logread *lr, const struct ms_rpmlog_opts *opts, struct ms_rpmlog_stats *stats,
		     struct ms_error *err)
{
	static const char *const bases[2] = { "dnf.rpm.log", "yum.log" };
	int rc = 0;

	for (unsigned i = 0; i < 2 && rc == 0; i++) {
		struct ms_pkglog_spec spec = {
			.dir = opts && opts->dir ? opts->dir : MS_RPMLOG_DIR,
			.base = bases[i],
			.owner = opts ? opts->owner_uid : 0,
			.files = MS_RPMLOG_FILES,
			.dated = true,
			.file_max = MS_RPMLOG_FILE_MAX,
			.total_max = MS_RPMLOG_TOTAL_MAX,
		};
		size_t refused = 0;

		lr->yum = i == 1;
		lr->log_index = i;
		lr->malformed = &refused;
		rc = ms_pkglog_read(&spec, &rpm_ops, lr, &stats->log[i], err);
		stats->log[i].malformed += refused;
	}
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The old-side kind that pairs with a new-side one. */
static enum ms_rpmlog_action partner_of(enum ms_rpmlog_action a)
{
	return a == MS_RPMLOG_UPGRADE ? MS_RPMLOG_UPGRADED :
	       a == MS_RPMLOG_DOWNGRADE ? MS_RPMLOG_DOWNGRADED : MS_RPMLOG_REINSTALLED;
}

/*
 * What each entry took away and put in place, once the entries of a
 * package are in time order: a dnf new-side line and its partner after
 * it; else the version put in place last before it (rpmlog.h).
 */
static void pair_entries(struct logread *lr)
{
	for (size_t i = 0; i < lr->nev; i++) {
		struct entry *e = &lr->ev[i];

		if (!e->yum && e->act >= MS_RPMLOG_UPGRADE && e->act <= MS_RPMLOG_REINSTALL)
			for (size_t j = i + 1; j < lr->nev && j <= i + LOOK && lr->ev[j].name == e->name; j++) {
				struct entry *o = &lr->ev[j];

				if (o->yum || o->paired || o->act != partner_of(e->act) || strcmp(o->arch, e->arch))
					continue;
				o->paired = true;
				snprintf(e->took, sizeof(e->took), "%s", o->version);
				snprintf(o->put, sizeof(o->put), "%s", e->version);
				break;
			}
		if (e->took[0] || e->act == MS_RPMLOG_INSTALL)
			continue;
		for (size_t j = i; j-- > 0 && j + LOOK >= i && lr->ev[j].name == e->name;) {
			const struct entry *b = &lr->ev[j];

			if (puts_in(b->act) && b->put[0] && (!e->arch[0] || !strcmp(b->arch, e->arch))) {
				snprintf(e->took, sizeof(e->took), "%s", b->put);
				break;
			}
		}
	}
}

/* "0:1.0-1" and "1.0-1" are one version: dnf and yum leave epoch 0 out. */
static bool same_version(const char *a, const char *b)
{
	if (!strncmp(a, "0:", 2))
		a += 2;
	if (!strncmp(b, "0:", 2))
		b += 2;
	return !strcmp(a, b);
}

static bool arch_fits(const struct ms_pkg *p, const struct entry *e)
{
	return !p->arch[0] || !e->arch[0] || !strcmp(e->arch, p->arch);
}

/* The versions some entries took away: two kept, more counted; "" is a version no line names. */
struct took_set {
	const struct entry *e[2];
	size_t n;
	bool more;
};

static void took_add(struct took_set *s, const struct entry *e)
{
	for (size_t i = 0; i < s->n; i++)
		if (same_version(s->e[i]->took, e->took))
			return;
	if (s->n == 2)
		s->more = true;
	else
		s->e[s->n++] = e;
}

/* UNKNOWN with why, and the candidates each log names when there are two or fewer. */
static void not_known(struct ms_pkg *p, const struct took_set *s, const char *why)
{
	ms_pkg_running_unknown(p, "%s", why);
	if (!s || s->more)
		return;
	for (size_t i = 0, k = 0; i < s->n; i++)
		if (s->e[i]->took[0])
			snprintf(k++ ? p->running_alt : p->running, sizeof(p->running), "%s", s->e[i]->took);
}

static void set_known(struct ms_pkg *p, const char *version, const char *why)
{
	p->running_state = MS_PKG_RUNNING_KNOWN;
	p->running_alt[0] = '\0';
	snprintf(p->running, sizeof(p->running), "%s", version);
	snprintf(p->running_why, sizeof(p->running_why), "%s", why);
}

static size_t group_start(const struct logread *lr, size_t name)
{
	size_t lo = 0, hi = lr->nev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lr->ev[mid].name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void when_text(time_t t, char out[20])
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(out, 20, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, 20, "%lld", (long long)t);
}

static const char *verb_of(const struct entry *e)
{
	switch (e->act) {
	case MS_RPMLOG_UPGRADE:
	case MS_RPMLOG_UPGRADED:
		return "upgrade";
	case MS_RPMLOG_DOWNGRADE:
	case MS_RPMLOG_DOWNGRADED:
		return "downgrade";
	case MS_RPMLOG_REINSTALL:
	case MS_RPMLOG_REINSTALLED:
		return "reinstall";
	default:
		return "removal";
	}
}

/* Dated by its own inode: the entries whose window holds t, else a second either way. */
static void by_inode(const struct logread *lr, struct ms_pkg *p, size_t name, time_t t)
{
	struct took_set exact = { 0 }, near = { 0 }, *s;
	const struct entry *last = NULL;
	char when[20], why[MS_PKG_WHY_MAX];

	when_text(t, when);
	if (lr->oldest > t) {
		ms_pkg_running_unknown(p, "unlinked at %s, before the oldest line of rpm's logs read", when);
		return;
	}
	for (size_t i = group_start(lr, name); i < lr->nev && lr->ev[i].name == name; i++) {
		const struct entry *e = &lr->ev[i];

		if (!arch_fits(p, e) || e->from > t + 1)
			continue;
		if (e->from <= t && e->put[0])
			last = e;
		if (e->act == MS_RPMLOG_INSTALL)
			continue;
		if (e->from <= t && t <= e->to)
			took_add(&exact, e);
		else if (t - 1 <= e->to)
			took_add(&near, e);
	}
	s = exact.n ? &exact : &near;
	if (s->n == 1 && s->e[0]->took[0]) {
		const struct entry *e = s->e[0];

		if (e->put[0] && e->act != MS_RPMLOG_ERASE && e->act != MS_RPMLOG_OBSOLETED)
			snprintf(why, sizeof(why), "unlinked at %s, by %s's %s from %.40s to %.40s", when,
				 e->yum ? "yum" : "dnf", verb_of(e), e->took, e->put);
		else
			snprintf(why, sizeof(why), "unlinked at %s, by %s's %s of %.40s", when, e->yum ? "yum" : "dnf",
				 verb_of(e), e->took);
		set_known(p, e->took, why);
		return;
	}
	if (s->n == 1) {
		snprintf(why, sizeof(why), "unlinked at %s, by %s's %s, but its log does not name the version before",
			 when, s->e[0]->yum ? "yum" : "dnf", verb_of(s->e[0]));
		not_known(p, NULL, why);
		return;
	}
	if (s->n) {
		snprintf(why, sizeof(why), "unlinked at %s, during %s of rpm's upgrades or removals in that second",
			 when, s->more ? "several" : "two");
		not_known(p, s, why);
		return;
	}
	ms_pkg_running_unknown(p, "replaced at %s, when rpm's logs have no upgrade or removal of %.40s%s%.40s%s", when,
			       p->name, last ? " (rpm had installed " : "", last ? last->put : "", last ? ")" : "");
}

/* Dated by its holders' start, where the copy's own time cannot be read (not root). */
static void by_start(const struct logread *lr, struct ms_pkg *p, size_t name, time_t start)
{
	time_t after = start - MS_RPMLOG_SLACK;
	const struct entry *newest = NULL;
	struct took_set s = { 0 };

	if (!start) {
		ms_pkg_running_unknown(p, "neither the copy's unlink time nor its holders' start is known");
		return;
	}
	if (!lr->oldest || lr->oldest >= after) {
		ms_pkg_running_unknown(p, "rpm's logs do not reach back to when its holders started");
		return;
	}
	for (size_t i = group_start(lr, name); i < lr->nev && lr->ev[i].name == name; i++) {
		const struct entry *e = &lr->ev[i];

		if (e->to < after || !arch_fits(p, e) || e->act == MS_RPMLOG_INSTALL)
			continue;
		took_add(&s, e);
		newest = e;
	}
	if (!s.n) {
		ms_pkg_running_unknown(p, "rpm's logs have no upgrade or removal of %.40s since its holders started",
				       p->name);
		return;
	}
	if (s.n > 1 || s.more || !s.e[0]->took[0]) {
		not_known(p, &s, "upgraded more than once since its holders started, and only root can read "
				 "when the copy was unlinked");
		return;
	}
	if (newest->put[0] && p->version[0] && !same_version(newest->put, p->version)) {
		ms_pkg_running_unknown(p, "rpm's logs and its database disagree on the version installed");
		return;
	}
	set_known(p, s.e[0]->took, "dated by its holders' start: only root can read when the copy was unlinked");
}

static void answer(const struct logread *lr, struct ms_pkg *p, const struct ms_copy *c)
{
	long name = name_index(lr, p->name, strnlen(p->name, sizeof(p->name)));

	if (lr->overflow)
		ms_pkg_running_unknown(p, "rpm's logs hold too many entries to search");
	else if (name < 0 || !lr->oldest)
		ms_pkg_running_unknown(p, "no dnf or yum log can be read");
	else if (c->unlinked.tv_sec)
		by_inode(lr, p, (size_t)name, c->unlinked.tv_sec);
	else
		by_start(lr, p, (size_t)name, c->start);
}

static bool asked(const struct ms_pkg *p)
{
	return p->found && p->source == MS_PKG_SOURCE_RPM;
}

/* The earliest time the logs must reach back to for c. */
static time_t need_of(const struct ms_copy *c)
{
	return c->unlinked.tv_sec ? c->unlinked.tv_sec - 1 : c->start - MS_RPMLOG_SLACK;
}

/* The distinct names asked, sorted; how many (0 with lr->names NULL: none, or out of memory). */
static size_t names_asked(struct logread *lr, const struct ms_pkg *pkgs, size_t n, size_t k)
{
	lr->names = calloc(k, sizeof(*lr->names));
	if (!lr->names)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i]))
			lr->names[lr->nnames++] = pkgs[i].name;
	qsort(lr->names, lr->nnames, sizeof(*lr->names), name_cmp);
	k = 0;
	for (size_t i = 0; i < lr->nnames; i++)
		if (!k || strcmp(lr->names[k - 1], lr->names[i]))
			lr->names[k++] = lr->names[i];
	return lr->nnames = k;
}

int ms_rpmlog_running(const struct ms_rpmlog_opts *opts, struct ms_pkg *pkgs, const struct ms_copy *copies,
		      size_t n, struct ms_rpmlog_stats *stats, struct ms_error *err)
{
	struct ms_rpmlog_stats local;
	struct logread lr = { .pending = -1 };
	size_t k = 0;
	int rc;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i])) {
			ms_pkg_running_unknown(&pkgs[i], "no dnf or yum log can be read");
			if (!k++ || need_of(&copies[i]) < lr.need)
				lr.need = need_of(&copies[i]);
		}
	if (!k)
		return 0;
	if (!names_asked(&lr, pkgs, n, k))
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "rpm logs: out of memory");
	rc = read_logs(&lr, opts, stats, err);
	if (rc == 0) {
		if (lr.nev)
			qsort(lr.ev, lr.nev, sizeof(*lr.ev), entry_cmp);
		pair_entries(&lr);
		for (size_t i = 0; i < n; i++)
			if (asked(&pkgs[i]))
				answer(&lr, &pkgs[i], &copies[i]);
	}
	stats->events = lr.nev;
	free(lr.ev);
	free(lr.names);
	return rc;
}
