#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/maps.h"
#include "procs/proclist.h"
#include "maps/fleet.h"
#include "procs/proclist_backend.h"
#include "stale/stale.h"
#include "base/grow.h"

enum ms_proclist_source ms_proclist_default_source(void)
{
#ifdef HAVE_LIBPROC2
	if (ms_proclist_libproc2_available())
		return MS_PROCLIST_LIBPROC2;
#endif
	return MS_PROCLIST_PROCFS;
}

const char *ms_proclist_source_name(enum ms_proclist_source src)
{
	if (src == MS_PROCLIST_AUTO)
		src = ms_proclist_default_source();
	return src == MS_PROCLIST_LIBPROC2 ? "libproc2" : "proc";
}

static void user_name(uid_t uid, char out[MS_PROCLIST_USER_MAX])
{
	struct passwd pw, *found = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found &&
	    strlen(found->pw_name) < MS_PROCLIST_USER_MAX)
		snprintf(out, MS_PROCLIST_USER_MAX, "%s", found->pw_name);
	else
		snprintf(out, MS_PROCLIST_USER_MAX, "%u", (unsigned)uid);
}

int ms_proclist_append(struct ms_proclist *list, pid_t pid, uid_t uid, const char *user,
		       bool kthread, const char *cmdline, size_t len, const char *comm,
		       struct ms_error *err)
{
	struct ms_procrow *row;
	char *cmd;

	if (ms_grow((void **)&list->rows, &list->capacity, list->count, sizeof(*list->rows), 256) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
	while (len && cmdline[len - 1] == '\0')
		len--;
	if (len > MS_PROCLIST_CMD_MAX)
		len = MS_PROCLIST_CMD_MAX;
	if (len) {
		cmd = malloc(len + 1);
		if (cmd) {
			for (size_t i = 0; i < len; i++)
				cmd[i] = cmdline[i] ? cmdline[i] : ' ';
			cmd[len] = '\0';
		}
	} else if (asprintf(&cmd, "[%s]", comm ? comm : "?") < 0) {
		cmd = NULL;
	} else {
		len = strlen(cmd);
	}
	if (!cmd)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "process list: out of memory");
	row = &list->rows[list->count++];
	memset(row, 0, sizeof(*row));
	row->pid = pid;
	row->uid = uid;
	if (user && strlen(user) < MS_PROCLIST_USER_MAX)
		snprintf(row->user, sizeof(row->user), "%s", user);
	else
		user_name(uid, row->user);
	row->kthread = kthread;
	row->cmd = cmd;
	row->cmd_len = len;
	return 0;
}

static const char *why(int code)
{
	switch (code) {
	case MS_ERR_NOACCESS: return "no access";
	case MS_ERR_NOMM: return "no user memory";
	case MS_ERR_EXITED: return "exited";
	default: return "unreadable";
	}
}

void ms_proclist_set_stat(struct ms_procrow *row, char state, unsigned long long start_time,
			  const struct ms_proclist_statm *statm)
{
	long page = sysconf(_SC_PAGESIZE);

	row->state = state;
	row->start_time = start_time;
	row->statm_read = statm->read;
	if (statm->read) {
		row->rss = statm->resident * (uint64_t)(page > 0 ? page : 4096);
		row->statm[0] = statm->size;
		row->statm[1] = statm->text;
		row->statm[2] = statm->data;
	}
	if (row->kthread || state == 'Z') {
		row->maps_err = row->kthread ? MS_ERR_NOMM : MS_ERR_EXITED;
		/* Short enough for the MAPPED column. */
		row->maps_why = row->kthread ? "kernel" : "zombie";
	}
}

struct ms_proclist_memo {
	pid_t pid;
	unsigned long long start_time;
	bool counted;      /* walked at least once */
	enum ms_backend backend; /* the walk's: another backend counts otherwise */
	uint64_t statm[3]; /* size, text and data pages at the last walk */
	unsigned age;      /* counts since the last walk */
	unsigned stale_age; /* counts since the files were judged */
	size_t nmaps;
	uint64_t mapped;
	size_t files;      /* file-backed executable mappings */
	uint64_t hash;     /* of their start, device and inode */
	bool stale_counted;
	size_t stale;
	bool other_root;   /* under another root than ours, and where */
	bool has_container;
	struct ms_container container;
};

static uint64_t fold(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

/* Judge row's stale files now, or keep the last count when nothing is due. */
/*
 * How many counts a walk stands for: rejudge_every, plus one per 1,000
 * mappings the process had, so that the periodic walk of a process of
 * 60,000 mappings (tens of milliseconds) is not paid every few seconds.
 */
static unsigned every_for(const struct ms_proclist *list, const struct ms_proclist_memo *was)
{
	unsigned every = list->rejudge_every ? list->rejudge_every : MS_PROCLIST_REJUDGE_EVERY;

	return every + (unsigned)(was->nmaps / 1000);
}

static void count_stale(const struct ms_proclist *list, struct ms_procrow *row,
			struct ms_stale_ctx *stale, struct ms_maps *maps,
			const struct ms_proclist_memo *was, struct ms_proclist_memo *now)
{
	unsigned every = every_for(list, was);
	struct ms_stale_counts counts;
	struct ms_error err;

	if (was->stale_counted && was->start_time == now->start_time && was->files == now->files &&
	    was->hash == now->hash && was->stale_age + 1 < every) {
		now->stale_age = was->stale_age + 1;
		return;
	}
	/* Names only: the scan asks for a build ID where a verdict needs one. */
	ms_maps_set_fields(maps, MS_FIELD_NAME);
	row->stale_judged = true;
	now->stale_counted = false;
	now->stale_age = 0;
	if (ms_stale_count(stale, maps, 0, &counts, &err) == 0) {
		now->stale = counts.stale;
		now->stale_counted = true;
	}
}

struct tally {
	struct ms_proclist_memo *now;
	unsigned stale_filter;
};

/* One mapping of the count: its size, and its file in the fingerprint when stale would judge it. */
static int tally_one(void *arg, struct ms_mapping *m)
{
	struct tally *t = arg;
	struct ms_proclist_memo *now = t->now;

	now->nmaps++;
	now->mapped += ms_mapping_size(m);
	if (ms_mapping_matches(m, t->stale_filter)) {
		now->files++;
		now->hash = fold(fold(fold(now->hash, m->start), m->inode),
				 ((uint64_t)m->dev_major << 32) | m->dev_minor);
	}
	return 0;
}

/*
 * Walk row's mappings: count them, fingerprint its executable files.  A
 * walk of everything, so ms_maps_walk reads the text where it is cheaper
 * than a query per mapping (maps.h): about 5x at 60,000 mappings.
 */
static int walk(const struct ms_proclist *list, struct ms_procrow *row, struct ms_stale_ctx *stale,
		const struct ms_proclist_memo *was, struct ms_proclist_memo *now)
{
	struct tally tally = { .now = now, .stale_filter = ms_stale_filter(0) };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error err;
	int rc = ms_fleet_open_one(row->pid, list->backend, &proc, &maps, NULL, &err);

	now->nmaps = 0;
	now->mapped = 0;
	now->files = 0;
	now->hash = 0;
	/* The PID named another process by the time we opened it. */
	if (rc == 0 && ms_proc_stat_at_open(proc)->start_time != row->start_time)
		rc = MS_ERR_EXITED;
	/* Counting needs ranges only: no d_path, no ELF header reads. */
	if (rc == 0) {
		ms_maps_set_fields(maps, 0);
		/* In the background, for the CPU budget: no second thread per process. */
		ms_maps_set_read_ahead(maps, false);
		rc = ms_maps_walk(maps, 0, 0, tally_one, &tally, &err);
	}
	if (rc == 0 && stale)
		count_stale(list, row, stale, maps, was, now);
	if (rc == 0 && stale) {
		now->other_root = ms_stale_ctx_other_root(stale, proc);
		now->has_container = now->other_root && ms_container_of(proc, &now->container) == 0;
	}
	ms_maps_close(maps);
	ms_proc_close(proc);
	return rc;
}

/* Show what now holds on row. */
static void apply_memo(struct ms_procrow *row, const struct ms_proclist_memo *now)
{
	row->counted = now->counted;
	row->nmaps = now->nmaps;
	row->mapped = now->mapped;
	row->stale_counted = now->stale_counted;
	row->stale = now->stale;
	row->other_root = now->other_root;
	row->has_container = now->has_container;
	row->container = now->container;
}

/* Count row i: walk it if its mappings may have changed, else reuse its memo. */
static void count_row(struct ms_proclist *list, size_t i, struct ms_stale_ctx *stale,
		      struct ms_proclist_memo *now)
{
	struct ms_procrow *row = &list->rows[i];
	struct ms_proclist_memo was = *now;
	unsigned every = every_for(list, &was);
	int rc;

	if (row->kthread || row->state == 'Z')
		return; /* nothing to walk: ms_proclist_set_stat said why */
	row->maps_err = 0;
	row->maps_why = NULL;
	if (was.counted && was.backend == list->backend && row->statm_read &&
	    !memcmp(row->statm, was.statm, sizeof(was.statm)) &&
	    was.age + 1 < every && (was.stale_counted || !stale)) {
		now->age++;
		now->stale_age++;
		apply_memo(row, now);
		return;
	}
	list->walked++;
	rc = walk(list, row, stale, &was, now);
	if (rc < 0) {
		row->maps_err = rc;
		row->maps_why = why(rc);
		now->counted = false;
		return;
	}
	now->counted = true;
	now->backend = list->backend;
	now->age = 0;
	memcpy(now->statm, row->statm, sizeof(now->statm));
	if (row->stale_judged)
		list->judged++;
	apply_memo(row, now);
}

void ms_proclist_count(struct ms_proclist *list, const size_t *which, size_t n,
		       struct ms_stale_ctx *stale, bool only_new)
{
	struct ms_proclist_memo scratch;

	list->walked = 0;
	list->judged = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = which ? which[k] : k;
		struct ms_proclist_memo *now = &scratch;

		if (i >= list->count)
			continue;
		if (list->memo && list->memo_count == list->count) {
			now = &list->memo[i];
		} else {
			/* Out of memory for the memo: walk every process, as with no memo. */
			memset(&scratch, 0, sizeof(scratch));
			scratch.pid = list->rows[i].pid;
			scratch.start_time = list->rows[i].start_time;
		}
		if (only_new && (now->counted || list->rows[i].maps_err))
			continue;
		count_row(list, i, stale, now);
		/* A count kept from a scan with stale files judged is not this one's. */
		if (!stale)
			list->rows[i].stale_counted = false;
	}
}

static int memo_cmp(const void *key, const void *elem)
{
	pid_t pid = *(const pid_t *)key, other = ((const struct ms_proclist_memo *)elem)->pid;

	return (pid > other) - (pid < other);
}

/* A memo for the new rows, from the last one: the same PID and start time keep theirs. */
static void carry_memo(struct ms_proclist *list)
{
	struct ms_proclist_memo *memo = list->count ? calloc(list->count, sizeof(*memo)) : NULL;

	for (size_t i = 0; memo && i < list->count; i++) {
		struct ms_procrow *row = &list->rows[i];
		const struct ms_proclist_memo *was =
			list->memo_count ? bsearch(&row->pid, list->memo, list->memo_count,
						   sizeof(*list->memo), memo_cmp) : NULL;

		if (was && was->start_time == row->start_time) {
			memo[i] = *was;
			apply_memo(row, &memo[i]);
		} else {
			memo[i].pid = row->pid;
			memo[i].start_time = row->start_time;
		}
	}
	free(list->memo);
	list->memo = memo;
	list->memo_count = memo ? list->count : 0;
}

static int row_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ms_procrow *)a)->pid, y = ((const struct ms_procrow *)b)->pid;

	return (x > y) - (x < y);
}

static void proclist_clear(struct ms_proclist *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->rows[i].cmd);
	list->count = 0;
}

int ms_proclist_scan(enum ms_proclist_source src, unsigned flags,
		     struct ms_proclist *list, struct ms_error *err)
{
	return ms_proclist_scan_stale(src, flags, NULL, list, err);
}

int ms_proclist_scan_stale(enum ms_proclist_source src, unsigned flags,
			   struct ms_stale_ctx *stale, struct ms_proclist *list,
			   struct ms_error *err)
{
	const struct ms_proclist_ops *ops = &ms_proclist_procfs_ops;
	int rc;

	if (src == MS_PROCLIST_AUTO)
		src = ms_proclist_default_source();
	if (src == MS_PROCLIST_LIBPROC2) {
#ifdef HAVE_LIBPROC2
		ops = &ms_proclist_libproc2_ops;
#else
		return ms_error_set(err, MS_ERR_NOTSUP, 0, "process list: built without libproc2");
#endif
	}
	proclist_clear(list);
	rc = ops->scan(list, err);
	if (rc < 0)
		return rc;
	qsort(list->rows, list->count, sizeof(*list->rows), row_cmp);
	carry_memo(list);
	if (flags & MS_PROCLIST_COUNT_MAPS)
		ms_proclist_count(list, NULL, list->count, stale, false);
	return 0;
}

void ms_proclist_free(struct ms_proclist *list)
{
	proclist_clear(list);
	free(list->memo);
	free(list->rows);
	memset(list, 0, sizeof(*list));
}

size_t ms_proclist_find(const struct ms_proclist *list, pid_t pid)
{
	size_t lo = 0, hi = list->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list->rows[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < list->count && list->rows[lo].pid == pid ? lo : list->count;
}
