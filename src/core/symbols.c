#include "config.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buildid.h"
#include "dwload.h"
#include "elfcheck.h"
#include "fstype.h"
#include "stale_lookup.h"
#include "symindex.h"
#include "symbols.h"
#include "symbols_fetch.h"

#define DEBUG_DIR "/usr/lib/debug"

struct symfile {
	struct ms_symbols *owner;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	bool used;
	bool tried;
	Dwfl_Module *mod;
	struct ms_symindex *index; /* NULL: libdw's own lookup */
	bool index_tried;
	const char *why;    /* static: why this file gives no symbols */
	int fd;             /* a trusted file, until libdwfl takes it */
	unsigned char *mem; /* an untrusted file's bytes, alive as long as the Dwfl */
	size_t mem_len;
	char *path;         /* the mapping's name: where debug links are relative to */
};

struct ms_symbols {
	struct symfile *image;         /* ms_symbols_image_new's one module, or NULL */
	struct ms_proc *proc;
	const struct ms_maplist *list;
	struct ms_symbols_opts opts;
	Dwfl *dwfl;
	Dwfl_Callbacks callbacks;
	struct ms_fstypes *fstypes;
	struct ms_lookup_cache *lookups;
	struct ms_lookup_root root;    /* the process's */
	struct ms_lookup_root ours;    /* debug directories are ours */
	bool have_roots;
	struct symfile *files;         /* open addressing by device and inode */
	size_t nfiles_cap;
	size_t nfiles;
	struct ms_symbols_fetch *fetch;
	size_t index_budget;           /* symbols the indexes may still hold */
	uint64_t untrusted_budget;     /* bytes of untrusted files it may still hold */
};

static bool trusted_stat(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct symfile *f = *userdata;
	int fd;

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

/* A debug file at path under root, if it is the one for build ID (id, len). */
static int open_debug(struct ms_symbols *s, const struct ms_lookup_root *root, const char *path,
		      const unsigned char *id, size_t len)
{
	unsigned char got[MS_BUILD_ID_MAX];
	struct ms_lookup *l;
	const char *why;
	struct stat st;
	size_t got_len = 0;
	int fd;

	if (root->fd < 0 || ms_lookup_path(s->lookups, root, path, strlen(path), &l) < 0 || l->err)
		return -1;
	fd = ms_lookup_open_read(root, path, strlen(path), l, &why);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !trusted_stat(&st) ||
	    ms_elfcheck_fd(fd, (uint64_t)st.st_size, true, NULL) != 0 ||
	    ms_buildid_read_fd(fd, got, &got_len, NULL) != 0 || got_len != len || memcmp(got, id, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int find_debug_local(struct ms_symbols *s, const struct symfile *f, const unsigned char *id,
			    size_t len, const char *debuglink)
{
	char path[4096], hex[2 * MS_BUILD_ID_MAX + 1];
	const char *slash;
	int dirlen, fd;

	ms_buildid_hex(id, len, hex);
	if (snprintf(path, sizeof(path), DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2) <
	    (int)sizeof(path) && (fd = open_debug(s, &s->ours, path, id, len)) >= 0)
		return fd;
	if (!debuglink || !*debuglink || strchr(debuglink, '/') || !f->path ||
	    !(slash = strrchr(f->path, '/')) || slash - f->path > 2048)
		return -1;
	dirlen = (int)(slash - f->path);
	if (snprintf(path, sizeof(path), DEBUG_DIR "%.*s/%s", dirlen, f->path, debuglink) <
	    (int)sizeof(path) && (fd = open_debug(s, &s->ours, path, id, len)) >= 0)
		return fd;
	/* Next to the file only where the process's names are ours. */
	if (!s->root.ours)
		return -1;
	if (snprintf(path, sizeof(path), "%.*s/.debug/%s", dirlen, f->path, debuglink) <
	    (int)sizeof(path) && (fd = open_debug(s, &s->ours, path, id, len)) >= 0)
		return fd;
	if (snprintf(path, sizeof(path), "%.*s/%s", dirlen, f->path, debuglink) < (int)sizeof(path))
		return open_debug(s, &s->ours, path, id, len);
	return -1;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	struct symfile *f = *userdata;
	const unsigned char *id;
	struct ms_symbols *s;
	GElf_Addr id_vaddr;
	int len, fd;

	if (!f)
		return -1;
	s = f->owner;
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (len <= 0 || len > MS_BUILD_ID_MAX)
		return -1;
	fd = find_debug_local(s, f, id, (size_t)len, debuglink_file);
	if (fd < 0 && s->fetch)
		fd = ms_symbols_fetch_debuginfo(s->fetch, id, (size_t)len);
	return fd;
}

/* An image in memory has no debug files. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	return -1;
}

static size_t file_slot(const struct ms_symbols *s, const struct ms_mapping *m)
{
	uint64_t h = m->inode * 0x9e3779b97f4a7c15ull ^ ((uint64_t)m->dev_major << 32 | m->dev_minor);
	size_t i = (size_t)(h ^ h >> 29) & (s->nfiles_cap - 1);

	while (s->files[i].used && (s->files[i].inode != m->inode || s->files[i].dev_major != m->dev_major ||
				    s->files[i].dev_minor != m->dev_minor))
		i = (i + 1) & (s->nfiles_cap - 1);
	return i;
}

static bool same_file(const struct ms_mapping *a, const struct ms_mapping *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}

/*
 * The module's span in the list: from the file's mapping of offset 0 at or
 * below index i, on through mappings of the same file or of no file (a
 * library's .bss), up to the next mapping of another file.
 */
static bool module_span(const struct ms_maplist *list, size_t i, uint64_t *low, uint64_t *high)
{
	const struct ms_mapping *m = &list->items[i];
	size_t first = i, last = i;

	while (first > 0 && list->items[first].offset != 0) {
		const struct ms_mapping *p = &list->items[first - 1];

		if (p->inode && !same_file(p, m))
			return false;
		first--;
	}
	if (!same_file(&list->items[first], m) || list->items[first].offset != 0)
		return false;
	for (size_t j = i + 1; j < list->count; j++) {
		const struct ms_mapping *n = &list->items[j];

		if (n->inode && !same_file(n, m))
			break;
		if (same_file(n, m))
			last = j;
	}
	*low = list->items[first].start;
	*high = list->items[last].end;
	return true;
}

static void ensure_roots(struct ms_symbols *s)
{
	if (s->have_roots)
		return;
	ms_lookup_root_of(s->lookups, s->proc, &s->root);
	ms_lookup_root_ours(s->lookups, &s->ours);
	s->have_roots = true;
}

/* Read a whole untrusted file into memory, bounded for all of them together. */
static int slurp(struct ms_symbols *s, struct symfile *f, int fd, uint64_t size)
{
	size_t done = 0;

	if (size > MS_SYMBOLS_UNTRUSTED_MAX) {
		f->why = "file too big to read whole (a user could write it)";
		return -1;
	}
	if (size > s->untrusted_budget) {
		f->why = "files a user could write already fill the memory allowed for them";
		return -1;
	}
	s->untrusted_budget -= size;
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

/* Open the file of mapping m the checked way and decide how libelf gets it. */
static int open_file(struct ms_symbols *s, struct symfile *f, const struct ms_mapping *m)
{
	struct ms_error err = { 0 };
	struct ms_lookup *l;
	struct stat st;
	const char *why;
	int fd, rc;

	if (m->name_ambiguous || !m->name_len || m->name[0] != '/' || memchr(m->name, '\0', m->name_len)) {
		f->why = "the name is not a path to look up";
		return -1;
	}
	if ((f->why = ms_fstypes_refuse(s->fstypes, m->dev_major, m->dev_minor)))
		return -1;
	ensure_roots(s);
	if (s->root.fd < 0) {
		f->why = "the process's root cannot be opened";
		return -1;
	}
	if (ms_lookup_path(s->lookups, &s->root, m->name, m->name_len, &l) < 0)
		return MS_ERR_NOMEM;
	/* Device numbers of btrfs subvolumes and overlayfs do not name the file. */
	if (l->err || l->inode != m->inode ||
	    (!l->unreliable_fs && (l->dev_major != m->dev_major || l->dev_minor != m->dev_minor))) {
		f->why = l->err ? "no file at the path now" : "another file at the path now";
		return -1;
	}
	fd = ms_lookup_open_read(&s->root, m->name, m->name_len, l, &why);
	if (fd < 0) {
		f->why = why;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		f->why = "the file could not be read";
		return -1;
	}
	if (trusted_stat(&st)) {
		rc = ms_elfcheck_fd(fd, (uint64_t)st.st_size, true, &err);
		if (rc == 0) {
			f->fd = fd;
			return 0;
		}
	} else {
		rc = slurp(s, f, fd, (uint64_t)st.st_size);
		if (rc == 0)
			rc = ms_elfcheck_mem(f->mem, f->mem_len, false, &err);
	}
	close(fd);
	if (rc == MS_ERR_NOMEM)
		return rc;
	if (rc != 0 && !f->why)
		f->why = rc == MS_END ? "not an ELF file" :
			 rc == MS_ERR_LIMIT ? "the ELF file was refused (bounds)" : "the file could not be read";
	return rc == 0 ? 0 : -1;
}

static int report(struct ms_symbols *s, struct symfile *f, size_t idx)
{
	const struct ms_mapping *m = &s->list->items[idx];
	uint64_t low, high;
	Dwarf_Addr bias;
	void **userdata;
	int rc;

	f->tried = true;
	f->fd = -1;
	if (!module_span(s->list, idx, &low, &high)) {
		f->why = "the file's start is not mapped";
		return 0;
	}
	rc = open_file(s, f, m);
	if (rc == MS_ERR_NOMEM)
		return rc;
	if (rc < 0)
		return 0;
	if (!(f->path = strndup(m->name, m->name_len)))
		return MS_ERR_NOMEM;
	dwfl_report_begin_add(s->dwfl);
	f->mod = dwfl_report_module(s->dwfl, f->path, low, high);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!f->mod) {
		f->why = "libdw refused the module";
		return 0;
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
	return 0;
}

/* libdw's answer, through the module's index when it has one. */
static const char *symbol_at(struct ms_symbols *s, struct symfile *f, uint64_t addr, GElf_Off *off)
{
	GElf_Sym sym;

	if (!f->index_tried) {
		f->index_tried = true;
		if (ms_symindex_build(f->mod, s->index_budget, &f->index) == 0)
			s->index_budget -= ms_symindex_count(f->index);
	}
	if (f->index)
		return ms_symindex_addrinfo(f->index, f->mod, addr, off);
	return dwfl_module_addrinfo(f->mod, addr, off, &sym, NULL, NULL, NULL);
}

int ms_symbols_lookup(struct ms_symbols *s, uint64_t addr, unsigned what, struct ms_symbol *out)
{
	const struct ms_mapping *m;
	struct symfile *f;
	GElf_Off off;
	Dwfl_Line *line;
	size_t idx;
	int rc;

	memset(out, 0, sizeof(*out));
	out->mapping = -1;
	if (s->image) {
		f = s->image;
		out->mapping = 0;
		goto module;
	}
	idx = ms_maplist_lower_bound(s->list, addr);
	if (idx >= s->list->count || s->list->items[idx].start > addr) {
		out->why = "no mapping covers the address";
		return MS_END;
	}
	out->mapping = (long)idx;
	m = &s->list->items[idx];
	if (!m->inode) {
		out->why = "not a file mapping";
		return 0;
	}
	f = &s->files[file_slot(s, m)];
	if (!f->used && s->nfiles >= s->nfiles_cap / 2) {
		/* A later list (ms_symbols_set_list) may hold more files than the first. */
		out->why = "too many files for one run";
		return 0;
	}
	if (!f->used) {
		s->nfiles++;
		f->used = true;
		f->owner = s;
		f->inode = m->inode;
		f->dev_major = m->dev_major;
		f->dev_minor = m->dev_minor;
	}
	if (!f->tried && (rc = report(s, f, idx)) < 0)
		return rc;
module:
	if (!f->mod) {
		out->why = f->why;
		return 0;
	}
	if (what & MS_SYMBOLS_NAME) {
		out->name = symbol_at(s, f, addr, &off);
		if (out->name)
			out->name_off = off;
		else
			out->why = "no symbol covers the address";
	}
	line = what & MS_SYMBOLS_SOURCE ? dwfl_module_getsrc(f->mod, addr) : NULL;
	if (line) {
		int lineno = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

		if (file && lineno > 0) {
			out->file = file;
			out->line = lineno;
			if (file[0] != '/')
				out->comp_dir = dwfl_line_comp_dir(line);
		}
	}
	return 0;
}

int ms_symbols_new(struct ms_proc *proc, const struct ms_maplist *list,
		   const struct ms_symbols_opts *opts, struct ms_symbols **out, struct ms_error *err)
{
	struct ms_symbols *s;
	size_t cap = 16;
	int rc;

	if (!ms_dw_available())
		return ms_error_set(err, MS_ERR_NOTSUP, 0, "symbols: %s could not be loaded", DW_SONAME);
	if (!(s = calloc(1, sizeof(*s))))
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	s->proc = proc;
	s->list = list;
	s->index_budget = MS_SYMBOLS_INDEX_MAX;
	s->untrusted_budget = MS_SYMBOLS_UNTRUSTED_MAX;
	if (opts)
		s->opts = *opts;
	/* One slot per mapping at most, and the table never fuller than half. */
	while (cap < 2 * list->count + 16)
		cap *= 2;
	s->nfiles_cap = cap;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	if (!(s->files = calloc(cap, sizeof(*s->files))) ||
	    ms_lookup_cache_new(&s->lookups, err) < 0) {
		ms_symbols_free(s);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	rc = ms_fstypes_load(proc, &s->fstypes, err);
	if (rc < 0) {
		ms_symbols_free(s);
		return rc;
	}
	rc = ms_symbols_fetch_new(s->opts.debuginfod, s->opts.debuginfod_seconds, s->opts.progress,
				  s->opts.progress_arg, &s->fetch);
	if (rc < 0 || !(s->dwfl = dwfl_begin(&s->callbacks))) {
		ms_symbols_free(s);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libdw could not start");
	}
	*out = s;
	return 0;
}

int ms_symbols_image_new(const unsigned char *buf, size_t len, uint64_t base,
			 struct ms_symbols **out, struct ms_error *err)
{
	struct ms_symbols *s = calloc(1, sizeof(*s));
	struct symfile *f = calloc(1, sizeof(*f));
	Dwarf_Addr bias;
	int rc = MS_ERR_NOMEM;

	*out = NULL;
	if (!s || !f || !(f->mem = malloc(len ? len : 1)) || !(f->path = strdup("/image")))
		goto fail;
	memcpy(f->mem, buf, len);
	f->mem_len = len;
	f->owner = s;
	f->fd = -1;
	f->tried = f->used = true;
	s->image = f;
	s->index_budget = MS_SYMBOLS_INDEX_MAX;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = no_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	rc = ms_elfcheck_mem(f->mem, len, false, err);
	if (rc == 0 && !(s->dwfl = dwfl_begin(&s->callbacks)))
		rc = MS_ERR_NOMEM;
	if (rc != 0)
		goto fail;
	/* The span is the image's own length: enough room for a library's segments. */
	dwfl_report_begin(s->dwfl);
	f->mod = dwfl_report_module(s->dwfl, f->path, base, base + (len | 0xfff) + 1);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (f->mod) {
		void **userdata;

		dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = f;
		if (!dwfl_module_getelf(f->mod, &bias))
			f->mod = NULL;
	}
	if (!f->mod)
		f->why = "libdw refused the image";
	*out = s;
	return 0;
fail:
	if (rc == MS_ERR_NOMEM)
		ms_error_set(err, rc, ENOMEM, "out of memory");
	if ((!s || !s->image) && f) {
		free(f->mem);
		free(f->path);
		free(f);
	}
	ms_symbols_free(s);
	return rc;
}

int ms_symbols_image_check(struct ms_symbols *s, struct ms_error *err)
{
	struct symfile *f = s->image;
	uint64_t where;

	if (!f || !f->mod)
		return 0;
	symbol_at(s, f, 0, &(GElf_Off){ 0 }); /* builds the index */
	if (f->index && ms_symindex_check(f->index, f->mod, &where) != 0)
		return ms_error_set(err, MS_ERR_PROTO, 0, "the index and libdw name 0x%" PRIx64 " differently",
				    where);
	return 0;
}

void ms_symbols_set_list(struct ms_symbols *s, const struct ms_maplist *list)
{
	s->list = list;
}

void ms_symbols_free(struct ms_symbols *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; s->files && i < s->nfiles_cap; i++) {
		if (s->files[i].fd > 0)
			close(s->files[i].fd);
		free(s->files[i].mem);
		ms_symindex_free(s->files[i].index);
		free(s->files[i].path);
	}
	free(s->files);
	if (s->image) {
		free(s->image->mem);
		free(s->image->path);
		ms_symindex_free(s->image->index);
		free(s->image);
	}
	if (s->have_roots) {
		ms_lookup_root_release(&s->root);
		ms_lookup_root_release(&s->ours);
	}
	ms_lookup_cache_free(s->lookups);
	ms_fstypes_free(s->fstypes);
	ms_symbols_fetch_free(s->fetch);
	free(s);
}
