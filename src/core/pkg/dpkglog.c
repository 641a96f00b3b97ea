/* dpkglog.c - the running copy's version from dpkg's log: see dpkglog.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "pkg/dpkglog.h"
#include "pkg/dpkglog_parse.h"
#include "pkg/pkglog_read.h"

_Static_assert(MS_DPKGLOG_LINE_MAX == MS_PKGLOG_LINE_MAX, "dpkg's lines are cut by the shared reader");

/* An upgrade, removal or purge of a package asked about. */
struct event {
	size_t name;      /* index into the read's names */
	uint64_t stamp;
	uint64_t end;     /* the stamp of the status line that says dpkg was done with it; 0: none */
	uint64_t order;   /* the log's own order: newer files first, lines in file order */
	bool upgrade;
	bool half;        /* dpkg said "half-installed" for it: its files are changing */
	bool closed;      /* the status line that ends it was read; end waits for the line after */
	char arch[MS_DPKGLOG_ARCH_MAX + 1];
	char old_version[MS_DPKGLOG_VERSION_MAX + 1];
	char new_version[MS_DPKGLOG_VERSION_MAX + 1];
};

struct logread {
	const char **names; /* distinct package names asked about, sorted */
	size_t nnames;
	struct event *events;
	size_t nevents, cap;
	bool overflow;
	uint64_t oldest;    /* the oldest stamp of the files read whole; 0: none */
	size_t file_first;  /* the first entry of the file being read */
	size_t closing;     /* an entry whose end is the next line's stamp, + 1; 0: none */
	uint64_t order;
	uint64_t file_oldest; /* the oldest stamp of the file being read */
	uint64_t need;      /* the log must reach before this stamp */
	struct ms_dpkglog_stats *stats;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long find_name(const struct logread *lr, const char *name, size_t len)
{
	return ms_pkglog_name_find(lr->names, lr->nnames, name, len);
}

static void copy_field(char *dst, const struct ms_dpkglog_field *f)
{
	memcpy(dst, f->at, f->len);
	dst[f->len] = '\0';
}

static bool field_is(const struct ms_dpkglog_field *f, const char *s)
{
	return f->len == strlen(s) && !memcmp(f->at, s, f->len);
}

/*
 * A status line of a package asked about: the newest entry of the same
 * package and architecture in this file, when still open, is closed by the
 * state dpkg reaches once it has put the new files in place (an upgrade:
 * "unpacked", "half-configured" or "installed" of the new version) or
 * taken the old ones away (a removal or purge: "config-files" or
 * "not-installed"), once dpkg has said "half-installed" for it: before
 * that, a reinstall logs "half-configured" and "unpacked" of the very
 * version it installs while no file has changed yet.  dpkg unlinks the
 * backup links of the replaced files (NAME.dpkg-tmp) only after it logs
 * "unpacked", so the replaced copy's unlink time comes after that line:
 * the entry ends at the stamp of the next line of the log, whatever it is
 * (dpkg writes one at a time), or at the closing line's when none follows.
 * Looks back at most CLOSE_LOOKBACK entries: dpkg writes them a few lines
 * apart.
 */
#define CLOSE_LOOKBACK 64

static void close_event(struct logread *lr, size_t name, const struct ms_dpkglog_line *ln)
{
	size_t stop = lr->nevents > CLOSE_LOOKBACK ? lr->nevents - CLOSE_LOOKBACK : 0;

	if (stop < lr->file_first)
		stop = lr->file_first;
	for (size_t i = lr->nevents; i > stop; i--) {
		struct event *ev = &lr->events[i - 1];
		bool done;

		if (ev->name != name || strlen(ev->arch) != ln->arch.len || memcmp(ev->arch, ln->arch.at, ln->arch.len))
			continue;
		if (ev->closed)
			return;
		if (field_is(&ln->state, "half-installed")) {
			ev->half = true;
			return;
		}
		if (!ev->half)
			return;
		if (ev->upgrade)
			done = (field_is(&ln->state, "unpacked") || field_is(&ln->state, "half-configured") ||
				field_is(&ln->state, "installed")) &&
			       ln->new_version.len == strlen(ev->new_version) &&
			       !memcmp(ln->new_version.at, ev->new_version, ln->new_version.len);
		else
			done = field_is(&ln->state, "config-files") || field_is(&ln->state, "not-installed");
		if (done) {
			ev->closed = true;
			ev->end = ln->stamp;
			lr->closing = i;
		}
		return;
	}
}

/* One whole line; *file_oldest follows its stamp. */
static int take_line(struct logread *lr, const char *s, size_t len, uint64_t *file_oldest)
{
	struct ms_dpkglog_line ln;
	enum ms_dpkglog_action act = ms_dpkglog_parse_line(s, len, &ln);
	struct event *ev;
	long name;

	lr->order++;
	if (act == MS_DPKGLOG_MALFORMED) {
		lr->stats->malformed++;
		return 0;
	}
	if (!*file_oldest || ln.stamp < *file_oldest)
		*file_oldest = ln.stamp;
	if (lr->closing) {
		if (lr->events[lr->closing - 1].end < ln.stamp)
			lr->events[lr->closing - 1].end = ln.stamp;
		lr->closing = 0;
	}
	if (act == MS_DPKGLOG_OTHER || (name = find_name(lr, ln.pkg.at, ln.pkg.len)) < 0)
		return 0;
	if (act == MS_DPKGLOG_STATUS) {
		close_event(lr, (size_t)name, &ln);
		return 0;
	}
	if (lr->nevents >= MS_DPKGLOG_EVENTS_MAX) {
		lr->overflow = true;
		return 0;
	}
	if (ms_grow((void **)&lr->events, &lr->cap, lr->nevents, sizeof(*lr->events), 64) < 0)
		return MS_ERR_NOMEM;
	ev = &lr->events[lr->nevents++];
	ev->name = (size_t)name;
	ev->stamp = ln.stamp;
	ev->order = lr->order;
	ev->end = 0;
	ev->half = ev->closed = false;
	ev->upgrade = act == MS_DPKGLOG_UPGRADE;
	copy_field(ev->arch, &ln.arch);
	copy_field(ev->old_version, &ln.old_version);
	copy_field(ev->new_version, &ln.new_version);
	return 0;
}

static void file_begin(void *ctx, const struct ms_pkglog_file *f)
{
	struct logread *lr = ctx;

	lr->file_first = lr->nevents;
	lr->file_oldest = 0;
	lr->closing = 0;
	lr->order = (uint64_t)(MS_DPKGLOG_FILES - f->index) << 40;
}

static int file_line(void *ctx, const char *s, size_t len)
{
	return take_line(ctx, s, len, &((struct logread *)ctx)->file_oldest);
}

/* A file refused midway gives back its entries. */
static void file_end(void *ctx, bool ok)
{
	struct logread *lr = ctx;

	if (!ok) {
		lr->nevents = lr->file_first;
		return;
	}
	if (lr->file_oldest && (!lr->oldest || lr->file_oldest < lr->oldest))
		lr->oldest = lr->file_oldest;
}

static bool reaches_back(void *ctx)
{
	struct logread *lr = ctx;

	return lr->oldest && lr->oldest < lr->need;
}

static const struct ms_pkglog_ops dpkg_ops = {
	.begin = file_begin,
	.line = file_line,
	.end = file_end,
	.enough = reaches_back,
};

/* Newest first, until a file is missing or refused, or the log reaches before need. */
static int read_logs(struct logread *lr, const struct ms_dpkglog_opts *opts, uint64_t need,
		     struct ms_error *err)
{
	struct ms_pkglog_spec spec = {
		.dir = opts && opts->dir ? opts->dir : MS_DPKGLOG_DIR,
		.base = "dpkg.log",
		.owner = opts ? opts->owner_uid : 0,
		.files = MS_DPKGLOG_FILES,
		.file_max = MS_DPKGLOG_FILE_MAX,
		.total_max = MS_DPKGLOG_TOTAL_MAX,
	};
	struct ms_pkglog_stats st;
	int rc;

	lr->need = need;
	rc = ms_pkglog_read(&spec, &dpkg_ops, lr, &st, err);
	lr->stats->files = st.files;
	lr->stats->bytes = st.bytes;
	lr->stats->malformed += st.malformed;
	lr->stats->long_lines = st.long_lines;
	lr->stats->stopped = st.stopped;
	return rc;
}

static int event_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool arch_ok(const struct ms_pkg *p, const struct event *ev)
{
	return !p->arch[0] || !strcmp(ev->arch, p->arch) || !strcmp(ev->arch, "all");
}

/* The distinct old versions of some entries: at most two kept, more counted. */
struct cands {
	const struct event *ev[2];
	size_t n;
	bool more;
};

static void cands_add(struct cands *c, const struct event *ev)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->ev[i]->old_version, ev->old_version))
			return;
	if (c->n < 2)
		c->ev[c->n++] = ev;
	else
		c->more = true;
}

/* UNKNOWN with why, and the candidates when there are two or fewer. */
static void unknown_with(struct ms_pkg *p, const struct cands *c, const char *why)
{
	ms_pkg_running_unknown(p, "%s", why);
	if (c && !c->more && c->n)
		snprintf(p->running, sizeof(p->running), "%s", c->ev[0]->old_version);
	if (c && !c->more && c->n > 1)
		snprintf(p->running_alt, sizeof(p->running_alt), "%s", c->ev[1]->old_version);
}

static void known(struct ms_pkg *p, const char *version, const char *why)
{
	p->running_state = MS_PKG_RUNNING_KNOWN;
	p->running_alt[0] = '\0';
	snprintf(p->running, sizeof(p->running), "%s", version);
	snprintf(p->running_why, sizeof(p->running_why), "%s", why);
}

/* The index of the package's first entry (they are sorted by name, then time). */
static size_t first_of(const struct logread *lr, size_t name, uint64_t from)
{
	size_t lo = 0, hi = lr->nevents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct event *ev = &lr->events[mid];

		if (ev->name < name || (ev->name == name && ev->stamp < from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Dated by its own inode: the copy was unlinked at t (its st_ctime), in
 * the window of the entry that replaced or removed it, from the entry's
 * line to the status line that closed it (whole seconds; a second either
 * way when no window holds t exactly).
 */
static void by_inode(const struct logread *lr, struct ms_pkg *p, size_t name, time_t t)
{
	uint64_t at = ms_dpkglog_stamp(t), before = ms_dpkglog_stamp(t - 1), after = ms_dpkglog_stamp(t + 1);
	struct cands exact = { 0 }, near = { 0 }, *c = &exact;
	const struct event *last = NULL;
	char when[20], why[MS_PKG_WHY_MAX];

	if (!at || !before || !after) {
		ms_pkg_running_unknown(p, "the copy's unlink time is no date here");
		return;
	}
	ms_dpkglog_stamp_text(at, when);
	if (lr->oldest > at) {
		ms_pkg_running_unknown(p, "unlinked at %s, before the oldest line of dpkg's log read", when);
		return;
	}
	for (size_t i = first_of(lr, name, 0); i < lr->nevents && lr->events[i].name == name; i++) {
		const struct event *ev = &lr->events[i];
		uint64_t end = ev->end ? ev->end : ev->stamp;

		if (!arch_ok(p, ev) || ev->stamp > after)
			continue;
		if (ev->stamp <= at)
			last = ev;
		if (ev->stamp <= at && at <= end)
			cands_add(&exact, ev);
		else if (before <= end)
			cands_add(&near, ev);
	}
	if (!exact.n)
		c = &near;
	if (c->n == 1 && !c->more && strcmp(c->ev[0]->old_version, "<none>")) {
		const struct event *ev = c->ev[0];

		if (ev->upgrade)
			snprintf(why, sizeof(why), "unlinked at %s, by dpkg's upgrade from %.40s to %.40s", when,
				 ev->old_version, ev->new_version);
		else
			snprintf(why, sizeof(why), "unlinked at %s, by dpkg's removal of %.40s", when, ev->old_version);
		known(p, ev->old_version, why);
		return;
	}
	if (c->n) {
		snprintf(why, sizeof(why), "unlinked at %s, during %s of dpkg's upgrades or removals in that second",
			 when, c->more ? "several" : "two");
		unknown_with(p, c, why);
		return;
	}
	ms_pkg_running_unknown(p, "replaced at %s, when dpkg's log has no upgrade or removal of %.40s%s%.40s%s", when,
			       p->name, last && last->upgrade ? " (dpkg had installed " : "",
			       last && last->upgrade ? last->new_version : "", last && last->upgrade ? ")" : "");
}

/*
 * Dated by its holders' start, where the copy's own time cannot be read
 * (not root): the entries logged at or after the start (less the slack).
 * One old version among them (a chain of reinstalls is one) is the
 * answer; none, or an upgrade to another version than the one installed
 * now last, and it cannot be known.
 */
static void by_start(const struct logread *lr, struct ms_pkg *p, size_t name, time_t start)
{
	uint64_t after = ms_dpkglog_stamp(start - MS_DPKGLOG_SLACK);
	const struct event *newest = NULL;
	struct cands c = { 0 };

	if (!start || !after) {
		ms_pkg_running_unknown(p, "neither the copy's unlink time nor its holders' start is known");
		return;
	}
	if (!lr->oldest || lr->oldest >= after) {
		ms_pkg_running_unknown(p, "dpkg's log does not reach back to when its holders started");
		return;
	}
	for (size_t i = first_of(lr, name, after); i < lr->nevents && lr->events[i].name == name; i++) {
		if (!arch_ok(p, &lr->events[i]))
			continue;
		cands_add(&c, &lr->events[i]);
		newest = &lr->events[i];
	}
	if (!c.n) {
		ms_pkg_running_unknown(p, "dpkg's log has no upgrade or removal of %.40s since its holders started",
				       p->name);
		return;
	}
	if (c.n > 1 || c.more || !strcmp(c.ev[0]->old_version, "<none>")) {
		unknown_with(p, &c, "upgraded more than once since its holders started, and only root can read "
				    "when the copy was unlinked");
		return;
	}
	if (newest->upgrade && p->version[0] && strcmp(newest->new_version, p->version)) {
		ms_pkg_running_unknown(p, "dpkg's log and its database disagree on the version installed");
		return;
	}
	known(p, c.ev[0]->old_version, "dated by its holders' start: only root can read when the copy was unlinked");
}

/* The answer for p, the copy c, from the sorted entries. */
static void answer(const struct logread *lr, struct ms_pkg *p, const struct ms_copy *c)
{
	long name = find_name(lr, p->name, strnlen(p->name, sizeof(p->name)));

	if (lr->overflow) {
		ms_pkg_running_unknown(p, "dpkg's log holds too many entries to search");
		return;
	}
	if (name < 0 || !lr->oldest) {
		ms_pkg_running_unknown(p, "dpkg's log cannot be read");
		return;
	}
	if (c->unlinked.tv_sec)
		by_inode(lr, p, (size_t)name, c->unlinked.tv_sec);
	else
		by_start(lr, p, (size_t)name, c->start);
}

static bool asked(const struct ms_pkg *p)
{
	return p->found && p->source == MS_PKG_SOURCE_DPKG;
}

/* The earliest time the log must reach back to for c. */
static time_t need_of(const struct ms_copy *c)
{
	return c->unlinked.tv_sec ? c->unlinked.tv_sec - 1 : c->start - MS_DPKGLOG_SLACK;
}

int ms_dpkglog_running(const struct ms_dpkglog_opts *opts, struct ms_pkg *pkgs, const struct ms_copy *copies,
		       size_t n, struct ms_dpkglog_stats *stats, struct ms_error *err)
{
	struct ms_dpkglog_stats local;
	struct logread lr = { .stats = stats ? stats : &local };
	time_t earliest = 0;
	size_t k = 0;
	int rc = 0;

	memset(lr.stats, 0, sizeof(*lr.stats));
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i])) {
			ms_pkg_running_unknown(&pkgs[i], "dpkg's log cannot be read");
			if (!k++ || need_of(&copies[i]) < earliest)
				earliest = need_of(&copies[i]);
		}
	if (!k)
		return 0;
	lr.names = calloc(k, sizeof(*lr.names));
	if (!lr.names)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "dpkg log: out of memory");
	for (size_t i = 0; i < n; i++)
		if (asked(&pkgs[i]))
			lr.names[lr.nnames++] = pkgs[i].name;
	qsort(lr.names, lr.nnames, sizeof(*lr.names), name_cmp);
	k = 0;
	for (size_t i = 0; i < lr.nnames; i++)
		if (!k || strcmp(lr.names[k - 1], lr.names[i]))
			lr.names[k++] = lr.names[i];
	lr.nnames = k;
	rc = read_logs(&lr, opts, ms_dpkglog_stamp(earliest), err);
	if (rc == 0) {
		if (lr.nevents)
			qsort(lr.events, lr.nevents, sizeof(*lr.events), event_cmp);
		for (size_t i = 0; i < n; i++)
			if (asked(&pkgs[i]))
				answer(&lr, &pkgs[i], &copies[i]);
	}
	lr.stats->events = lr.nevents;
	free(lr.events);
	free(lr.names);
	return rc;
}
