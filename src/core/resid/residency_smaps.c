/*
 * The smaps backend, for kernels without PAGEMAP_SCAN (before 6.7).
 *
 * /proc/PID/smaps is one record per mapping: a header line as in maps
 * ("START-END PERMS ..."), then "Field:   N kB" lines (show_smap() and
 * __show_smap() in fs/proc/task_mmu.c).  The kernel builds each record when
 * it is read, walking that mapping's page tables, so reading stops after
 * the record of the last mapping asked for: the rest is never computed.
 *
 * Field lines start with a capital letter; header lines with a lowercase
 * hex address, so a header can never be taken for a field whatever the
 * mapped file is called (and smaps escapes a newline in a name as \012).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resid/residency_backend.h"

#define SMAPS_CHUNK (64u * 1024)
/* A header carries a path of up to PATH_MAX bytes; longer lines are skipped. */
#define SMAPS_LINE_MAX (16u * 1024)

struct smaps_walk {
	const struct ms_mapping *maps;
	struct ms_resinfo *out;
	size_t count;
	size_t next;            /* first mapping not yet passed */
	struct ms_resinfo *cur; /* the record being read, if asked for */
	bool done;
};

static bool parse_header(const char *line, size_t len, uint64_t *start, uint64_t *end)
{
	char buf[64], *dash, *stop;
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	if (!n || !((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')))
		return false;
	memcpy(buf, line, n);
	buf[n] = '\0';
	errno = 0;
	*start = strtoull(buf, &dash, 16);
	if (*dash != '-')
		return false;
	*end = strtoull(dash + 1, &stop, 16);
	return errno == 0 && *stop == ' ' && *end > *start;
}

/* "Name:   123 kB" -> bytes; false when the line is not that field. */
static bool field_bytes(const char *line, size_t len, const char *name, uint64_t *bytes)
{
	size_t n = strlen(name);
	char buf[48], *stop;
	uint64_t kb;

	if (len <= n || memcmp(line, name, n) != 0 || line[n] != ':' || len - n > sizeof(buf) - 1)
		return false;
	memcpy(buf, line + n + 1, len - n - 1);
	buf[len - n - 1] = '\0';
	errno = 0;
	kb = strtoull(buf, &stop, 10);
	if (errno || stop == buf || strncmp(stop, " kB", 3) != 0 || kb > UINT64_MAX / 1024)
		return false;
	*bytes = kb * 1024;
	return true;
}

static void smaps_field(struct ms_resinfo *info, const char *line, size_t len)
{
	static const char *const huge_fields[] = {
		"AnonHugePages", "ShmemPmdMapped", "FilePmdMapped",
	};
	static const char *const hugetlb_fields[] = { "Shared_Hugetlb", "Private_Hugetlb" };
	uint64_t v;

	if (field_bytes(line, len, "Rss", &v)) {
		info->rss = v;
		return;
	}
	if (field_bytes(line, len, "Pss", &v)) {
		info->pss = v;
		info->pss_known = true;
		return;
	}
	if (field_bytes(line, len, "Swap", &v)) {
		info->swap = v;
		return;
	}
	/* USS: the private pages; DIRTY: the written ones, private or shared (proc(5), smaps). */
	if (field_bytes(line, len, "Private_Clean", &v)) {
		info->uss += v;
		return;
	}
	if (field_bytes(line, len, "Private_Dirty", &v)) {
		info->uss += v;
		info->dirty += v;
		return;
	}
	if (field_bytes(line, len, "Shared_Dirty", &v)) {
		info->dirty += v;
		return;
	}
	for (size_t i = 0; i < sizeof(huge_fields) / sizeof(huge_fields[0]); i++) {
		if (field_bytes(line, len, huge_fields[i], &v)) {
			info->huge += v;
			return;
		}
	}
	for (size_t i = 0; i < sizeof(hugetlb_fields) / sizeof(hugetlb_fields[0]); i++) {
		if (field_bytes(line, len, hugetlb_fields[i], &v)) {
			info->hugetlb += v;
			info->huge += v;
			return;
		}
	}
}

static void smaps_line(struct smaps_walk *w, const char *line, size_t len)
{
	uint64_t start, end;

	if (!parse_header(line, len, &start, &end)) {
		if (w->cur)
			smaps_field(w->cur, line, len);
		return;
	}
	w->cur = NULL;
	w->next = ms_res_skip_before(w->maps, w->next, w->count, start);
	if (w->next == w->count) {
		w->done = true;
		return;
	}
	/* A mapping that changed since it was listed matches no record: it stays zero. */
	if (w->maps[w->next].start == start && w->maps[w->next].end == end)
		w->cur = &w->out[w->next];
}

/* Feed whole lines of buf to the walk; returns the bytes consumed. */
static size_t smaps_lines(struct smaps_walk *w, const char *buf, size_t len, bool *skipping)
{
	size_t used = 0;

	while (used < len && !w->done) {
		const char *nl = memchr(buf + used, '\n', len - used);
		size_t n;

		if (!nl)
			break;
		n = (size_t)(nl - (buf + used));
		if (!*skipping)
			smaps_line(w, buf + used, n);
		*skipping = false;
		used += n + 1;
	}
	return used;
}

static int smaps_query(struct ms_residency *res, const struct ms_mapping *maps,
		       size_t count, struct ms_resinfo *out, struct ms_error *err)
{
	struct smaps_walk w = { .maps = maps, .out = out, .count = count };
	size_t have = 0;
	bool skipping = false;
	char *buf;
	int fd, rc = 0;

	fd = ms_res_openat(res, "smaps", err);
	if (fd < 0)
		return fd;
	buf = malloc(SMAPS_LINE_MAX + SMAPS_CHUNK);
	if (!buf) {
		close(fd);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "pid %d: out of memory",
				    (int)ms_proc_pid(res->proc));
	}
	res->stats.smaps_reads++;
	while (!w.done) {
		ssize_t n = read(fd, buf + have, SMAPS_LINE_MAX + SMAPS_CHUNK - have);
		size_t used;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ms_error_set(err, MS_ERR_IO, errno, "pid %d: reading smaps: %s",
					  (int)ms_proc_pid(res->proc), strerror(errno));
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		used = smaps_lines(&w, buf, have, &skipping);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have >= SMAPS_LINE_MAX) {
			/* An overlong line: drop it up to its newline. */
			have = 0;
			skipping = true;
		}
	}
	free(buf);
	close(fd);
	return rc;
}

const struct ms_res_ops ms_res_smaps_ops = {
	.kind = MS_RES_SMAPS,
	.query = smaps_query,
};
