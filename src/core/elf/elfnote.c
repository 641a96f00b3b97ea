/* elfnote.c - the notes of one name and type in a bounded ELF buffer: see elfnote.h. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfnote.h"

/* Field offsets and sizes from <elf.h>, for both classes. */
struct layout {
	size_t ehdr_size;
	size_t phoff, phentsize, phnum, shoff, shentsize, shnum, shstrndx;
	size_t phdr_size, p_type, p_offset, p_filesz, p_align;
	size_t shdr_size, sh_type, sh_offset, sh_size, sh_addralign;
	unsigned word; /* 4 or 8: the width of offsets and sizes */
};

#define LAYOUT(N) { \
	sizeof(Elf##N##_Ehdr), offsetof(Elf##N##_Ehdr, e_phoff), offsetof(Elf##N##_Ehdr, e_phentsize), \
	offsetof(Elf##N##_Ehdr, e_phnum), offsetof(Elf##N##_Ehdr, e_shoff), \
	offsetof(Elf##N##_Ehdr, e_shentsize), offsetof(Elf##N##_Ehdr, e_shnum), \
	offsetof(Elf##N##_Ehdr, e_shstrndx), \
	sizeof(Elf##N##_Phdr), offsetof(Elf##N##_Phdr, p_type), offsetof(Elf##N##_Phdr, p_offset), \
	offsetof(Elf##N##_Phdr, p_filesz), offsetof(Elf##N##_Phdr, p_align), \
	sizeof(Elf##N##_Shdr), offsetof(Elf##N##_Shdr, sh_type), offsetof(Elf##N##_Shdr, sh_offset), \
	offsetof(Elf##N##_Shdr, sh_size), offsetof(Elf##N##_Shdr, sh_addralign), N / 8, \
}
static const struct layout layout32 = LAYOUT(32);
static const struct layout layout64 = LAYOUT(64);
#undef LAYOUT

struct image {
	const unsigned char *buf;
	size_t size;
	bool big_endian;
	const struct layout *lay;
	bool out_of_reach; /* a note table or note lay past the buffer */
};

/* Callers have checked that off + width <= size. */
static uint64_t get(const struct image *im, size_t off, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++) {
		unsigned shift = im->big_endian ? 8 * (width - 1 - i) : 8 * i;

		v |= (uint64_t)im->buf[off + i] << shift;
	}
	return v;
}

/* [off, off + count * each) lies inside the buffer; no overflow for any input. */
static bool in_reach(const struct image *im, uint64_t off, uint64_t count, uint64_t each)
{
	/* count and each are at most 16 bits (table counts) or 1 (byte spans). */
	if (off > im->size)
		return false;
	if (each != 0 && count > UINT64_MAX / each)
		return false;
	return count * each <= im->size - off;
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/*
 * Walk the notes in [off, off + size), as the kernel's parse_build_id does,
 * with 4- or 8-byte padding after name and descriptor (gABI: the note's
 * section or segment alignment).  32-bit sizes cannot overflow 64-bit sums.
 */
static bool scan_notes(const struct image *im, uint64_t off, uint64_t size, uint64_t align,
		       const struct ms_elfnote_want *want)
{
	const uint64_t end = off + size;

	align = align == 8 ? 8 : 4;
	while (end - off >= 12) {
		uint64_t namesz = get(im, (size_t)off, 4);
		uint64_t descsz = get(im, (size_t)off + 4, 4);
		uint64_t type = get(im, (size_t)off + 8, 4);
		uint64_t name = off + 12;
		uint64_t desc = name + align_up(namesz, align);

		if (desc > end || descsz > end - desc)
			return false;
		if (type == want->type && namesz == want->namesz && !memcmp(im->buf + name, want->name, want->namesz) &&
		    want->take(want->arg, im->buf + desc, (size_t)descsz))
			return true;
		if (align_up(descsz, align) > end - desc)
			return false;
		off = desc + align_up(descsz, align);
	}
	return false;
}

/* Look in each note entry of a header table: program or section headers. */
static bool scan_table(struct image *im, uint64_t table, uint64_t count, uint64_t entsize,
		       bool sections, const struct ms_elfnote_want *want)
{
	const struct layout *l = im->lay;
	size_t need = sections ? l->shdr_size : l->phdr_size;

	if (count == 0)
		return false;
	if (entsize < need || !in_reach(im, table, count, entsize)) {
		im->out_of_reach = true;
		return false;
	}
	for (uint64_t i = 0; i < count; i++) {
		size_t h = (size_t)(table + i * entsize);
		uint64_t type, off, size, align;

		if (sections) {
			type = get(im, h + l->sh_type, 4);
			off = get(im, h + l->sh_offset, l->word);
			size = get(im, h + l->sh_size, l->word);
			align = get(im, h + l->sh_addralign, l->word);
		} else {
			type = get(im, h + l->p_type, 4);
			off = get(im, h + l->p_offset, l->word);
			size = get(im, h + l->p_filesz, l->word);
			align = get(im, h + l->p_align, l->word);
		}
		if (type != (sections ? SHT_NOTE : PT_NOTE) || size == 0)
			continue;
		if (!in_reach(im, off, size, 1)) {
			im->out_of_reach = true;
			if (want->halt_out_of_reach)
				return false;
			continue;
		}
		if (scan_notes(im, off, size, align, want))
			return true;
	}
	return false;
}

static int reach_limit(const struct ms_elfnote_want *want, struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_LIMIT, 0, "notes beyond the first %zu KiB", want->limit / 1024);
}

int ms_elfnote_find(const unsigned char *buf, size_t size, const struct ms_elfnote_want *want,
		    struct ms_error *err)
{
	struct image im = { .buf = buf, .size = size };
	uint64_t phnum, shnum, shoff, shstrndx;
	const struct layout *l;
	bool reach;

	if (im.size < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return ms_error_set(err, MS_END, 0, "not an ELF file");
	if (buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64)
		return ms_error_set(err, MS_END, 0, "unknown ELF class");
	if (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB)
		return ms_error_set(err, MS_END, 0, "unknown ELF byte order");
	im.lay = l = buf[EI_CLASS] == ELFCLASS64 ? &layout64 : &layout32;
	im.big_endian = buf[EI_DATA] == ELFDATA2MSB;
	if (im.size < l->ehdr_size)
		return ms_error_set(err, MS_END, 0, "truncated ELF header");
	phnum = get(&im, l->phnum, 2);
	shnum = get(&im, l->shnum, 2);
	shoff = get(&im, l->shoff, l->word);
	shstrndx = get(&im, l->shstrndx, 2);
	/* The real counts would sit in section 0 (gABI extended numbering). */
	if (phnum == PN_XNUM || (shnum == 0 && shoff != 0) || shstrndx == SHN_XINDEX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "extended ELF numbering refused");
	if (scan_table(&im, get(&im, l->phoff, l->word), phnum, get(&im, l->phentsize, 2), false, want))
		return 0;
	if (im.out_of_reach && want->halt_out_of_reach)
		return reach_limit(want, err);
	/*
	 * The kernel looks at program headers only, and section headers usually
	 * sit at the end of the file: out of reach, they leave the answer
	 * unknown only when there are no program headers (relocatable objects).
	 */
	reach = im.out_of_reach;
	if (phnum > 0 && want->loaded_only)
		return reach ? reach_limit(want, err) : ms_error_set(err, MS_END, 0, "no %s", want->what);
	if (scan_table(&im, shoff, shnum, get(&im, l->shentsize, 2), true, want))
		return 0;
	if (phnum > 0)
		im.out_of_reach = reach;
	if (im.out_of_reach)
		return reach_limit(want, err);
	return ms_error_set(err, MS_END, 0, "no %s", want->what);
}

int ms_elfnote_pread(int fd, unsigned char *buf, size_t cap, size_t *have, struct ms_error *err)
{
	*have = 0;
	while (*have < cap) {
		ssize_t n = pread(fd, buf + *have, cap - *have, (off_t)*have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			return ms_error_set(err, MS_ERR_IO, e, "read: %s", strerror(e));
		}
		if (n == 0)
			break;
		*have += (size_t)n;
	}
	return 0;
}
