#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfdyn.h"

/* Exactly len bytes at off from the descriptor. */
static bool pread_all(struct ms_elfdyn *e, uint64_t off, size_t len, unsigned char *out)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n = pread(e->fd, out + have, len - have, (off_t)(off + have));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !e->io_errno)
			e->io_errno = errno;
		if (n <= 0)
			return false;
		have += (size_t)n;
	}
	return true;
}

/* A small read through the windows: the one that holds it, or the older one refilled. */
static bool read_windowed(struct ms_elfdyn *e, uint64_t off, size_t len, unsigned char *out)
{
	uint64_t start;
	size_t n;
	unsigned w;

	for (w = 0; w < 2; w++)
		if (e->win_len[w] && off >= e->win_off[w] && off - e->win_off[w] <= e->win_len[w] &&
		    len <= e->win_len[w] - (off - e->win_off[w])) {
			memcpy(out, e->win[w] + (off - e->win_off[w]), len);
			return true;
		}
	w = e->win_next;
	e->win_next ^= 1;
	start = off & ~(uint64_t)(MS_ELFDYN_WINDOW - 1);
	if (off + len > start + MS_ELFDYN_WINDOW)
		start = off;
	/* off + len <= size: the window holds the read. */
	n = e->size - start < MS_ELFDYN_WINDOW ? (size_t)(e->size - start) : MS_ELFDYN_WINDOW;
	e->win_len[w] = 0;
	e->win_off[w] = start;
	if (!pread_all(e, start, n, e->win[w]))
		return false;
	e->win_len[w] = n;
	memcpy(out, e->win[w] + (off - start), len);
	return true;
}

bool ms_elfdyn_read(struct ms_elfdyn *e, uint64_t off, size_t len, unsigned char *out)
{
	if (off > e->size || len > e->size - off)
		return false;
	if (e->buf) {
		memcpy(out, e->buf + off, len);
		return true;
	}
	if (len <= MS_ELFDYN_WINDOW / 2)
		return read_windowed(e, off, len, out);
	return pread_all(e, off, len, out);
}

uint64_t ms_elfdyn_get(const struct ms_elfdyn *e, const unsigned char *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (e->big_endian ? 8 * (width - 1 - i) : 8 * i);
	return v;
}

/* Field offsets of Elf32/Elf64 program headers: type, offset, vaddr, filesz. */
struct phdr_layout {
	size_t size, type, offset, vaddr, filesz;
};

static const struct phdr_layout phdr32 = {
	sizeof(Elf32_Phdr), offsetof(Elf32_Phdr, p_type), offsetof(Elf32_Phdr, p_offset),
	offsetof(Elf32_Phdr, p_vaddr), offsetof(Elf32_Phdr, p_filesz),
};
static const struct phdr_layout phdr64 = {
	sizeof(Elf64_Phdr), offsetof(Elf64_Phdr, p_type), offsetof(Elf64_Phdr, p_offset),
	offsetof(Elf64_Phdr, p_vaddr), offsetof(Elf64_Phdr, p_filesz),
};

static const struct phdr_layout *layout(const struct ms_elfdyn *e)
{
	return e->is64 ? &phdr64 : &phdr32;
}

/* Program header i's field at offset field (a word wide, type 4). */
static uint64_t ph(const struct ms_elfdyn *e, size_t i, size_t field, unsigned width)
{
	return ms_elfdyn_get(e, e->phdrs + i * e->phentsize + field, width);
}

bool ms_elfdyn_offset(const struct ms_elfdyn *e, uint64_t addr, uint64_t *off)
{
	const struct phdr_layout *lay = layout(e);

	for (size_t i = 0; i < e->phnum; i++) {
		uint64_t vaddr, filesz, poff;

		if (ph(e, i, lay->type, 4) != PT_LOAD)
			continue;
		vaddr = ph(e, i, lay->vaddr, e->word);
		filesz = ph(e, i, lay->filesz, e->word);
		poff = ph(e, i, lay->offset, e->word);
		if (addr < vaddr || addr - vaddr >= filesz)
			continue;
		if (addr - vaddr > UINT64_MAX - poff)
			return false;
		*off = poff + (addr - vaddr);
		return true;
	}
	return false;
}

int ms_elfdyn_refuse(const struct ms_elfdyn *e, struct ms_error *err, const char *why)
{
	if (e->io_errno)
		return ms_error_set(err, MS_ERR_IO, e->io_errno, "read: %s", strerror(e->io_errno));
	return ms_error_set(err, MS_ERR_LIMIT, 0, "%s", why);
}

static int read_phdrs(struct ms_elfdyn *e, struct ms_error *err)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	uint64_t phoff, phnum, entsize;

	if (!ms_elfdyn_read(e, 0, EI_NIDENT, eh) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return e->io_errno ? ms_elfdyn_refuse(e, err, "") :
				     ms_error_set(err, MS_END, 0, "not an ELF file");
	if ((eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return ms_error_set(err, MS_END, 0, "unknown ELF class or byte order");
	e->is64 = eh[EI_CLASS] == ELFCLASS64;
	e->big_endian = eh[EI_DATA] == ELFDATA2MSB;
	e->word = e->is64 ? 8 : 4;
	if (!ms_elfdyn_read(e, 0, e->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr), eh))
		return ms_elfdyn_refuse(e, err, "truncated ELF header");
	phoff = ms_elfdyn_get(e, eh + (e->is64 ? offsetof(Elf64_Ehdr, e_phoff) : offsetof(Elf32_Ehdr, e_phoff)), e->word);
	phnum = ms_elfdyn_get(e, eh + (e->is64 ? offsetof(Elf64_Ehdr, e_phnum) : offsetof(Elf32_Ehdr, e_phnum)), 2);
	entsize = ms_elfdyn_get(e, eh + (e->is64 ? offsetof(Elf64_Ehdr, e_phentsize) : offsetof(Elf32_Ehdr, e_phentsize)), 2);
	if (phnum == PN_XNUM)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "extended ELF numbering refused");
	if (phnum == 0)
		return ms_error_set(err, MS_END, 0, "no program headers");
	if (entsize < layout(e)->size)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "program headers too small");
	/* Both are 16-bit: the product cannot overflow. */
	if (phnum * entsize > MS_ELFDYN_PHDRS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "program headers over %u KiB",
				    MS_ELFDYN_PHDRS_MAX / 1024);
	if (!ms_elfdyn_read(e, phoff, (size_t)(phnum * entsize), e->phdrs))
		return ms_elfdyn_refuse(e, err, "program headers past the end of the file");
	e->phnum = (size_t)phnum;
	e->phentsize = (size_t)entsize;
	return 0;
}

/* Keep the first value of a tag. */
static void keep(uint64_t *slot, bool *have, uint64_t val)
{
	if (*have)
		return;
	*slot = val;
	*have = true;
}

static int read_dynamic(struct ms_elfdyn *e, struct ms_error *err)
{
	unsigned char buf[MS_ELFDYN_DYN_MAX];
	const struct phdr_layout *lay = layout(e);
	uint64_t off = 0, size = 0;
	size_t i, entsize = 2 * e->word;
	bool found = false;

	for (i = 0; i < e->phnum && !found; i++) {
		if (ph(e, i, lay->type, 4) != PT_DYNAMIC)
			continue;
		off = ph(e, i, lay->offset, e->word);
		size = ph(e, i, lay->filesz, e->word);
		found = true;
	}
	if (!found)
		return ms_error_set(err, MS_END, 0, "no dynamic section");
	if (size > MS_ELFDYN_DYN_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "dynamic section over %u KiB",
				    MS_ELFDYN_DYN_MAX / 1024);
	if (!ms_elfdyn_read(e, off, (size_t)size, buf))
		return ms_elfdyn_refuse(e, err, "dynamic section past the end of the file");
	for (i = 0; i + entsize <= size; i += entsize) {
		uint64_t tag = ms_elfdyn_get(e, buf + i, e->word);
		uint64_t val = ms_elfdyn_get(e, buf + i + e->word, e->word);

		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB)
			keep(&e->strtab, &e->have_strtab, val);
		else if (tag == DT_STRSZ)
			keep(&e->strsz, &e->have_strsz, val);
		else if (tag == DT_SONAME)
			keep(&e->soname, &e->have_soname, val);
		else if (tag == DT_VERDEF)
			keep(&e->verdef, &e->have_verdef, val);
		else if (tag == DT_VERDEFNUM)
			keep(&e->verdefnum, &e->have_verdefnum, val);
	}
	return 0;
}

static int open_source(struct ms_elfdyn *e, struct ms_error *err)
{
	int rc = read_phdrs(e, err);

	return rc ? rc : read_dynamic(e, err);
}

int ms_elfdyn_open_fd(struct ms_elfdyn *e, int fd, struct ms_error *err)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	if (fstat(fd, &st) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "stat: %s", strerror(errno));
	e->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return open_source(e, err);
}

int ms_elfdyn_open_mem(struct ms_elfdyn *e, const unsigned char *buf, size_t size,
		       struct ms_error *err)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->buf = buf;
	e->size = size;
	return open_source(e, err);
}

int ms_elfdyn_string(struct ms_elfdyn *e, uint64_t name, const char *what, char *out, size_t max,
		     struct ms_error *err)
{
	uint64_t stroff, at, room;
	size_t len;

	out[0] = '\0';
	if (!e->have_strtab)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "%s without a string table", what);
	if (!ms_elfdyn_offset(e, e->strtab, &stroff))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "string table outside the loaded segments");
	if (e->have_strsz && (name >= e->strsz || stroff > e->size || e->strsz > e->size - stroff))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "string table past the end of the file");
	if (name > UINT64_MAX - stroff || stroff + name >= e->size)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "%s past the end of the file", what);
	at = stroff + name;
	room = e->size - at;
	if (e->have_strsz && e->strsz - name < room)
		room = e->strsz - name;
	len = room < max + 1 ? (size_t)room : max + 1;
	if (!ms_elfdyn_read(e, at, len, (unsigned char *)out)) {
		out[0] = '\0';
		return e->io_errno ? ms_elfdyn_refuse(e, err, "") :
		       ms_error_set(err, MS_ERR_LIMIT, 0, "%s past the end of the file", what);
	}
	if (!memchr(out, '\0', len)) {
		out[0] = '\0';
		return len == max + 1 ?
		       ms_error_set(err, MS_ERR_LIMIT, 0, "%s longer than %zu bytes", what, max) :
		       ms_error_set(err, MS_ERR_LIMIT, 0, "%s runs past the end of its table", what);
	}
	return 0;
}

/* The reader's state holds 64 KiB of program headers: on the heap, not a thread's stack. */
static int answer(struct ms_elfdyn *e, int rc, ms_elfdyn_reader read, char *out, struct ms_error *err)
{
	out[0] = '\0';
	if (rc == 0)
		rc = read(e, out, err);
	free(e);
	return rc;
}

int ms_elfdyn_read_fd_with(int fd, ms_elfdyn_reader read, char *out, struct ms_error *err)
{
	struct ms_elfdyn *e = malloc(sizeof(*e));

	if (!e)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	return answer(e, ms_elfdyn_open_fd(e, fd, err), read, out, err);
}

int ms_elfdyn_parse_with(const unsigned char *buf, size_t size, ms_elfdyn_reader read, char *out,
			 struct ms_error *err)
{
	struct ms_elfdyn *e = malloc(sizeof(*e));

	if (!e)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	return answer(e, ms_elfdyn_open_mem(e, buf, size, err), read, out, err);
}
