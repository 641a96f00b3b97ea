/*
 * The ELF header checks (src/core/elf/elfcheck.h) on files made here, each
 * written to a real file and checked both through its descriptor and from
 * its bytes in memory (the two must agree):
 *   - a small well-formed file, this test's own executable, and every
 *     installed debug file and shared library are accepted;
 *   - a section whose bytes lie past the file's end, more sections than
 *     MS_ELFCHECK_SECTIONS_MAX (all of them otherwise harmless), a
 *     compressed section (SHF_COMPRESSED, and a GNU ".zdebug" one) that
 *     claims to inflate past MS_ELFCHECK_INFLATE_MAX, many compressed
 *     sections each under it that together inflate past
 *     MS_ELFCHECK_INFLATE_TOTAL_MAX, a compressed symbol table whose
 *     inflated size holds too many symbols (or no whole entries), extended numbering
 *     (section count in section 0, program header count PN_XNUM with a
 *     table that does fit in the file), a symbol table of odd-sized
 *     entries, and packed symbols in a file a user could write are each
 *     refused with MS_ERR_LIMIT and the reason for that check;
 *   - a file that does not start with the ELF magic is MS_END.
 * Every crafted file differs from the good one only where its check looks,
 * so removing that check lets the file through and the test fails.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf/elfcheck.h"

/* The good file's layout. */
#define NAMES_OFF 64u
#define TEXT_OFF 256u
#define SYMTAB_OFF 320u
#define STRTAB_OFF 368u
#define SHDR_OFF 512u
#define NSECTIONS 6u
#define GOOD_SIZE (SHDR_OFF + NSECTIONS * sizeof(Elf64_Shdr))

static const char names[] = "\0.shstrtab\0.text\0.symtab\0.strtab\0.comment";
enum { N_SHSTRTAB = 1, N_TEXT = 11, N_SYMTAB = 17, N_STRTAB = 25, N_COMMENT = 33 };

struct image {
	unsigned char *buf;
	size_t len;
};

static Elf64_Ehdr *ehdr(struct image *im)
{
	return (Elf64_Ehdr *)im->buf;
}

static Elf64_Shdr *shdr(struct image *im, unsigned i)
{
	return (Elf64_Shdr *)(im->buf + ehdr(im)->e_shoff) + i;
}

static void section(struct image *im, unsigned i, unsigned name, unsigned type, uint64_t off,
		    uint64_t size)
{
	Elf64_Shdr *sh = shdr(im, i);

	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_offset = off;
	sh->sh_size = size;
}

/*
 * A relocatable file with a name table, 64 bytes of .text, a two-entry
 * .symtab linked to its .strtab and a 32-byte .comment; room for len bytes
 * in all (len >= GOOD_SIZE; the rest is zeros after the headers).
 */
static struct image good(size_t len)
{
	struct image im = { calloc(1, len), len };
	Elf64_Ehdr *eh;

	assert_non_null(im.buf);
	eh = ehdr(&im);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shoff = SHDR_OFF;
	eh->e_shnum = NSECTIONS;
	eh->e_shstrndx = 1;
	memcpy(im.buf + NAMES_OFF, names, sizeof(names));
	memcpy(im.buf + STRTAB_OFF + 1, "f", 2);
	section(&im, 1, N_SHSTRTAB, SHT_STRTAB, NAMES_OFF, sizeof(names));
	section(&im, 2, N_TEXT, SHT_PROGBITS, TEXT_OFF, 64);
	section(&im, 3, N_SYMTAB, SHT_SYMTAB, SYMTAB_OFF, 2 * sizeof(Elf64_Sym));
	shdr(&im, 3)->sh_entsize = sizeof(Elf64_Sym);
	shdr(&im, 3)->sh_link = 4;
	section(&im, 4, N_STRTAB, SHT_STRTAB, STRTAB_OFF, 3);
	section(&im, 5, N_COMMENT, SHT_PROGBITS, TEXT_OFF + 64, 32);
	((Elf64_Sym *)(im.buf + SYMTAB_OFF))[1].st_name = 1;
	return im;
}

/* Check im as a file (written to a real one) and from memory; both must agree. */
static int check(const struct image *im, bool trusted, struct ms_error *err)
{
	char path[] = "/tmp/ms-elfcheck-XXXXXX";
	struct ms_error err2 = { 0 };
	struct stat st;
	int fd = mkstemp(path), rc, rc2;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, im->buf, im->len), (ssize_t)im->len);
	assert_int_equal(fstat(fd, &st), 0);
	rc = ms_elfcheck_fd(fd, (uint64_t)st.st_size, trusted, err);
	close(fd);
	rc2 = ms_elfcheck_mem(im->buf, im->len, trusted, &err2);
	assert_int_equal(rc, rc2);
	assert_string_equal(err->msg, err2.msg);
	return rc;
}

static void expect_refused(struct image *im, bool trusted, const char *reason)
{
	struct ms_error err = { 0 };

	assert_int_equal(check(im, trusted, &err), MS_ERR_LIMIT);
	if (!strstr(err.msg, reason))
		fail_msg("refused for \"%s\", not \"%s\"", err.msg, reason);
	free(im->buf);
}

static void test_good_files_accepted(void **state)
{
	struct image im = good(GOOD_SIZE);
	struct ms_error err = { 0 };
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(check(&im, false, &err), 0);
	free(im.buf);
	/* A real program: this test. */
	fd = open("/proc/self/exe", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	im.len = (size_t)st.st_size;
	im.buf = malloc(im.len);
	assert_non_null(im.buf);
	assert_int_equal(pread(fd, im.buf, im.len, 0), (ssize_t)im.len);
	close(fd);
	assert_int_equal(check(&im, false, &err), 0);
	free(im.buf);
}

/*
 * Every installed debug file and shared library (a linker script is
 * MS_END): what distributions ship stays under every bound.
 */
static void test_installed_files_accepted(void **state)
{
	static const char *const patterns[] = {
		"/usr/lib/debug/.build-id/*/*.debug", "/usr/lib/*-linux-gnu/*.so*", "/usr/lib/*-linux-gnu/*/*.so*",
	};
	size_t checked = 0;

	(void)state;
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		glob_t g;

		if (glob(patterns[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct ms_error err = { 0 };
			struct stat st;
			int fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc;

			if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			rc = ms_elfcheck_fd(fd, (uint64_t)st.st_size, true, &err);
			close(fd);
			if (rc != 0 && rc != MS_END)
				fail_msg("%s refused: %s", g.gl_pathv[i], err.msg);
			checked++;
		}
		globfree(&g);
	}
	print_message("%zu installed files checked\n", checked);
}

static void test_not_elf(void **state)
{
	struct image im = good(GOOD_SIZE);
	struct ms_error err = { 0 };

	(void)state;
	im.buf[1] = 'X';
	assert_int_equal(check(&im, false, &err), MS_END);
	free(im.buf);
}

static void test_section_past_end(void **state)
{
	struct image im = good(GOOD_SIZE);

	(void)state;
	/* .comment runs one byte past the end of the file. */
	shdr(&im, 5)->sh_offset = GOOD_SIZE - 31;
	expect_refused(&im, true, "a section lies past the end of the file");
}

static void test_too_many_sections(void **state)
{
	size_t n = MS_ELFCHECK_SECTIONS_MAX + 1;
	struct image im = good(SHDR_OFF + n * sizeof(Elf64_Shdr));

	(void)state;
	/* The extra sections are empty SHT_NULL ones, and the table fits the file. */
	ehdr(&im)->e_shnum = (Elf64_Half)n;
	expect_refused(&im, true, "more than 4096 sections");
}

static void test_compressed_section_too_big(void **state)
{
	struct image im = good(GOOD_SIZE);
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = (uint64_t)MS_ELFCHECK_INFLATE_MAX + 1,
			  .ch_addralign = 1 };
	static const unsigned char zdebug[12] = { 'Z', 'L', 'I', 'B', 0, 0, 0, 1, 0, 0, 0, 0 };

	(void)state;
	shdr(&im, 5)->sh_flags |= SHF_COMPRESSED;
	memcpy(im.buf + shdr(&im, 5)->sh_offset, &ch, sizeof(ch));
	expect_refused(&im, true, "a section inflates past 64 MiB");

	/* A GNU .zdebug section that says it holds 4 GiB (big-endian size after "ZLIB"). */
	im = good(GOOD_SIZE);
	memcpy(im.buf + NAMES_OFF + N_COMMENT, ".zdebug", 7);
	memcpy(im.buf + shdr(&im, 5)->sh_offset, zdebug, sizeof(zdebug));
	expect_refused(&im, true, "a section inflates past 64 MiB");
}

/* Make section i compressed (SHF_COMPRESSED), its header saying it inflates to size bytes. */
static void compress(struct image *im, unsigned i, uint64_t size)
{
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB, .ch_size = size, .ch_addralign = 1 };

	shdr(im, i)->sh_flags |= SHF_COMPRESSED;
	memcpy(im->buf + shdr(im, i)->sh_offset, &ch, sizeof(ch));
}

/* The good file and count more compressed sections, each saying it inflates to each bytes. */
static struct image many_compressed(unsigned count, uint64_t each)
{
	size_t data = SHDR_OFF + (NSECTIONS + count) * sizeof(Elf64_Shdr);
	struct image im = good(data + count * sizeof(Elf64_Chdr));

	ehdr(&im)->e_shnum = (Elf64_Half)(NSECTIONS + count);
	for (unsigned i = 0; i < count; i++) {
		section(&im, NSECTIONS + i, N_COMMENT, SHT_PROGBITS, data + i * sizeof(Elf64_Chdr),
			sizeof(Elf64_Chdr));
		compress(&im, NSECTIONS + i, each);
	}
	return im;
}

/* Each section under the bound is not enough: libdw inflates them all. */
static void test_compressed_sections_in_all(void **state)
{
	struct image im = many_compressed(16, MS_ELFCHECK_INFLATE_TOTAL_MAX / 16);
	struct ms_error err = { 0 };

	(void)state;
	assert_int_equal(check(&im, true, &err), 0);
	free(im.buf);
	im = many_compressed(17, MS_ELFCHECK_INFLATE_TOTAL_MAX / 16);
	expect_refused(&im, true, "compressed sections inflate past 64 MiB in all");
	/* 17 debug sections of 256 MiB each: over 4 GiB from one file. */
	im = many_compressed(17, 256u << 20);
	expect_refused(&im, true, "a section inflates past 64 MiB");
}

/* A compressed symbol table is judged by what it inflates to, as libelf holds it. */
static void test_compressed_symbol_table(void **state)
{
	struct image im = good(GOOD_SIZE);
	struct ms_error err = { 0 };

	(void)state;
	compress(&im, 3, 2 * sizeof(Elf64_Sym));
	assert_int_equal(check(&im, true, &err), 0);
	free(im.buf);
	/* 48 bytes in the file, more symbols than the bound once inflated. */
	im = good(GOOD_SIZE);
	compress(&im, 3, ((uint64_t)MS_ELFCHECK_SYMBOLS_MAX + 1) * sizeof(Elf64_Sym));
	expect_refused(&im, true, "a section inflates past 64 MiB");
	/* Whole entries in the file, not once inflated. */
	im = good(GOOD_SIZE);
	compress(&im, 3, sizeof(Elf64_Sym) + 1);
	expect_refused(&im, true, "symbol table entry size refused");
	/* It counts toward the file's total too. */
	im = many_compressed(16, MS_ELFCHECK_INFLATE_TOTAL_MAX / 16);
	compress(&im, 3, 2 * sizeof(Elf64_Sym));
	expect_refused(&im, true, "compressed sections inflate past 64 MiB in all");
}

static void test_extended_numbering(void **state)
{
	size_t big = sizeof(Elf64_Ehdr) + (size_t)PN_XNUM * sizeof(Elf64_Phdr) + GOOD_SIZE;
	struct image im = good(GOOD_SIZE);

	(void)state;
	/* The section count in section 0's sh_size, as extended numbering has it. */
	shdr(&im, 0)->sh_size = NSECTIONS;
	ehdr(&im)->e_shnum = 0;
	expect_refused(&im, true, "extended ELF numbering refused");

	/* PN_XNUM program headers, a table that fits in the file. */
	im = good(big);
	ehdr(&im)->e_phoff = GOOD_SIZE;
	ehdr(&im)->e_phentsize = sizeof(Elf64_Phdr);
	ehdr(&im)->e_phnum = PN_XNUM;
	expect_refused(&im, true, "extended ELF numbering refused");
}

static void test_symbol_table_entries(void **state)
{
	struct image im = good(GOOD_SIZE);

	(void)state;
	shdr(&im, 3)->sh_entsize = sizeof(Elf64_Sym) - 1;
	expect_refused(&im, true, "symbol table entry size refused");
}

static void test_packed_symbols_untrusted(void **state)
{
	struct image im = good(GOOD_SIZE);
	struct ms_error err = { 0 };

	(void)state;
	memcpy(im.buf + NAMES_OFF, "\0.gnu_debugdata", 16);
	section(&im, 5, 1, SHT_PROGBITS, TEXT_OFF + 64, 32);
	/* Root's own files may carry them: libdw inflates those. */
	assert_int_equal(check(&im, true, &err), 0);
	expect_refused(&im, false, "packed symbols (.gnu_debugdata)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_files_accepted),
		cmocka_unit_test(test_installed_files_accepted),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_section_past_end),
		cmocka_unit_test(test_too_many_sections),
		cmocka_unit_test(test_compressed_section_too_big),
		cmocka_unit_test(test_compressed_sections_in_all),
		cmocka_unit_test(test_compressed_symbol_table),
		cmocka_unit_test(test_extended_numbering),
		cmocka_unit_test(test_symbol_table_entries),
		cmocka_unit_test(test_packed_symbols_untrusted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
