#include "config.h"

#include <stdlib.h>

#include "core/elf/symbol_text.h"
#include "core/elf/symbols.h"
#include "tui/symbol_at.h"

#ifdef HAVE_LIBDW
struct tui_symbol_at {
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_symbols_opts opts;
	struct ms_symbols *sym;   /* made on the first look-up */
	struct ms_maplist list;   /* lent to sym */
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

/* Every mapping with its name, unfiltered: a module spans several. */
static int fresh_list(struct tui_symbol_at *s, struct ms_error *err)
{
	struct ms_maplist list = { 0 };
	unsigned fields = ms_maps_set_fields(s->maps, MS_FIELD_NAME);
	int rc = ms_maps_collect(s->maps, 0, &list, err);

	ms_maps_set_fields(s->maps, fields);
	if (rc < 0 && rc != MS_END) {
		ms_maplist_free(&list);
		return rc;
	}
	ms_maplist_free(&s->list);
	s->list = list;
	if (s->sym)
		ms_symbols_set_list(s->sym, &s->list);
	return 0;
}

int tui_symbol_at_describe(struct tui_symbol_at *s, uint64_t addr, unsigned escape_flags,
			   struct tui_symbol_text *out, struct ms_error *err)
{
	struct ms_symbol sym = { 0 };
	int rc;

	out->symbol[0] = out->source[0] = '\0';
	out->why = NULL;
	if ((rc = fresh_list(s, err)) < 0)
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

void tui_symbol_at_free(struct tui_symbol_at *s)
{
	(void)s;
}
#endif
