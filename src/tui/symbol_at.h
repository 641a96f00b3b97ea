/*
 * symbol_at.h - what code is at an address, for the maps view's g: the
 * symbol (name+0xoff) and the source line (file:line), escaped and ready
 * to show.  Curses-free; the maps view draws the text.
 *
 * A tui_symbol_at serves one process image for as long as the view shows
 * it: it is made on the first g (tui_symbol_at_new is cheap: the symbols
 * context of symbols.h, with its one Dwfl handle, is made on the first
 * lookup), and the view drops it when the process exec's (the modules it
 * reported describe the old image).  It keeps an index, every mapping of
 * the process with its name, collected through the view's engine and lent
 * to the context (ms_symbols_set_list).  A look-up uses the index as it is
 * only when the process's statm (size, text and data pages) has not moved
 * since it was collected, and one query of the kernel at the address
 * (ms_maps_next) names the same mapping there as the index does (range,
 * perms, offset, file), or none where the index has none.  Otherwise the
 * mappings are collected again first, so the symbols context never looks
 * an address up in a list the kernel disagrees with there, and files
 * mapped since are found; files already opened are not opened again.
 * tui_symbol_at_collections counts the collections, for the tests.
 *
 * Look-ups are bounded as the core's are: files on file systems served by
 * someone else are never opened, an untrusted file is read whole up to a
 * limit, and debuginfod is asked only when debuginfod is set (and
 * DEBUGINFOD_URLS is), within the core's deadline for the whole context,
 * calling progress(arg, done, total) meanwhile.
 *
 * The reader runs in a child (symbols.h); while it works, interrupt(arg)
 * is asked every 10 ms, and a true answer ends the look-up at once (its
 * why says "symbols: interrupted"), so a key pressed during a slow or
 * hostile file is handled, never queued behind it.
 *
 * Built without libdw, tui_symbol_at_new returns NULL and nothing else is
 * ever called: the explorer's g shows no symbol.
 *
 * tui_symbol_at_describe fills out for addr:
 *   - symbol: "name+0xOFF", escaped (escape_flags), or "" when no symbol
 *     covers addr; then why says why;
 *   - source: "[dir/]file:LINE", escaped, or "" when DWARF says nothing.
 * Returns 0; MS_END when no mapping covers addr; or a negative MS_ERR_*
 * (err says it; MS_ERR_EXITED or MS_ERR_EXECED when the address space is
 * gone).
 */
#ifndef MAPSCOPE_TUI_SYMBOL_AT_H
#define MAPSCOPE_TUI_SYMBOL_AT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/maps/maps.h"
#include "core/proc/proc.h"

/* Escaped text kept per part (a longer name is cut at a whole escape). */
#define TUI_SYMBOL_TEXT_MAX 2048

typedef void (*tui_symbol_progress_fn)(void *arg, long done, long total);
/* Asked while the symbol reader works: true ends the look-up (a key was pressed). */
typedef bool (*tui_symbol_interrupt_fn)(void *arg);

struct tui_symbol_text {
	char symbol[TUI_SYMBOL_TEXT_MAX];
	char source[TUI_SYMBOL_TEXT_MAX];
	const char *why; /* static text: why symbol is empty */
};

struct tui_symbol_at;

struct tui_symbol_at *tui_symbol_at_new(struct ms_proc *proc, struct ms_maps *maps,
					bool debuginfod, tui_symbol_progress_fn progress,
					tui_symbol_interrupt_fn interrupt,
					void *arg);
int tui_symbol_at_describe(struct tui_symbol_at *s, uint64_t addr, unsigned escape_flags,
			   struct tui_symbol_text *out, struct ms_error *err);
/* Whole collections of the mappings so far (0 without libdw). */
unsigned long tui_symbol_at_collections(const struct tui_symbol_at *s);
void tui_symbol_at_free(struct tui_symbol_at *s);

#endif
