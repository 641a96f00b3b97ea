#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "proclist.h"
#include "fleet.h"
#include "proclist_backend.h"
#include "stale.h"
#include "grow.h"

enum ms_proclist_source ms_proclist_default_source(void)
{
#ifdef HAVE_LIBPROC2
	return MS_PROCLIST_LIBPROC2;
#else
	return MS_PROCLIST_PROCFS;
#endif
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

struct ms_proclist_memo {
	pid_t pid;
	unsigned long long start_time;
	size_t files;      /* file-backed executable mappings */
	uint64_t hash;     /* of their start, device and inode */
	unsigned age;      /* scans since the files were judged */
	size_t stale;
};

static uint64_t fold(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

static int memo_cmp(const void *key, const void *elem)
{
	pid_t pid = *(const pid_t *)key, other = ((const struct ms_proclist_memo *)elem)->pid;

	return (pid > other) - (pid < other);
}

static const struct ms_proclist_memo *memo_find(const struct ms_proclist *list, pid_t pid)
{
	return list->memo_count ? bsearch(&pid, list->memo, list->memo_count, sizeof(*list->memo), memo_cmp)
				: NULL;
}

/*
 * The stale count of row's process: the previous one when its mappings
 * did not change and it is not due, else judged now.  *now is its new memo.
 */
static void count_stale(const struct ms_proclist *list, struct ms_procrow *row,
			struct ms_stale_ctx *stale, struct ms_maps *maps,
			struct ms_proclist_memo *now, size_t *judged)
{
	const struct ms_proclist_memo *was = memo_find(list, row->pid);
	unsigned every = list->rejudge_every ? list->rejudge_every : MS_PROCLIST_REJUDGE_EVERY;
	struct ms_stale_counts counts;
	struct ms_error err;

	if (was && was->start_time == now->start_time && was->files == now->files &&
	    was->hash == now->hash && was->age + 1 < every) {
		now->age = was->age + 1;
		now->stale = was->stale;
		row->stale = was->stale;
		row->stale_counted = true;
		return;
	}
	/* Names only: the scan asks for a build ID where a verdict needs one. */
	ms_maps_set_fields(maps, MS_FIELD_NAME);
	(*judged)++;
	row->stale_judged = true;
	if (ms_stale_count(stale, maps, 0, &counts, &err) == 0) {
		row->stale = now->stale = counts.stale;
		row->stale_counted = true;
	}
}

/* Counting walks every mapping: only the process list pays this, once a tick. */
static void count_maps(const struct ms_proclist *list, struct ms_procrow *row,
		       struct ms_stale_ctx *stale, struct ms_proclist_memo *memo, size_t *judged)
{
	unsigned stale_filter = ms_stale_filter(0);
	struct ms_mapping m = { 0 };
	struct ms_proc *proc = NULL;
	struct ms_maps *maps = NULL;
	struct ms_error err;
	uint64_t addr = 0;
	int rc;

	if (row->kthread) {
		row->maps_err = MS_ERR_NOMM;
		row->maps_why = why(MS_ERR_NOMM);
		return;
	}
	rc = ms_fleet_open_one(row->pid, list->backend, &proc, &maps, &err);
	/* Counting needs ranges only: no d_path, no ELF header reads. */
	if (rc == 0)
		ms_maps_set_fields(maps, 0);
	while (rc == 0) {
		rc = ms_maps_next(maps, addr, 0, &m, &err);
		if (rc < 0)
			break;
		row->nmaps++;
		row->mapped += ms_mapping_size(&m);
		if (ms_mapping_matches(&m, stale_filter)) {
			memo->files++;
			memo->hash = fold(fold(fold(memo->hash, m.start), m.inode),
					  ((uint64_t)m.dev_major << 32) | m.dev_minor);
		}
		addr = m.end;
		ms_mapping_reset(&m);
	}
	if (rc == MS_END)
		rc = 0;
	if (rc == 0 && stale) {
		memo->pid = row->pid;
		memo->start_time = ms_proc_stat_at_open(proc)->start_time;
		count_stale(list, row, stale, maps, memo, judged);
	}
	if (rc < 0) {
		row->maps_err = rc;
		row->maps_why = why(rc);
	}
	ms_maps_close(maps);
	ms_proc_close(proc);
}

/* Count every row; with stale, the memo of this scan replaces the last one. */
static void count_all(struct ms_proclist *list, struct ms_stale_ctx *stale)
{
	struct ms_proclist_memo *memo = stale && list->count ? calloc(list->count, sizeof(*memo)) : NULL;
	struct ms_proclist_memo scratch;
	size_t kept = 0;

	list->judged = 0;
	for (size_t i = 0; i < list->count; i++) {
		struct ms_proclist_memo *now = memo ? &memo[kept] : &scratch;

		memset(now, 0, sizeof(*now));
		/* Out of memory for the memo: judge every process, as with no memo. */
		count_maps(list, &list->rows[i], stale, now, &list->judged);
		if (memo && list->rows[i].stale_counted)
			kept++;
	}
	free(list->memo);
	list->memo = memo;
	list->memo_count = kept;
}

static int row_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct ms_procrow *)a)->pid, y = ((const struct ms_procrow *)b)->pid;

	return (x > y) - (x < y);
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
	ms_proclist_clear(list);
	rc = ops->scan(list, err);
	if (rc < 0)
		return rc;
	qsort(list->rows, list->count, sizeof(*list->rows), row_cmp);
	if (flags & MS_PROCLIST_COUNT_MAPS)
		count_all(list, stale);
	return 0;
}

void ms_proclist_clear(struct ms_proclist *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->rows[i].cmd);
	list->count = 0;
}

void ms_proclist_free(struct ms_proclist *list)
{
	ms_proclist_clear(list);
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
