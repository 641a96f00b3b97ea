/*
 * symindex.h - a module's symbols sorted by address, so that naming an
 * address costs a binary search rather than libdw's walk over the whole
 * symbol table, which dwfl_module_addrinfo makes for every address.
 * Internal to symbols.h.
 *
 * The answer is always the one dwfl_module_addrinfo gives (the same name,
 * the same offset); the fuzz target for symbol tables compares the two.
 * libdw's choice, as the index keeps it:
 *   - a symbol takes part when dwfl_module_getsym_info gives it a name that
 *     is not empty, it is defined (st_shndx not SHN_UNDEF), it is not a
 *     section, file or TLS symbol, and its address (the one getsym_info
 *     gives) is not above the address asked about;
 *   - the table from dwfl_module_getsymtab_first_global on (the globals)
 *     is asked first; the symbols before it (the locals) only when no
 *     global symbol with a size covers the address;
 *   - of the symbols with a size that cover the address, taken in table
 *     order, a later one replaces the one chosen so far when it starts
 *     higher, or binds more strongly (global, then weak, then local, then
 *     any other binding), or starts at the same address, is smaller and
 *     binds no more weakly;
 *   - when no symbol with a size covers the address, libdw may still name
 *     it by a symbol without a size in the same section, but only one that
 *     starts where the highest end of the taking-part symbols below the
 *     address lies (or exactly at the address, for the globals).  The index
 *     checks whether such a symbol exists at all; when one does, it asks
 *     dwfl_module_addrinfo itself (section ranges are libdw's business),
 *     and when none does, the answer is no symbol.
 * A lookup looks at no more than a few thousand entries (a table crafted
 * to pile symbols over one address would take longer); past that it asks
 * libdw, whose scan takes as long whatever the table.
 * Machines whose function symbols name descriptors (64-bit PowerPC) get no
 * index: libdw looks up their symbols at two addresses.
 *
 * ms_symindex_build returns 0, MS_END (no index for this module: ask
 * libdw), MS_ERR_LIMIT (more than max symbols take part: ask libdw) or
 * MS_ERR_NOMEM.  An index holds about 32 bytes per symbol.  It belongs to
 * its module: ms_symindex_addrinfo must be given the same module, and the
 * names it returns live as long as the module's Dwfl.
 */
#ifndef MAPSCOPE_SYMINDEX_H
#define MAPSCOPE_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

struct ms_symindex;

int ms_symindex_build(Dwfl_Module *mod, size_t max, struct ms_symindex **out);
/* The symbol's name and addr's offset into it, or NULL (no symbol). */
const char *ms_symindex_addrinfo(struct ms_symindex *ix, Dwfl_Module *mod, uint64_t addr,
				 uint64_t *off);
/* How many symbols take part (what the index holds). */
size_t ms_symindex_count(const struct ms_symindex *ix);
/*
 * For the fuzz target: asks both the index and dwfl_module_addrinfo about
 * the first and last byte of every indexed symbol and the byte either side
 * (at most MS_SYMINDEX_CHECK_MAX symbols); 0 when they always agree, else
 * -1 and *where is an address they differ on.
 */
#define MS_SYMINDEX_CHECK_MAX 4096u
int ms_symindex_check(struct ms_symindex *ix, Dwfl_Module *mod, uint64_t *where);
void ms_symindex_free(struct ms_symindex *ix);

#endif
