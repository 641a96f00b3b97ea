#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elf/symbol_text.h"
#include "core/elf/symbols.h"
#include "tui/symbol_at.h"

#ifdef HAVE_LIBDW
/* statm's size, text and data pages: they move when mappings come, go or grow. */
#define STATM_FIELDS 3

struct tui_symbol_at {
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_symbols_opts opts;
	struct ms_symbols *sym;   /* made on the first look-up */
	struct ms_maplist list;   /* the index: every mapping, lent to sym */
	bool have_list;
	uint64_t statm[STATM_FIELDS]; /* read just before the list was collected */
	bool statm_ok;
	unsigned long collections;
};

struct tui_symbol_at *tui_symbol_at_new(struct ms_proc *proc, struct ms_maps *maps,
					bool debuginfod, tui_symbol_progress_fn progress,
					tui_symbol_interrupt_fn interrupt, void *arg)
{
	struct tui_symbol_at *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->proc = proc;
	s->maps = maps;
	s->opts = (struct ms_symbols_opts){ .debuginfod = debuginfod, .progress = progress,
					    .progress_arg = arg, .interrupt = interrupt,
					    .interrupt_arg = arg };
	return s;
}

/* The process's statm numbers that move with its mappings; false when unreadable. */
static bool read_statm(const struct tui_symbol_at *s, uint64_t out[STATM_FIELDS])
{
	char *buf = NULL;
	size_t len;
	bool truncated;
	struct ms_error err;
	unsigned long long size, text, data;
	bool ok;

	if (ms_proc_read_file(s->proc, "statm", 256, &buf, &len, &truncated, &err) < 0)
		return false;
	ok = !truncated && sscanf(buf, "%llu %*u %*u %llu %*u %llu", &size, &text, &data) == 3;
	free(buf);
	if (ok) {
		out[0] = size;
		out[1] = text;
		out[2] = data;
	}
	return ok;
}

/* Every mapping with its name, unfiltered: a module spans several. */
static int fresh_list(struct tui_symbol_at *s, struct ms_error *err)
{
	struct ms_maplist list = { 0 };
	unsigned fields;
	int rc;

	/* Read first: a change during the walk shows at the next look-up. */
	s->statm_ok = read_statm(s, s->statm);
	fields = ms_maps_set_fields(s->maps, MS_FIELD_NAME);
	rc = ms_maps_collect(s->maps, 0, &list, err);
	ms_maps_set_fields(s->maps, fields);
	s->collections++;
	if (rc < 0 && rc != MS_END) {
		ms_maplist_free(&list);
		return rc;
	}
	ms_maplist_free(&s->list);
	s->list = list;
	s->have_list = true;
	if (s->sym)
		ms_symbols_set_list(s->sym, &s->list);
	return 0;
}

/*
 * May addr be looked up in the list as it is?  Only when statm has not
 * moved since it was collected and the kernel, asked once at addr, names
 * the same mapping there (or none, where the list has none).  1: yes, 0:
 * collect again, or a negative ms_errcode (the process exited, exec'd).
 */
static int list_current(struct tui_symbol_at *s, uint64_t addr, struct ms_error *err)
{
	uint64_t now[STATM_FIELDS];
	struct ms_mapping m = { 0 };
	unsigned fields;
	size_t idx;
	int rc, current;

	if (!s->have_list || !s->statm_ok || !read_statm(s, now) ||
	    memcmp(now, s->statm, sizeof(now)) != 0)
		return 0;
	idx = ms_maplist_lower_bound(&s->list, addr);
	/* The identity is range, perms, offset and file: no name to ask for. */
	fields = ms_maps_set_fields(s->maps, 0);
	rc = ms_maps_next(s->maps, addr, 0, &m, err);
	ms_maps_set_fields(s->maps, fields);
	if (rc == MS_END)
		current = idx == s->list.count;
	else if (rc < 0)
		current = rc;
	else
		current = idx < s->list.count && ms_mapping_same_identity(&s->list.items[idx], &m);
	ms_mapping_reset(&m);
	return current;
}

int tui_symbol_at_describe(struct tui_symbol_at *s, uint64_t addr, unsigned escape_flags,
			   struct tui_symbol_text *out, struct ms_error *err)
{
	struct ms_symbol sym = { 0 };
	int rc;

	out->symbol[0] = out->source[0] = '\0';
	out->why = NULL;
	if ((rc = list_current(s, addr, err)) < 0)
		return rc;
	if (!rc && (rc = fresh_list(s, err)) < 0)
		return rc;
	if (!s->sym && (rc = ms_symbols_new(s->proc, &s->list, &s->opts, &s->sym, err)) < 0)
		return rc;
	rc = ms_symbols_lookup(s->sym, addr, MS_SYMBOLS_NAME | MS_SYMBOLS_SOURCE, &sym);
	if (rc == MS_ERR_NOMEM)
		return ms_error_set(err, MS_ERR_NOMEM, 0, "pid %d: out of memory for symbols",
				    (int)ms_proc_pid(s->proc));
	if (rc < 0)
		return rc;
	ms_symbol_text_name(&sym, escape_flags, out->symbol, sizeof(out->symbol));
	ms_symbol_text_source(&sym, escape_flags, out->source, sizeof(out->source));
	out->why = sym.name ? NULL : sym.why ? sym.why : "unknown";
	return 0;
}

unsigned long tui_symbol_at_collections(const struct tui_symbol_at *s)
{
	return s->collections;
}

void tui_symbol_at_free(struct tui_symbol_at *s)
{
	if (!s)
		return;
	ms_symbols_free(s->sym);
	ms_maplist_free(&s->list);
	free(s);
}
#else
struct tui_symbol_at *tui_symbol_at_new(struct ms_proc *proc, struct ms_maps *maps,
					bool debuginfod, tui_symbol_progress_fn progress,
					tui_symbol_interrupt_fn interrupt, void *arg)
{
	(void)proc; (void)maps; (void)debuginfod; (void)progress; (void)interrupt; (void)arg;
	return NULL;
}

int tui_symbol_at_describe(struct tui_symbol_at *s, uint64_t addr, unsigned escape_flags,
			   struct tui_symbol_text *out, struct ms_error *err)
{
	(void)s; (void)addr; (void)escape_flags; (void)err;
	out->symbol[0] = out->source[0] = '\0';
	out->why = "built without libdw";
	return 0;
}

unsigned long tui_symbol_at_collections(const struct tui_symbol_at *s)
{
	(void)s;
	return 0;
}

void tui_symbol_at_free(struct tui_symbol_at *s)
{
	(void)s;
}
#endif
