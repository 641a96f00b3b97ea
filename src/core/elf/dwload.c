#include "config.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>

#include "base/dlload.h"
#include "elf/dwload.h"

/* Every function forwarded, as X(name); the pointers have libdw's types. */
#define DW_FUNCS(X) \
	X(dwfl_begin) X(dwfl_end) X(dwfl_line_comp_dir) X(dwfl_lineinfo) \
	X(dwfl_module_addrinfo) X(dwfl_module_build_id) X(dwfl_module_getelf) \
	X(dwfl_module_getsrc) X(dwfl_module_getsym_info) X(dwfl_module_getsymtab) \
	X(dwfl_module_getsymtab_first_global) X(dwfl_module_info) X(dwfl_report_begin) \
	X(dwfl_report_begin_add) X(dwfl_report_end) X(dwfl_report_module) \
	X(dwfl_offline_section_address) X(elf_memory) X(gelf_getehdr)

/* Resolved once, on first use; the handle stays open for the program's life. */
static struct {
	struct ms_dl dl;
#define X(f) __typeof__(&f) f;
	DW_FUNCS(X)
#undef X
} dw;

static bool load(void)
{
	/* libelf's functions come through libdw's handle: it depends on libelf. */
	const struct ms_dl_sym syms[] = {
#define X(f) { #f, (void **)&dw.f },
		DW_FUNCS(X)
#undef X
	};

	return ms_dl_load(&dw.dl, DW_SONAME, syms, sizeof(syms) / sizeof(syms[0]));
}

/* Every forwarded call asks (the symbol index, once a symbol): known after the first. */
bool ms_dw_available(void)
{
	return dw.dl.tried ? dw.dl.loaded : load();
}

Dwfl *dwfl_begin(const Dwfl_Callbacks *callbacks)
{
	return ms_dw_available() ? dw.dwfl_begin(callbacks) : NULL;
}

void dwfl_end(Dwfl *dwfl)
{
	if (ms_dw_available())
		dw.dwfl_end(dwfl);
}

const char *dwfl_line_comp_dir(Dwfl_Line *line)
{
	return ms_dw_available() ? dw.dwfl_line_comp_dir(line) : NULL;
}

const char *dwfl_lineinfo(Dwfl_Line *line, Dwarf_Addr *addr, int *linep, int *colp, Dwarf_Word *mtime,
			  Dwarf_Word *length)
{
	return ms_dw_available() ? dw.dwfl_lineinfo(line, addr, linep, colp, mtime, length) : NULL;
}

const char *dwfl_module_addrinfo(Dwfl_Module *mod, GElf_Addr address, GElf_Off *offset, GElf_Sym *sym,
				 GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *bias)
{
	return ms_dw_available() ? dw.dwfl_module_addrinfo(mod, address, offset, sym, shndxp, elfp, bias)
				 : NULL;
}

int dwfl_module_build_id(Dwfl_Module *mod, const unsigned char **bits, GElf_Addr *vaddr)
{
	return ms_dw_available() ? dw.dwfl_module_build_id(mod, bits, vaddr) : -1;
}

Elf *dwfl_module_getelf(Dwfl_Module *mod, GElf_Addr *bias)
{
	return ms_dw_available() ? dw.dwfl_module_getelf(mod, bias) : NULL;
}

Dwfl_Line *dwfl_module_getsrc(Dwfl_Module *mod, Dwarf_Addr addr)
{
	return ms_dw_available() ? dw.dwfl_module_getsrc(mod, addr) : NULL;
}

const char *dwfl_module_getsym_info(Dwfl_Module *mod, int ndx, GElf_Sym *sym, GElf_Addr *addr,
				    GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *bias)
{
	return ms_dw_available() ? dw.dwfl_module_getsym_info(mod, ndx, sym, addr, shndxp, elfp, bias) : NULL;
}

int dwfl_module_getsymtab(Dwfl_Module *mod)
{
	return ms_dw_available() ? dw.dwfl_module_getsymtab(mod) : -1;
}

int dwfl_module_getsymtab_first_global(Dwfl_Module *mod)
{
	return ms_dw_available() ? dw.dwfl_module_getsymtab_first_global(mod) : -1;
}

const char *dwfl_module_info(Dwfl_Module *mod, void ***userdata, Dwarf_Addr *start, Dwarf_Addr *end,
			     Dwarf_Addr *dwbias, Dwarf_Addr *symbias, const char **mainfile,
			     const char **debugfile)
{
	return ms_dw_available()
		       ? dw.dwfl_module_info(mod, userdata, start, end, dwbias, symbias, mainfile, debugfile)
		       : NULL;
}

void dwfl_report_begin(Dwfl *dwfl)
{
	if (ms_dw_available())
		dw.dwfl_report_begin(dwfl);
}

void dwfl_report_begin_add(Dwfl *dwfl)
{
	if (ms_dw_available())
		dw.dwfl_report_begin_add(dwfl);
}

int dwfl_report_end(Dwfl *dwfl, int (*removed)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *arg),
		    void *arg)
{
	return ms_dw_available() ? dw.dwfl_report_end(dwfl, removed, arg) : -1;
}

Dwfl_Module *dwfl_report_module(Dwfl *dwfl, const char *name, Dwarf_Addr start, Dwarf_Addr end)
{
	return ms_dw_available() ? dw.dwfl_report_module(dwfl, name, start, end) : NULL;
}

int dwfl_offline_section_address(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
				 const char *secname, GElf_Word shndx, const GElf_Shdr *shdr, Dwarf_Addr *addr)
{
	return ms_dw_available()
		       ? dw.dwfl_offline_section_address(mod, userdata, modname, base, secname, shndx, shdr, addr)
		       : -1;
}

Elf *elf_memory(char *image, size_t size)
{
	return ms_dw_available() ? dw.elf_memory(image, size) : NULL;
}

GElf_Ehdr *gelf_getehdr(Elf *elf, GElf_Ehdr *dest)
{
	return ms_dw_available() ? dw.gelf_getehdr(elf, dest) : NULL;
}
