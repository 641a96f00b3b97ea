#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/mapcols.h"
#include "core/base/escape.h"
#include "core/base/units.h"
#include "core/elf/buildid.h"

const struct cli_column mapcols[MAPCOL_COUNT] = {
	[MAPCOL_START] = { "START", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "start address (hex)" },
	[MAPCOL_END] = { "END", 12, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "end address, exclusive (hex)" },
	[MAPCOL_SIZE] = { "SIZE", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "size of the mapping" },
	[MAPCOL_PERMS] = { "PERMS", 4, 0, SCOLS_JSON_STRING, false, "permissions: r w x, s shared or p private" },
	[MAPCOL_OFFSET] = { "OFFSET", 8, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, false, "file offset of the start (hex)" },
	[MAPCOL_DEV] = { "DEV", 5, 0, SCOLS_JSON_STRING, false, "device of the file, MAJ:MIN in decimal" },
	[MAPCOL_INODE] = { "INODE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, false, "inode of the file, 0 if anonymous" },
	[MAPCOL_PAGESIZE] = { "PAGESIZE", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, true, "kernel page size (hugetlb shows here)" },
	[MAPCOL_BUILDID] = CLI_FACT(BUILDID, 40, 0, "(ioctl backend)"),
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
		else if (selected[i] == MAPCOL_PAGESIZE)
			fields |= MS_FIELD_PAGE_SIZE;
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

static const char name_too_long[] = "(name longer than PATH_MAX)";

size_t mapcols_cell_max(int col, const struct ms_mapping *m)
{
	if (col == MAPCOL_NAME)
		return m->name_truncated ? sizeof(name_too_long) : ms_escape_bound(m->name_len);
	return MAPCOL_CELL_MAX;
}

static size_t size_cell(uint64_t size, const struct cli_opts *o, char *dst)
{
	return ms_format_size(size, o->bytes, dst, MAPCOL_CELL_MAX);
}

size_t mapcols_render_to(const struct cli_opts *o, int col, const struct ms_mapping *m,
			 uint64_t addr, const struct ms_resinfo *res, char *dst)
{
	size_t n = 0;

	switch (col) {
	case MAPCOL_START: n = ms_format_hex(m->start, dst); break;
	case MAPCOL_END: n = ms_format_hex(m->end, dst); break;
	case MAPCOL_SIZE: n = size_cell(ms_mapping_size(m), o, dst); break;
	case MAPCOL_PERMS: ms_perms_format(m->perms, dst); n = 4; break;
	case MAPCOL_OFFSET: n = ms_format_hex(m->offset, dst); break;
	case MAPCOL_DEV:
		n = ms_format_dec(m->dev_major, dst);
		dst[n++] = ':';
		n += ms_format_dec(m->dev_minor, dst + n);
		break;
	case MAPCOL_INODE: n = ms_format_dec(m->inode, dst); break;
	case MAPCOL_PAGESIZE: n = size_cell(m->page_size, o, dst); break;
	case MAPCOL_BUILDID:
		ms_buildid_hex(m->build_id, m->build_id_len < MS_BUILD_ID_MAX ? m->build_id_len : MS_BUILD_ID_MAX, dst);
		return strlen(dst);
	case MAPCOL_NAME:
		if (m->name_truncated) {
			memcpy(dst, name_too_long, sizeof(name_too_long));
			return sizeof(name_too_long) - 1;
		}
		return ms_escape(m->name ? m->name : "", m->name_len, dst,
				 ms_escape_bound(m->name_len), o->escape_flags);
	case MAPCOL_RSS:
		if (res)
			n = size_cell(res->rss, o, dst);
		break;
	case MAPCOL_SWAP:
		if (res)
			n = size_cell(res->swap, o, dst);
		break;
	case MAPCOL_ADDR: n = ms_format_hex(addr, dst); break;
	case MAPCOL_FILEOFF:
		if (ms_mapping_is_file_backed(m))
			n = ms_format_hex(m->offset + (addr - m->start), dst);
		break;
	default: break;
	}
	dst[n] = '\0';
	return n;
}

char *mapcols_render_res(const struct cli_opts *o, int col, const struct ms_mapping *m,
			 uint64_t addr, const struct ms_resinfo *res)
{
	char *text = malloc(mapcols_cell_max(col, m));

	if (text)
		mapcols_render_to(o, col, m, addr, res, text);
	return text;
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
