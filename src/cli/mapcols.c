#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/mapcols.h"
#include "core/escape.h"

const struct cli_column mapcols[MAPCOL_COUNT] = {
	[MAPCOL_START] = { "START", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "start address (hex)" },
	[MAPCOL_END] = { "END", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "end address, exclusive (hex)" },
	[MAPCOL_SIZE] = { "SIZE", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "size of the mapping" },
	[MAPCOL_PERMS] = { "PERMS", 4, 0, SCOLS_JSON_STRING, false, "permissions: r w x, s shared or p private" },
	[MAPCOL_OFFSET] = { "OFFSET", 8, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "file offset of the start (hex)" },
	[MAPCOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the file, MAJ:MIN in decimal" },
	[MAPCOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the file, 0 if anonymous" },
	[MAPCOL_PAGESIZE] = { "PAGESIZE", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "kernel page size (hugetlb shows here)" },
	[MAPCOL_BUILDID] = { "BUILDID", 40, 0, SCOLS_JSON_STRING, false, "GNU build ID of the mapped file (hex; ioctl backend)" },
	[MAPCOL_NAME] = { "NAME", 0.3, SCOLS_FL_NOEXTREMES, SCOLS_JSON_STRING, false, "file path or [name], escaped" },
	[MAPCOL_RSS] = { "RSS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "resident memory, as smaps Rss (zero page not counted)" },
	[MAPCOL_SWAP] = { "SWAP", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "memory swapped out, as smaps Swap" },
	[MAPCOL_ADDR] = { "ADDR", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "the address looked up (hex)" },
	[MAPCOL_FILEOFF] = { "FILEOFF", 8, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "file offset that ADDR corresponds to (hex)" },
};

bool mapcols_want_residency(const int *selected, size_t nselected, int base)
{
	for (size_t i = 0; i < nselected; i++)
		if (selected[i] == base + MAPCOL_RSS || selected[i] == base + MAPCOL_SWAP)
			return true;
	return false;
}

void mapcols_note_smaps(pid_t pid)
{
	cli_error("pid %d: no PAGEMAP_SCAN (Linux 6.7): RSS and SWAP read from smaps", (int)pid);
}

unsigned mapcols_fields(const int *selected, size_t nselected)
{
	unsigned fields = 0;

	for (size_t i = 0; i < nselected; i++) {
		if (selected[i] == MAPCOL_NAME)
			fields |= MS_FIELD_NAME;
		else if (selected[i] == MAPCOL_BUILDID)
			fields |= MS_FIELD_BUILD_ID;
	}
	return fields;
}

int mapcols_residency(struct ms_proc *proc, const struct ms_maplist *list,
		      struct ms_resinfo **out)
{
	struct ms_residency *res = NULL;
	struct ms_error err;
	int rc;

	*out = NULL;
	if (!list->count)
		return CLI_EXIT_OK;
	*out = calloc(list->count, sizeof(**out));
	if (!*out) {
		cli_error("pid %d: out of memory", (int)ms_proc_pid(proc));
		return CLI_EXIT_FAIL;
	}
	rc = ms_residency_open(proc, NULL, &res, &err);
	if (rc == 0) {
		rc = ms_residency_query(res, list->items, list->count, *out, &err);
		if (rc == 0 && ms_residency_backend(res) == MS_RES_SMAPS)
			mapcols_note_smaps(ms_proc_pid(proc));
	}
	ms_residency_close(res);
	if (rc < 0) {
		cli_error_pid(ms_proc_pid(proc), &err);
		free(*out);
		*out = NULL;
		return ms_error_exit_status(err.code);
	}
	return CLI_EXIT_OK;
}

char *mapcols_render(const struct cli_opts *o, int col, const struct ms_mapping *m, uint64_t addr)
{
	return mapcols_render_res(o, col, m, addr, NULL);
}

char *mapcols_render_res(const struct cli_opts *o, int col, const struct ms_mapping *m,
			 uint64_t addr, const struct ms_resinfo *res)
{
	char buf[64];

	buf[0] = '\0';
	switch (col) {
	case MAPCOL_START: snprintf(buf, sizeof(buf), "%" PRIx64, m->start); break;
	case MAPCOL_END: snprintf(buf, sizeof(buf), "%" PRIx64, m->end); break;
	case MAPCOL_SIZE: ms_format_size(ms_mapping_size(m), o->bytes, buf, sizeof(buf)); break;
	case MAPCOL_PERMS: ms_perms_format(m->perms, buf); break;
	case MAPCOL_OFFSET: snprintf(buf, sizeof(buf), "%" PRIx64, m->offset); break;
	case MAPCOL_DEV: snprintf(buf, sizeof(buf), "%" PRIu32 ":%" PRIu32, m->dev_major, m->dev_minor); break;
	case MAPCOL_INODE: snprintf(buf, sizeof(buf), "%" PRIu64, m->inode); break;
	case MAPCOL_PAGESIZE: ms_format_size(m->page_size, o->bytes, buf, sizeof(buf)); break;
	case MAPCOL_BUILDID:
		for (uint32_t i = 0; i < m->build_id_len && i < MS_BUILD_ID_MAX; i++)
			snprintf(buf + 2 * i, sizeof(buf) - 2 * i, "%02x", m->build_id[i]);
		break;
	case MAPCOL_NAME:
		if (m->name_truncated)
			return strdup("(name longer than PATH_MAX)");
		return ms_escape_dup(m->name ? m->name : "", m->name_len, o->escape_flags);
	case MAPCOL_RSS:
		if (res)
			ms_format_size(res->rss, o->bytes, buf, sizeof(buf));
		break;
	case MAPCOL_SWAP:
		if (res)
			ms_format_size(res->swap, o->bytes, buf, sizeof(buf));
		break;
	case MAPCOL_ADDR: snprintf(buf, sizeof(buf), "%" PRIx64, addr); break;
	case MAPCOL_FILEOFF:
		if (ms_mapping_is_file_backed(m))
			snprintf(buf, sizeof(buf), "%" PRIx64, m->offset + (addr - m->start));
		break;
	default: break;
	}
	return strdup(buf);
}

int mapcols_add_line(struct libscols_table *tb, const struct cli_opts *o,
		     const int *selected, size_t nselected,
		     const struct ms_mapping *m, uint64_t addr)
{
	return mapcols_add_line_res(tb, o, selected, nselected, m, addr, NULL);
}

int mapcols_add_line_res(struct libscols_table *tb, const struct cli_opts *o,
			 const int *selected, size_t nselected,
			 const struct ms_mapping *m, uint64_t addr,
			 const struct ms_resinfo *res)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);

	if (!ln)
		return -1;
	for (size_t i = 0; i < nselected; i++) {
		char *text = mapcols_render_res(o, selected[i], m, addr, res);

		/* refer: the line takes ownership and frees it. */
		if (!text || scols_line_refer_data(ln, i, text) != 0) {
			free(text);
			return -1;
		}
	}
	return 0;
}
