#include "config.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "elf/symindex.h"
#include "elf/symindex_sort.h"

struct table {
	struct ms_symindex_entry *e;
	size_t n;
};

struct ms_symindex {
	struct table globals, locals;
	struct ms_symindex_entry **cover; /* scratch: the entries covering one address */
	size_t cover_cap;
};

static uint32_t bind_rank(unsigned bind)
{
	return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
}

static int by_ndx(const void *a, const void *b)
{
	const struct ms_symindex_entry *x = *(const struct ms_symindex_entry *const *)a;
	const struct ms_symindex_entry *y = *(const struct ms_symindex_entry *const *)b;

	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* The symbols of [from, to) that take part, sorted by address. */
static int fill(Dwfl_Module *mod, int from, int to, size_t *budget, struct table *t)
{
	size_t cap = (size_t)(to - from) < *budget ? (size_t)(to - from) : *budget;
	uint64_t reach = 0;

	if (to <= from)
		return 0;
	/* Never more than the budget allows, whatever the table claims. */
	if (!(t->e = malloc((cap ? cap : 1) * sizeof(*t->e))))
		return MS_ERR_NOMEM;
	for (int i = from; i < to; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, NULL);
		unsigned type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		if (!*budget)
			return MS_ERR_LIMIT;
		--*budget;
		t->e[t->n++] = (struct ms_symindex_entry){ .value = value, .size = sym.st_size, .ndx = (uint32_t)i,
					       .bind = bind_rank(GELF_ST_BIND(sym.st_info)) };
	}
	/* By address; symbols at one address stay in table order. */
	if (t->n > 1) {
		struct ms_symindex_entry *tmp = malloc(t->n * sizeof(*tmp)), *sorted;

		if (!tmp)
			return MS_ERR_NOMEM;
		sorted = ms_symindex_sort(t->e, tmp, t->n);
		free(sorted == t->e ? tmp : t->e);
		t->e = sorted;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct ms_symindex_entry *e = &t->e[i];
		uint64_t end = e->value + e->size < e->value ? UINT64_MAX : e->value + e->size;

		if (end > reach)
			reach = end;
		e->reach = reach;
	}
	return 0;
}

int ms_symindex_build(Dwfl_Module *mod, size_t max, struct ms_symindex **out)
{
	struct ms_symindex *ix;
	Dwarf_Addr bias;
	GElf_Ehdr ehdr;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int n, first, rc;

	*out = NULL;
	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine == EM_PPC64)
		return MS_END;
	n = dwfl_module_getsymtab(mod);
	first = n > 0 ? dwfl_module_getsymtab_first_global(mod) : 0;
	if (first < 0)
		return MS_END;
	if (!(ix = calloc(1, sizeof(*ix))))
		return MS_ERR_NOMEM;
	/* With first_global 0 (only a .dynsym from the program headers) every symbol is global. */
	rc = n > 0 ? fill(mod, first > 0 ? first : 1, n, &max, &ix->globals) : 0;
	if (rc == 0 && first > 1)
		rc = fill(mod, 1, first, &max, &ix->locals);
	if (rc < 0) {
		ms_symindex_free(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

/* How many entries start at or below addr. */
static size_t upto(const struct table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * libdw's choice among the entries with a size that cover addr (upto(t,
 * addr) is k).  A table crafted so that thousands of symbols lie below one
 * address and reach past it would make this walk as long as libdw's own, and
 * a sort on top: past WALK_MAX entries, *give_up is set and libdw is asked.
 */
#define WALK_MAX 4096u
static const struct ms_symindex_entry *choose(struct ms_symindex *ix, const struct table *t, size_t k,
				  uint64_t addr, bool *give_up)
{
	const struct ms_symindex_entry *best = NULL;
	size_t n = 0, walked = 0;

	/* A saturated reach stands for an end past the top of the address space. */
	for (size_t j = k; j-- > 0 && (t->e[j].reach > addr || t->e[j].reach == UINT64_MAX);) {
		struct ms_symindex_entry *e = &t->e[j];

		if (++walked > WALK_MAX) {
			*give_up = true;
			return NULL;
		}
		if (!e->size || addr - e->value >= e->size)
			continue;
		if (n == ix->cover_cap) {
			size_t cap = ix->cover_cap ? 2 * ix->cover_cap : 16;
			struct ms_symindex_entry **c = realloc(ix->cover, cap * sizeof(*c));

			if (!c) {
				*give_up = true;
				return NULL;
			}
			ix->cover = c;
			ix->cover_cap = cap;
		}
		ix->cover[n++] = e;
	}
	if (n > 1)
		qsort(ix->cover, n, sizeof(*ix->cover), by_ndx);
	for (size_t i = 0; i < n; i++) {
		const struct ms_symindex_entry *e = ix->cover[i];

		if (!best || best->value < e->value || best->bind < e->bind ||
		    (best->value == e->value && best->size > e->size && best->bind <= e->bind))
			best = e;
	}
	return best;
}

/* Could an entry without a size start at value, among the first k? (Past WALK_MAX: maybe.) */
static bool sizeless_at(const struct table *t, size_t k, uint64_t value)
{
	size_t j = upto(t, value), walked = 0;

	if (j > k)
		j = k;
	while (j-- > 0 && t->e[j].value == value)
		if (!t->e[j].size || ++walked > WALK_MAX)
			return true;
	return false;
}

const char *ms_symindex_addrinfo(struct ms_symindex *ix, Dwfl_Module *mod, uint64_t addr,
				 uint64_t *off)
{
	size_t kg = upto(&ix->globals, addr), kl = upto(&ix->locals, addr);
	bool give_up = false;
	const struct ms_symindex_entry *best = choose(ix, &ix->globals, kg, addr, &give_up);
	uint64_t end = 0;
	GElf_Sym sym;
	GElf_Addr value;
	const char *name;

	if (!best && (give_up || sizeless_at(&ix->globals, kg, addr)))
		goto ask_libdw;
	if (!best)
		best = choose(ix, &ix->locals, kl, addr, &give_up);
	if (give_up)
		goto ask_libdw;
	if (best) {
		name = dwfl_module_getsym_info(mod, (int)best->ndx, &sym, &value, NULL, NULL, NULL);
		*off = addr - best->value;
		return name;
	}
	if (!kg && !kl)
		return NULL;
	/* Nothing with a size covers addr, so every end below it is at most addr. */
	if (kg)
		end = ix->globals.e[kg - 1].reach;
	if (kl && ix->locals.e[kl - 1].reach > end)
		end = ix->locals.e[kl - 1].reach;
	if (!sizeless_at(&ix->globals, kg, end) && !sizeless_at(&ix->locals, kl, end))
		return NULL;
ask_libdw:
	name = dwfl_module_addrinfo(mod, addr, off, &sym, NULL, NULL, NULL);
	return name;
}

static bool agree(struct ms_symindex *ix, Dwfl_Module *mod, uint64_t addr)
{
	GElf_Sym sym;
	GElf_Off off2 = 0;
	uint64_t off = 0;
	const char *mine = ms_symindex_addrinfo(ix, mod, addr, &off);
	const char *theirs = dwfl_module_addrinfo(mod, addr, &off2, &sym, NULL, NULL, NULL);

	if (!mine || !theirs)
		return mine == theirs;
	return !strcmp(mine, theirs) && off == off2;
}

int ms_symindex_check(struct ms_symindex *ix, Dwfl_Module *mod, uint64_t *where)
{
	const struct table *tables[] = { &ix->globals, &ix->locals };
	size_t done = 0;

	for (size_t t = 0; t < 2; t++) {
		for (size_t i = 0; i < tables[t]->n && done < MS_SYMINDEX_CHECK_MAX; i++, done++) {
			const struct ms_symindex_entry *e = &tables[t]->e[i];
			uint64_t probes[] = { e->value - 1, e->value, e->value + e->size - 1, e->value + e->size };

			for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
				if (!agree(ix, mod, probes[p])) {
					*where = probes[p];
					return -1;
				}
			}
		}
	}
	return 0;
}

size_t ms_symindex_count(const struct ms_symindex *ix)
{
	return ix->globals.n + ix->locals.n;
}

void ms_symindex_free(struct ms_symindex *ix)
{
	if (!ix)
		return;
	free(ix->globals.e);
	free(ix->locals.e);
	free(ix->cover);
	free(ix);
}
