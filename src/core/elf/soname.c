#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/soname.h"

/* Where the bytes come from: a descriptor (pread) or memory (the fuzzer). */
struct source {
	int fd;
	const unsigned char *buf;
	uint64_t size;
	bool big_endian;
	unsigned word; /* 4 or 8 */
	int io_errno;
};

/* Read exactly len bytes at off; false when they are not all in the file. */
static bool read_at(struct source *s, uint64_t off, size_t len, unsigned char *out)
{
	size_t have = 0;

	if (off > s->size || len > s->size - off)
		return false;
	if (s->buf) {
		memcpy(out, s->buf + off, len);
		return true;
	}
	while (have < len) {
		ssize_t n = pread(s->fd, out + have, len - have, (off_t)(off + have));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			s->io_errno = errno;
		if (n <= 0)
			return false;
		have += (size_t)n;
	}
	return true;
}

static uint64_t get(const struct source *s, const unsigned char *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (s->big_endian ? 8 * (width - 1 - i) : 8 * i);
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

struct phdrs {
	unsigned char buf[MS_SONAME_PHDRS_MAX];
	size_t count, entsize;
	const struct phdr_layout *lay;
};

/* Program header i's field at offset field (a word wide, type 4). */
static uint64_t ph(const struct source *s, const struct phdrs *p, size_t i, size_t field,
		   unsigned width)
{
	return get(s, p->buf + i * p->entsize + field, width);
}

/* The file offset of virtual address addr, through the PT_LOAD that holds it in its file part. */
static bool vaddr_to_offset(const struct source *s, const struct phdrs *p, uint64_t addr,
			    uint64_t *off)
{
	for (size_t i = 0; i < p->count; i++) {
		uint64_t vaddr, filesz, poff;

		if (ph(s, p, i, p->lay->type, 4) != PT_LOAD)
			continue;
		vaddr = ph(s, p, i, p->lay->vaddr, s->word);
		filesz = ph(s, p, i, p->lay->filesz, s->word);
		poff = ph(s, p, i, p->lay->offset, s->word);
		if (addr < vaddr || addr - vaddr >= filesz)
			continue;
		if (addr - vaddr > UINT64_MAX - poff)
			return false;
		*off = poff + (addr - vaddr);
		return true;
	}
	return false;
}

static int refuse(struct source *s, struct ms_error *err, const char *why)
{
	if (s->io_errno)
		return ms_error_set(err, MS_ERR_IO, s->io_errno, "read: %s", strerror(s->io_errno));
	return ms_error_set(err, MS_ERR_LIMIT, 0, "%s", why);
}

static int read_phdrs(struct source *s, struct phdrs *p, struct ms_error *err)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	bool is64;
	uint64_t phoff, phnum, entsize;

	if (!read_at(s, 0, EI_NIDENT, eh) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return s->io_errno ? refuse(s, err, "") : ms_error_set(err, MS_END, 0, "not an ELF file");
	if ((eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return ms_error_set(err, MS_END, 0, "unknown ELF class or byte order");
	is64 = eh[EI_CLASS] == ELFCLASS64;
	s->big_endian = eh[EI_DATA] == ELFDATA2MSB;
	s->word = is64 ? 8 : 4;
	p->lay = is64 ? &phdr64 : &phdr32;
	if (!read_at(s, 0, is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr), eh))
		return refuse(s, err, "truncated ELF header");
	phoff = get(s, eh + (is64 ? offsetof(Elf64_Ehdr, e_phoff) : offsetof(Elf32_Ehdr, e_phoff)), s->word);
	phnum = get(s, eh + (is64 ? offsetof(Elf64_Ehdr, e_phnum) : offsetof(Elf32_Ehdr, e_phnum)), 2);
	entsize = get(s, eh + (is64 ? offsetof(Elf64_Ehdr, e_phentsize) : offsetof(Elf32_Ehdr, e_phentsize)), 2);
	if (phnum == PN_XNUM)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "extended ELF numbering refused");
	if (phnum == 0)
		return ms_error_set(err, MS_END, 0, "no program headers");
	if (entsize < p->lay->size)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "program headers too small");
	/* Both are 16-bit: the product cannot overflow. */
	if (phnum * entsize > MS_SONAME_PHDRS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "program headers over %u KiB",
				    MS_SONAME_PHDRS_MAX / 1024);
	if (!read_at(s, phoff, (size_t)(phnum * entsize), p->buf))
		return refuse(s, err, "program headers past the end of the file");
	p->count = (size_t)phnum;
	p->entsize = (size_t)entsize;
	return 0;
}

/* What the dynamic section says: DT_STRTAB, DT_STRSZ, DT_SONAME. */
struct dynamic {
	uint64_t strtab, strsz, soname;
	bool have_strtab, have_strsz, have_soname;
};

static int read_dynamic(struct source *s, const struct phdrs *p, struct dynamic *d,
			struct ms_error *err)
{
	unsigned char buf[MS_SONAME_DYN_MAX];
	uint64_t off = 0, size = 0;
	size_t i, entsize = 2 * s->word;
	bool found = false;

	for (i = 0; i < p->count && !found; i++) {
		if (ph(s, p, i, p->lay->type, 4) != PT_DYNAMIC)
			continue;
		off = ph(s, p, i, p->lay->offset, s->word);
		size = ph(s, p, i, p->lay->filesz, s->word);
		found = true;
	}
	if (!found)
		return ms_error_set(err, MS_END, 0, "no dynamic section");
	if (size > MS_SONAME_DYN_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "dynamic section over %u KiB",
				    MS_SONAME_DYN_MAX / 1024);
	if (!read_at(s, off, (size_t)size, buf))
		return refuse(s, err, "dynamic section past the end of the file");
	memset(d, 0, sizeof(*d));
	for (i = 0; i + entsize <= size; i += entsize) {
		uint64_t tag = get(s, buf + i, s->word), val = get(s, buf + i + s->word, s->word);

		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB && !d->have_strtab) {
			d->strtab = val;
			d->have_strtab = true;
		} else if (tag == DT_STRSZ && !d->have_strsz) {
			d->strsz = val;
			d->have_strsz = true;
		} else if (tag == DT_SONAME && !d->have_soname) {
			d->soname = val;
			d->have_soname = true;
		}
	}
	return 0;
}

static int read_soname(struct source *s, char out[MS_SONAME_MAX + 1], struct ms_error *err)
{
	struct phdrs p; /* 64 KiB, and read_dynamic's 64 KiB: fine on a main thread's stack */
	struct dynamic d;
	uint64_t stroff, at, room;
	unsigned char name[MS_SONAME_MAX + 1];
	size_t len;
	int rc;

	out[0] = '\0';
	rc = read_phdrs(s, &p, err);
	if (rc == 0)
		rc = read_dynamic(s, &p, &d, err);
	if (rc != 0)
		return rc;
	if (!d.have_soname)
		return ms_error_set(err, MS_END, 0, "no SONAME");
	if (!d.have_strtab)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "SONAME without a string table");
	if (!vaddr_to_offset(s, &p, d.strtab, &stroff))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "string table outside the loaded segments");
	if (d.have_strsz && (d.soname >= d.strsz || stroff > s->size || d.strsz > s->size - stroff))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "string table past the end of the file");
	if (d.soname > UINT64_MAX - stroff || stroff + d.soname >= s->size)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "SONAME past the end of the file");
	at = stroff + d.soname;
	room = s->size - at;
	if (d.have_strsz && d.strsz - d.soname < room)
		room = d.strsz - d.soname;
	len = room < sizeof(name) ? (size_t)room : sizeof(name);
	if (!read_at(s, at, len, name))
		return refuse(s, err, "SONAME past the end of the file");
	if (!memchr(name, '\0', len))
		return len == sizeof(name) ?
		       ms_error_set(err, MS_ERR_LIMIT, 0, "SONAME longer than %d bytes", MS_SONAME_MAX) :
		       ms_error_set(err, MS_ERR_LIMIT, 0, "SONAME runs past the end of its table");
	memcpy(out, name, strlen((const char *)name) + 1);
	if (!out[0])
		return ms_error_set(err, MS_END, 0, "empty SONAME");
	return 0;
}

int ms_soname_read_fd(int fd, char out[MS_SONAME_MAX + 1], struct ms_error *err)
{
	struct source s = { .fd = fd };
	struct stat st;

	out[0] = '\0';
	if (fstat(fd, &st) < 0)
		return ms_error_set(err, MS_ERR_IO, errno, "stat: %s", strerror(errno));
	s.size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return read_soname(&s, out, err);
}

int ms_soname_parse(const unsigned char *buf, size_t size, char out[MS_SONAME_MAX + 1],
		    struct ms_error *err)
{
	struct source s = { .fd = -1, .buf = buf, .size = size };

	return read_soname(&s, out, err);
}

size_t ms_version_from_name(const char *name, size_t len, char out[MS_VERSION_MAX + 1])
{
	static const char deleted[] = " (deleted)";
	const char *base = name, *v = NULL;
	size_t n = 0;

	out[0] = '\0';
	if (!name)
		return 0;
	if (len >= sizeof(deleted) - 1 && !memcmp(name + len - (sizeof(deleted) - 1), deleted,
						   sizeof(deleted) - 1))
		len -= sizeof(deleted) - 1;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '/')
			base = name + i + 1;
	for (const char *p = base; p + 4 <= name + len; p++)
		if (!memcmp(p, ".so.", 4))
			v = p + 4;
	if (!v || v >= name + len || *v < '0' || *v > '9')
		return 0;
	for (const char *p = v; p < name + len; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			return 0;
	n = (size_t)(name + len - v);
	if (n > MS_VERSION_MAX || v[n - 1] == '.')
		return 0;
	memcpy(out, v, n);
	out[n] = '\0';
	return n;
}
