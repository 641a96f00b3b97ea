#include "config.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "elf/dwload.h"
#include "elf/elfcheck.h"
#include "elf/symbols_dw.h"
#include "elf/symindex.h"
#include "untrusted/untrusted_child.h"

struct dwfile {
	struct ms_dw *owner;
	uint32_t number;
	bool used;
	Dwfl_Module *mod;
	struct ms_symindex *index; /* NULL: libdw's own lookup */
	bool index_tried;
	const char *why;    /* static: why this file gives no symbols */
	int fd;             /* a trusted file, until libdwfl takes it */
	unsigned char *mem; /* an untrusted file's bytes, alive as long as the Dwfl */
	size_t mem_len;
	char *path;
	/* Sharing (symbols_dw.h, "Identical copies"): */
	uint64_t low, high, size;
	bool trusted;
	size_t id_len; /* 0: no build ID, never shared */
	unsigned char id[MS_BUILD_ID_MAX];
	struct dwfile *same;   /* a copy: the file whose module answers for it */
	struct dwfile *next;   /* the next file with a module in the same bucket */
};

#define SHARE_BUCKETS 256u

struct ms_dw {
	Dwfl *dwfl;
	Dwfl_Callbacks callbacks;
	ms_dw_debug_fn debug;
	void *debug_arg;
	struct dwfile **files;     /* by number; each allocated apart */
	size_t cap;
	size_t index_budget;      /* symbols the indexes may still hold */
	uint64_t untrusted_budget; /* bytes of untrusted files it may still hold */
	struct dwfile *buckets[SHARE_BUCKETS]; /* files with a module and a build ID, by ID */
};

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct dwfile *f = *userdata;
	int fd;

	(void)mod; (void)modname; (void)base;
	if (!f || !f->path)
		return -1;
	*file_name = strdup(f->path);
	if (f->mem) {
		*elfp = elf_memory((char *)f->mem, f->mem_len);
		return -1;
	}
	fd = f->fd;
	f->fd = -1;
	return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct dwfile *f = *userdata;
	const unsigned char *id;
	GElf_Addr id_vaddr;
	struct stat st;
	int len, fd;

	(void)modname; (void)base; (void)file_name; (void)debuglink_crc; (void)debuginfo_file_name;
	if (!f || !f->owner->debug)
		return -1;
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (len <= 0 || len > MS_BUILD_ID_MAX)
		return -1;
	fd = f->owner->debug(f->owner->debug_arg, f->number, id, (size_t)len, debuglink_file);
	if (fd >= 0 && fstat(fd, &st) == 0)
		ms_child_room_add((uint64_t)st.st_size);
	return fd;
}

/*
 * The file numbered number, made on first use.  Each is its own allocation:
 * libdw keeps a pointer to it (the module's userdata), so growing the table
 * must never move one.
 */
static struct dwfile *slot(struct ms_dw *dw, uint32_t number)
{
	if (number >= MS_DW_FILES_MAX)
		return NULL;
	if (number >= dw->cap) {
		size_t cap = dw->cap ? dw->cap : 64;
		struct dwfile **grown;

		while (cap <= number)
			cap *= 2;
		if (!(grown = realloc(dw->files, cap * sizeof(*grown))))
			return NULL;
		memset(grown + dw->cap, 0, (cap - dw->cap) * sizeof(*grown));
		dw->files = grown;
		dw->cap = cap;
	}
	if (!dw->files[number])
		dw->files[number] = calloc(1, sizeof(struct dwfile));
	return dw->files[number];
}

/* The file numbered number, if it was given. */
static struct dwfile *given(const struct ms_dw *dw, uint32_t number)
{
	return number < dw->cap && dw->files[number] && dw->files[number]->used ? dw->files[number] : NULL;
}

int ms_dw_new(ms_dw_debug_fn debug, void *arg, struct ms_dw **out)
{
	struct ms_dw *dw;

	*out = NULL;
	if (!ms_dw_available())
		return MS_ERR_NOTSUP;
	if (!(dw = calloc(1, sizeof(*dw))))
		return MS_ERR_NOMEM;
	dw->debug = debug;
	dw->debug_arg = arg;
	dw->index_budget = MS_SYMBOLS_INDEX_MAX;
	dw->untrusted_budget = MS_DW_UNTRUSTED_TOTAL;
	dw->callbacks.find_elf = find_elf;
	dw->callbacks.find_debuginfo = find_debuginfo;
	dw->callbacks.section_address = dwfl_offline_section_address;
	if (!(dw->dwfl = dwfl_begin(&dw->callbacks))) {
		free(dw);
		return MS_ERR_NOMEM;
	}
	*out = dw;
	return 0;
}

/* An untrusted file's bytes, bounded per file and for all of them together. */
static int slurp(struct ms_dw *dw, struct dwfile *f, int fd, uint64_t size)
{
	size_t done = 0;

	if (size > MS_DW_UNTRUSTED_MAX) {
		f->why = "file too big to read whole (a user could write it)";
		return -1;
	}
	if (size > dw->untrusted_budget) {
		f->why = "files a user could write already fill the memory allowed for them";
		return -1;
	}
	dw->untrusted_budget -= size;
	ms_child_room_add(size);
	if (!(f->mem = malloc(size ? (size_t)size : 1))) {
		f->why = "out of memory for the file";
		return MS_ERR_NOMEM;
	}
	while (done < size) {
		ssize_t n = pread(fd, f->mem + done, (size_t)size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	f->mem_len = done;
	return 0;
}

/* Report f's module over [low, high) and have libelf read it. */
static void report(struct ms_dw *dw, struct dwfile *f, uint64_t low, uint64_t high)
{
	Dwarf_Addr bias;
	void **userdata;

	dwfl_report_begin_add(dw->dwfl);
	f->mod = dwfl_report_module(dw->dwfl, f->path, low, high);
	dwfl_report_end(dw->dwfl, NULL, NULL);
	if (!f->mod) {
		f->why = "libdw refused the module";
		return;
	}
	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	if (!dwfl_module_getelf(f->mod, &bias)) {
		f->why = "libelf could not read the file";
		f->mod = NULL;
	}
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
}

static struct dwfile *take_slot(struct ms_dw *dw, uint32_t file, const char *path, const char **why)
{
	struct dwfile *f = slot(dw, file);

	if (!f || f->used) {
		*why = f ? "the file was given twice" : "too many files for one run";
		return NULL;
	}
	memset(f, 0, sizeof(*f));
	f->owner = dw;
	f->number = file;
	f->fd = -1;
	f->used = true;
	if (!(f->path = strdup(path))) {
		f->used = false;
		return NULL;
	}
	return f;
}

/*
 * The earlier file that f is a copy of, or NULL (symbols_dw.h, "Identical
 * copies"): the same build ID, size, trust and span length, and for an
 * untrusted file the same bytes.  At most SHARE_PROBE_MAX files of f's
 * bucket are compared: a user chooses build IDs, and could pile many
 * files into one bucket.
 */
#define SHARE_PROBE_MAX 64u
static struct dwfile *original(struct ms_dw *dw, const struct dwfile *f)
{
	unsigned probes = 0;

	if (!f->id_len)
		return NULL;
	for (struct dwfile *o = dw->buckets[f->id[0] % SHARE_BUCKETS]; o && probes < SHARE_PROBE_MAX;
	     o = o->next, probes++) {
		if (o->id_len != f->id_len || memcmp(o->id, f->id, f->id_len) != 0 || o->size != f->size ||
		    o->trusted != f->trusted || o->high - o->low != f->high - f->low)
			continue;
		if (!f->trusted && (o->mem_len != f->mem_len || memcmp(o->mem, f->mem, f->mem_len) != 0))
			continue;
		return o;
	}
	return NULL;
}

/* f answers through o's module from now on; its own bytes are let go. */
static void share(struct ms_dw *dw, struct dwfile *f, struct dwfile *o)
{
	f->same = o;
	if (f->mem) {
		dw->untrusted_budget += f->size;
		free(f->mem);
		f->mem = NULL;
		f->mem_len = 0;
	}
}

/* f has a module: later copies of it may share it. */
static void offer(struct ms_dw *dw, struct dwfile *f)
{
	struct dwfile **head;

	if (!f->mod || !f->id_len)
		return;
	head = &dw->buckets[f->id[0] % SHARE_BUCKETS];
	f->next = *head;
	*head = f;
}

int ms_dw_add(struct ms_dw *dw, uint32_t file, int fd, bool trusted, const char *path, uint64_t low,
	      uint64_t high, const char **why)
{
	struct ms_error err = { 0 };
	struct dwfile *f, *o;
	struct stat st;
	int rc;

	*why = NULL;
	if (!(f = take_slot(dw, file, path, why))) {
		close(fd);
		return *why ? -1 : MS_ERR_NOMEM;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		f->why = *why = "the file could not be read";
		return -1;
	}
	f->low = low;
	f->high = high;
	f->size = (uint64_t)st.st_size;
	f->trusted = trusted;
	if (trusted) {
		rc = ms_elfcheck_fd(fd, (uint64_t)st.st_size, true, &err);
		if (rc == 0 && ms_buildid_read_fd(fd, f->id, &f->id_len, NULL) != 0)
			f->id_len = 0;
		if (rc == 0 && !(o = original(dw, f))) {
			ms_child_room_add((uint64_t)st.st_size);
			f->fd = fd;
			fd = -1;
		} else if (rc == 0) {
			share(dw, f, o);
		}
	} else {
		rc = slurp(dw, f, fd, (uint64_t)st.st_size);
		if (rc == 0)
			rc = ms_elfcheck_mem(f->mem, f->mem_len, false, &err);
		if (rc == 0 && ms_buildid_parse(f->mem, f->mem_len, f->id, &f->id_len, NULL) != 0)
			f->id_len = 0;
		if (rc == 0 && (o = original(dw, f)))
			share(dw, f, o);
	}
	if (fd >= 0)
		close(fd);
	if (rc == MS_ERR_NOMEM)
		return rc;
	if (rc != 0) {
		if (!f->why)
			f->why = rc == MS_END ? "not an ELF file" :
				 rc == MS_ERR_LIMIT ? "the ELF file was refused (bounds)" :
						      "the file could not be read";
		*why = f->why;
		return -1;
	}
	if (f->same)
		return 0;
	report(dw, f, low, high);
	offer(dw, f);
	*why = f->mod ? NULL : f->why;
	return f->mod ? 0 : -1;
}

int ms_dw_add_image(struct ms_dw *dw, uint32_t file, const unsigned char *buf, size_t len,
		    uint64_t low, uint64_t high, const char **why, struct ms_error *err)
{
	struct dwfile *f;
	int rc;

	*why = NULL;
	if (!(f = take_slot(dw, file, "/image", why)))
		return *why ? MS_ERR_INVAL : MS_ERR_NOMEM;
	if (!(f->mem = malloc(len ? len : 1)))
		return MS_ERR_NOMEM;
	memcpy(f->mem, buf, len);
	f->mem_len = len;
	rc = ms_elfcheck_mem(f->mem, len, false, err);
	if (rc != 0) {
		f->why = *why = "the ELF file was refused";
		return rc;
	}
	report(dw, f, low, high);
	*why = f->why;
	return 0;
}

/* libdw's answer, through the module's index when it has one. */
static const char *symbol_at(struct ms_dw *dw, struct dwfile *f, uint64_t addr, GElf_Off *off)
{
	GElf_Sym sym;

	if (!f->index_tried) {
		f->index_tried = true;
		if (ms_symindex_build(f->mod, dw->index_budget, &f->index) == 0)
			dw->index_budget -= ms_symindex_count(f->index);
	}
	if (f->index)
		return ms_symindex_addrinfo(f->index, f->mod, addr, off);
	return dwfl_module_addrinfo(f->mod, addr, off, &sym, NULL, NULL, NULL);
}

int ms_dw_lookup(struct ms_dw *dw, uint32_t file, uint64_t addr, unsigned what, struct ms_symbol *out)
{
	struct dwfile *f = given(dw, file);
	Dwfl_Line *line;
	GElf_Off off;

	if (!f) {
		out->why = "the file was not given to the reader";
		return 0;
	}
	if (f->same) { /* a copy: the same offset into the original's span */
		addr = addr - f->low + f->same->low;
		f = f->same;
	}
	if (!f->mod) {
		out->why = f->why;
		return 0;
	}
	if (what & MS_SYMBOLS_NAME) {
		out->name = symbol_at(dw, f, addr, &off);
		if (out->name)
			out->name_off = off;
		else
			out->why = "no symbol covers the address";
	}
	line = what & MS_SYMBOLS_SOURCE ? dwfl_module_getsrc(f->mod, addr) : NULL;
	if (line) {
		int lineno = 0;
		const char *name = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

		if (name && lineno > 0) {
			out->file = name;
			out->line = lineno;
			if (name[0] != '/')
				out->comp_dir = dwfl_line_comp_dir(line);
		}
	}
	return 0;
}

int ms_dw_check(struct ms_dw *dw, uint32_t file, struct ms_error *err)
{
	struct dwfile *f = given(dw, file);
	uint64_t where;

	if (!f || !f->mod)
		return 0;
	symbol_at(dw, f, 0, &(GElf_Off){ 0 }); /* builds the index */
	if (f->index && ms_symindex_check(f->index, f->mod, &where) != 0)
		return ms_error_set(err, MS_ERR_PROTO, 0, "the index and libdw name 0x%" PRIx64 " differently",
				    where);
	return 0;
}

void ms_dw_free(struct ms_dw *dw)
{
	if (!dw)
		return;
	if (dw->dwfl)
		dwfl_end(dw->dwfl);
	for (size_t i = 0; i < dw->cap; i++) {
		struct dwfile *f = dw->files[i];

		if (f && f->used) {
			if (f->fd >= 0)
				close(f->fd);
			free(f->mem);
			ms_symindex_free(f->index);
			free(f->path);
		}
		free(f);
	}
	free(dw->files);
	free(dw);
}
