#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfcheck.h"

struct source {
	int fd;                   /* -1: bytes in memory */
	const unsigned char *mem;
	uint64_t size;
};

/* [off, off + len) lies inside the file; no overflow for any input. */
static bool inside(const struct source *s, uint64_t off, uint64_t len)
{
	return off <= s->size && len <= s->size - off;
}

static int fetch(const struct source *s, uint64_t off, void *out, size_t len, struct ms_error *err)
{
	size_t done = 0;

	if (!inside(s, off, len))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "a header lies past the end of the file");
	if (s->fd < 0) {
		memcpy(out, s->mem + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(s->fd, (char *)out + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ms_error_set(err, MS_ERR_IO, n < 0 ? errno : 0, "the file could not be read");
		done += (size_t)n;
	}
	return 0;
}

static int check_ehdr(const struct source *s, Elf64_Ehdr *eh, struct ms_error *err)
{
	if (s->size < SELFMAG || fetch(s, 0, eh, SELFMAG, NULL) < 0 || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return MS_END;
	if (fetch(s, 0, eh, sizeof(*eh), NULL) < 0)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "ELF header cut short");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] !=
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	    ELFDATA2LSB
#else
	    ELFDATA2MSB
#endif
	   )
		return ms_error_set(err, MS_ERR_LIMIT, 0, "not a native 64-bit ELF file");
	if (eh->e_phnum == PN_XNUM || eh->e_shstrndx == SHN_XINDEX || (eh->e_shnum == 0 && eh->e_shoff))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "extended ELF numbering refused");
	if ((eh->e_phnum && eh->e_phentsize != sizeof(Elf64_Phdr)) ||
	    (eh->e_shnum && eh->e_shentsize != sizeof(Elf64_Shdr)))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "ELF header entry sizes refused");
	if (eh->e_shnum > MS_ELFCHECK_SECTIONS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "more than %u sections", MS_ELFCHECK_SECTIONS_MAX);
	if (!inside(s, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
	    !inside(s, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "header table past the end of the file");
	if (eh->e_shnum && eh->e_shstrndx >= eh->e_shnum)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "section name table out of range");
	return 0;
}

/* size: the table's bytes as libelf will hold them (inflated, when compressed). */
static int check_symtab(const Elf64_Shdr *sh, uint64_t size, const Elf64_Shdr *all, unsigned n,
			struct ms_error *err)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || size % sizeof(Elf64_Sym))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "symbol table entry size refused");
	if (size / sizeof(Elf64_Sym) > MS_ELFCHECK_SYMBOLS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "more than %u symbols", MS_ELFCHECK_SYMBOLS_MAX);
	if (sh->sh_link >= n || all[sh->sh_link].sh_type != SHT_STRTAB)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "symbol table without a string table");
	return 0;
}

/*
 * How many bytes a compressed section inflates to, from its own header,
 * into *inflated; each is bounded, and so is their sum over the file (*total):
 * libdw inflates every debug section it is asked for, so many sections
 * each under the bound would together still take gigabytes.
 */
static int check_compressed(const struct source *s, const Elf64_Shdr *sh, bool zdebug,
			    uint64_t *inflated_out, uint64_t *total, struct ms_error *err)
{
	uint64_t inflated = 0;

	if (zdebug) {
		unsigned char hdr[12];

		/* "ZLIB" then the size, big-endian (the GNU .zdebug format). */
		if (sh->sh_size < sizeof(hdr) || fetch(s, sh->sh_offset, hdr, sizeof(hdr), err) < 0)
			return ms_error_set(err, MS_ERR_LIMIT, 0, "compressed section cut short");
		for (int i = 4; i < 12; i++)
			inflated = inflated << 8 | hdr[i];
	} else {
		Elf64_Chdr ch;

		if (sh->sh_size < sizeof(ch) || fetch(s, sh->sh_offset, &ch, sizeof(ch), err) < 0)
			return ms_error_set(err, MS_ERR_LIMIT, 0, "compressed section cut short");
		inflated = ch.ch_size;
	}
	if (inflated > MS_ELFCHECK_INFLATE_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "a section inflates past %u MiB",
				    MS_ELFCHECK_INFLATE_MAX >> 20);
	*total += inflated;
	if (*total > MS_ELFCHECK_INFLATE_TOTAL_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "compressed sections inflate past %u MiB in all",
				    MS_ELFCHECK_INFLATE_TOTAL_MAX >> 20);
	*inflated_out = inflated;
	return 0;
}

/* The name of section sh, or "" when it has none inside the name table. */
static const char *section_name(const char *names, size_t len, const Elf64_Shdr *sh)
{
	if (!names || sh->sh_name >= len || !memchr(names + sh->sh_name, '\0', len - sh->sh_name))
		return "";
	return names + sh->sh_name;
}

/*
 * Every section: a compressed one (whatever its type) by what it inflates
 * to, and a symbol table by its size as libelf will hold it, inflated.
 */
static int check_sections(const struct source *s, const Elf64_Shdr *sh, unsigned n,
			  const char *names, size_t names_len, bool trusted, struct ms_error *err)
{
	uint64_t total = 0;

	for (unsigned i = 1; i < n; i++) {
		const char *name = section_name(names, names_len, &sh[i]);
		bool has_bytes = sh[i].sh_type != SHT_NOBITS;
		uint64_t size = sh[i].sh_size;
		int rc = 0;

		if (has_bytes && !inside(s, sh[i].sh_offset, sh[i].sh_size))
			return ms_error_set(err, MS_ERR_LIMIT, 0, "a section lies past the end of the file");
		if (sh[i].sh_link >= n)
			return ms_error_set(err, MS_ERR_LIMIT, 0, "a section links out of range");
		if (has_bytes && (sh[i].sh_flags & SHF_COMPRESSED))
			rc = check_compressed(s, &sh[i], false, &size, &total, err);
		else if (has_bytes && !strncmp(name, ".zdebug", 7))
			rc = check_compressed(s, &sh[i], true, &size, &total, err);
		if (rc == 0 && (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM))
			rc = check_symtab(&sh[i], size, sh, n, err);
		if (rc < 0)
			return rc;
		if (!trusted && !strcmp(name, ".gnu_debugdata"))
			return ms_error_set(err, MS_ERR_LIMIT, 0,
					    "packed symbols (.gnu_debugdata) in a file a user could write");
	}
	return 0;
}

static int check(const struct source *s, bool trusted, struct ms_error *err)
{
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	size_t names_len = 0;
	Elf64_Ehdr eh;
	int rc = check_ehdr(s, &eh, err);

	if (rc != 0 || eh.e_shnum == 0)
		return rc;
	sh = malloc((size_t)eh.e_shnum * sizeof(*sh));
	if (!sh)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = fetch(s, eh.e_shoff, sh, (size_t)eh.e_shnum * sizeof(*sh), err);
	if (rc == 0 && sh[eh.e_shstrndx].sh_type == SHT_STRTAB) {
		const Elf64_Shdr *ns = &sh[eh.e_shstrndx];

		if (ns->sh_size > MS_ELFCHECK_TABLE_MAX || !inside(s, ns->sh_offset, ns->sh_size))
			rc = ms_error_set(err, MS_ERR_LIMIT, 0, "section name table refused");
		else if (!(names = malloc(ns->sh_size ? ns->sh_size : 1)))
			rc = ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
		else if ((rc = fetch(s, ns->sh_offset, names, ns->sh_size, err)) == 0)
			names_len = ns->sh_size;
	}
	if (rc == 0)
		rc = check_sections(s, sh, eh.e_shnum, names, names_len, trusted, err);
	free(names);
	free(sh);
	return rc;
}

int ms_elfcheck_fd(int fd, uint64_t file_size, bool trusted, struct ms_error *err)
{
	struct source s = { .fd = fd, .size = file_size };

	return check(&s, trusted, err);
}

int ms_elfcheck_mem(const unsigned char *buf, size_t size, bool trusted, struct ms_error *err)
{
	struct source s = { .fd = -1, .mem = buf, .size = size };

	return check(&s, trusted, err);
}
