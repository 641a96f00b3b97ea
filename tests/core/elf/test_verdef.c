/*
 * LIBVER (verdef.h): the highest version definition of a library.
 *   - libc.so.6 as this test runs it: the answer equals the highest
 *     GLIBC_x.y that readelf -V lists, ordered by sort -V;
 *   - a library built with a version script (tests/verdef_lib.map) whose
 *     highest number, MSV_1.10, is not the highest as text;
 *   - crafted ELF images, from memory and from a file (the two must agree):
 *     the base definition and names without a number left out, equal
 *     numbers keeping the first, and the hostile ones: a vd_next that would
 *     wrap back in 32 bits, a huge DT_VERDEFNUM, a long chain without one,
 *     a vda_next loop, offsets out of the file, an unknown revision, every
 *     truncation of the file;
 *   - the order of names: numbers part by part, of any length.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/elf/soname.h"
#include "core/elf/verdef.h"
#include "testutil.h"

/* A library this process runs: the path the loader found it at. */
static const char *loaded_path(void *symbol)
{
	Dl_info info;

	if (!dladdr(symbol, &info) || !info.dli_fname)
		fail_msg("dladdr found no library");
	return info.dli_fname;
}

static void test_libc_matches_readelf(void **state)
{
	const char *libc = loaded_path((void *)printf);
	char *want = tu_readelf_highest(libc, "GLIBC");
	char out[MS_VERDEF_NAME_MAX + 1];
	struct ms_error err = { 0 };
	int fd;

	(void)state;
	if (!want)
		skip(); /* no readelf: no reference to compare with */
	fd = open(libc, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_verdef_read_fd(fd, out, &err), 0);
	assert_string_equal(out, want);
	close(fd);
	free(want);
}

/* The version script's definitions: MSV_1.10 above MSV_1.9.3 and MSV_1.2, not MSV_PRIVATE or OTHER_0.5. */
static void test_built_library(void **state)
{
	char *lib = tu_built("libms-verdef.so");
	char out[MS_VERDEF_NAME_MAX + 1], soname[MS_SONAME_MAX + 1];
	struct ms_error err = { 0 };
	struct ms_elfdyn e;
	int fd;

	(void)state;
	assert_non_null(lib);
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot open %s", lib);
	assert_int_equal(ms_verdef_read_fd(fd, out, &err), 0);
	assert_string_equal(out, "MSV_1.10");
	/* One reader for both: the SONAME and the version from one open. */
	assert_int_equal(ms_elfdyn_open_fd(&e, fd, &err), 0);
	assert_int_equal(ms_soname_of(&e, soname, &err), 0);
	assert_string_equal(soname, "libms-verdef.so.1");
	assert_int_equal(ms_verdef_of(&e, out, &err), 0);
	assert_string_equal(out, "MSV_1.10");
	close(fd);
	free(lib);
	/* An executable defines no versions. */
	fd = open(getenv("MS_FIXTURE"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_verdef_read_fd(fd, out, &err), MS_END);
	assert_string_equal(err.msg, "no version definitions");
	assert_string_equal(out, "");
	close(fd);
}

/*
 * A crafted ELF64 image: a PT_LOAD over the whole file, PT_DYNAMIC with
 * DT_STRTAB, DT_STRSZ, DT_VERDEF, DT_VERDEFNUM, DT_SONAME, then n
 * definitions (each a Verdef and its one Verdaux, 28 bytes, chained by
 * vd_next), names[0] the base one, then the string table.
 */
#define VADDR 0x10000u
#define DEF_SIZE (sizeof(Elf64_Verdef) + sizeof(Elf64_Verdaux))
#define DYN_STRTAB 0
#define DYN_STRSZ 1
#define DYN_VERDEF 2
#define DYN_VERDEFNUM 3

struct image {
	unsigned char *buf;
	size_t size;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Dyn *dyn;
	size_t vd_off, str_off;
};

static Elf64_Verdef *def(struct image *im, size_t i)
{
	return (Elf64_Verdef *)(im->buf + im->vd_off + i * DEF_SIZE);
}

static Elf64_Verdaux *aux(struct image *im, size_t i)
{
	return (Elf64_Verdaux *)(im->buf + im->vd_off + i * DEF_SIZE + sizeof(Elf64_Verdef));
}

static void build(struct image *im, const char *const *names, size_t n)
{
	size_t strsz = 1, at;

	for (size_t i = 0; i < n; i++)
		strsz += strlen(names[i]) + 1;
	im->vd_off = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr) + 6 * sizeof(Elf64_Dyn);
	im->str_off = im->vd_off + n * DEF_SIZE;
	im->size = im->str_off + strsz;
	im->buf = calloc(1, im->size);
	assert_non_null(im->buf);
	im->eh = (Elf64_Ehdr *)im->buf;
	im->ph = (Elf64_Phdr *)(im->buf + sizeof(Elf64_Ehdr));
	im->dyn = (Elf64_Dyn *)(im->buf + sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr));
	memcpy(im->eh->e_ident, ELFMAG, SELFMAG);
	im->eh->e_ident[EI_CLASS] = ELFCLASS64;
	im->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh->e_ident[EI_VERSION] = EV_CURRENT;
	im->eh->e_type = ET_DYN;
	im->eh->e_phoff = sizeof(Elf64_Ehdr);
	im->eh->e_phentsize = sizeof(Elf64_Phdr);
	im->eh->e_phnum = 2;
	im->ph[0].p_type = PT_LOAD;
	im->ph[0].p_vaddr = VADDR;
	im->ph[0].p_filesz = im->ph[0].p_memsz = im->size;
	im->ph[1].p_type = PT_DYNAMIC;
	im->ph[1].p_offset = (Elf64_Off)((unsigned char *)im->dyn - im->buf);
	im->ph[1].p_filesz = 6 * sizeof(Elf64_Dyn);
	im->dyn[DYN_STRTAB].d_tag = DT_STRTAB;
	im->dyn[DYN_STRTAB].d_un.d_ptr = VADDR + im->str_off;
	im->dyn[DYN_STRSZ].d_tag = DT_STRSZ;
	im->dyn[DYN_STRSZ].d_un.d_val = strsz;
	im->dyn[DYN_VERDEF].d_tag = DT_VERDEF;
	im->dyn[DYN_VERDEF].d_un.d_ptr = VADDR + im->vd_off;
	im->dyn[DYN_VERDEFNUM].d_tag = DT_VERDEFNUM;
	im->dyn[DYN_VERDEFNUM].d_un.d_val = n;
	im->dyn[4].d_tag = DT_SONAME;
	im->dyn[4].d_un.d_val = 1;
	at = 1;
	for (size_t i = 0; i < n; i++) {
		Elf64_Verdef *d = def(im, i);

		d->vd_version = VER_DEF_CURRENT;
		d->vd_flags = i == 0 ? VER_FLG_BASE : 0;
		d->vd_ndx = (Elf64_Half)(i + 1);
		d->vd_cnt = 1;
		d->vd_aux = sizeof(Elf64_Verdef);
		d->vd_next = i + 1 < n ? DEF_SIZE : 0;
		aux(im, i)->vda_name = (Elf64_Word)at;
		memcpy(im->buf + im->str_off + at, names[i], strlen(names[i]) + 1);
		at += strlen(names[i]) + 1;
	}
}

/* The answer from memory and from a file agree; returns the code, the reason in why. */
static int libver_of(const struct image *im, size_t size, char *out, char *why)
{
	struct ms_error e1 = { 0 }, e2 = { 0 };
	char again[MS_VERDEF_NAME_MAX + 1];
	int fd = memfd_create("crafted", MFD_CLOEXEC), rc, rc2;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, im->buf, size), (ssize_t)size);
	rc = ms_verdef_parse(im->buf, size, out, &e1);
	rc2 = ms_verdef_read_fd(fd, again, &e2);
	close(fd);
	assert_int_equal(rc, rc2);
	assert_string_equal(out, again);
	assert_string_equal(e1.msg, e2.msg);
	if (rc != 0)
		assert_string_equal(out, "");
	strcpy(why, rc ? e1.msg : "");
	return rc;
}

static const char *const sane[] = { "libcraft.so.1", "CRAFT_1.2", "CRAFT_PRIVATE", "CRAFT_1.10",
				     "CRAFT_1.9.3", "OTHER_0.7", "libcraft.so.1" };
#define NSANE (sizeof(sane) / sizeof(sane[0]))

static void test_crafted(void **state)
{
	static const char *const only_base[] = { "libcraft.so.1", "CRAFT_PRIVATE", "2.0", "_1.0", "A_1.", "A_1..2" };
	static const char *const ties[] = { "lib.so", "FFI_BASE_8.0", "FFI_CLOSURE_8.0", "FFI_GO_8.0" };
	struct image im;
	char out[MS_VERDEF_NAME_MAX + 1], why[256];

	(void)state;
	build(&im, sane, NSANE);
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_1.10");
	/* The base definition is the SONAME, whatever its name says. */
	def(&im, 0)->vd_flags = 0;
	memcpy(im.buf + im.str_off + aux(&im, 0)->vda_name, "CRAFT_9.0", 10);
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_9.0");
	def(&im, 0)->vd_flags = VER_FLG_BASE;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_1.10");
	/* A definition without auxiliary entries has no name: skipped. */
	def(&im, 3)->vd_cnt = 0;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_1.9.3");
	free(im.buf);

	build(&im, only_base, sizeof(only_base) / sizeof(only_base[0]));
	assert_int_equal(libver_of(&im, im.size, out, why), MS_END);
	assert_string_equal(why, "no numbered version definition");
	free(im.buf);

	/* Equal numbers under other prefixes: the first defined. */
	build(&im, ties, sizeof(ties) / sizeof(ties[0]));
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "FFI_BASE_8.0");
	/* No DT_VERDEF: a normal none. */
	im.dyn[DYN_VERDEF].d_tag = DT_NEEDED;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_END);
	assert_string_equal(why, "no version definitions");
	free(im.buf);
}

static void test_crafted_hostile(void **state)
{
	struct image im;
	char out[MS_VERDEF_NAME_MAX + 1], why[256];
	char longname[300];

	(void)state;
	/* A vd_next that wraps back to its own entry in 32-bit arithmetic: past the end, not a loop. */
	build(&im, sane, NSANE);
	def(&im, 2)->vd_next = UINT32_MAX - (Elf64_Word)DEF_SIZE + 1;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "version definition past the end of the file");
	/* A vd_next of 0 before the count ends the chain: what came before counts. */
	def(&im, 2)->vd_next = 0;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_1.2");
	free(im.buf);

	/* A vda_next that loops back in 32 bits, with a huge vd_cnt, is never followed: parents are not read. */
	build(&im, sane, NSANE);
	aux(&im, 1)->vda_next = UINT32_MAX - (Elf64_Word)sizeof(Elf64_Verdaux) + 1;
	def(&im, 1)->vd_cnt = UINT16_MAX;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	assert_string_equal(out, "CRAFT_1.10");
	/* vd_aux out of the file; a name out of the string table; DT_VERDEF outside PT_LOAD. */
	def(&im, 1)->vd_aux = UINT32_MAX;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "version name entry past the end of the file");
	def(&im, 1)->vd_aux = sizeof(Elf64_Verdef);
	aux(&im, 4)->vda_name = UINT32_MAX;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "string table past the end of the file");
	aux(&im, 4)->vda_name = 1;
	im.dyn[DYN_VERDEF].d_un.d_ptr = 0x42;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "version definitions outside the loaded segments");
	im.dyn[DYN_VERDEF].d_un.d_ptr = VADDR + im.vd_off;
	/* A revision the format does not know. */
	def(&im, 3)->vd_version = 2;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "version definition of unknown revision 2");
	def(&im, 3)->vd_version = VER_DEF_CURRENT;
	/* A count no library has is refused before any walk. */
	im.dyn[DYN_VERDEFNUM].d_un.d_val = UINT64_MAX;
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "over 1024 version definitions");
	im.dyn[DYN_VERDEFNUM].d_un.d_val = NSANE;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	/* Every truncation: an answer, never a read past the end (ASan, valgrind). */
	for (size_t size = 0; size < im.size; size++) {
		int rc = libver_of(&im, size, out, why);

		assert_true(rc == 0 || rc == MS_END || rc == MS_ERR_LIMIT);
	}
	free(im.buf);

	/* A name over MS_VERDEF_NAME_MAX bytes is refused, not cut. */
	memset(longname, 'X', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	{
		const char *names[] = { "lib.so", "A_1.0", longname };

		build(&im, names, 3);
		assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
		assert_string_equal(why, "version name longer than 128 bytes");
		free(im.buf);
	}
}

/* Without DT_VERDEFNUM a chain of 2000 definitions is walked to MS_VERDEF_DEFS_MAX, no further. */
static void test_long_chain_is_bounded(void **state)
{
	enum { N = 2000 };
	static char names[N][16];
	const char *ptrs[N];
	struct image im;
	char out[MS_VERDEF_NAME_MAX + 1], why[256], want[16];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), i ? "C_%zu" : "lib.so", i);
		ptrs[i] = names[i];
	}
	build(&im, ptrs, N);
	assert_int_equal(libver_of(&im, im.size, out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "over 1024 version definitions");
	im.dyn[DYN_VERDEFNUM].d_tag = DT_NEEDED;
	assert_int_equal(libver_of(&im, im.size, out, why), 0);
	snprintf(want, sizeof(want), "C_%u", MS_VERDEF_DEFS_MAX - 1);
	assert_string_equal(out, want);
	free(im.buf);
}

static void test_order(void **state)
{
	(void)state;
	assert_true(ms_verdef_cmp("GLIBC_2.36", "GLIBC_2.4") > 0);
	assert_true(ms_verdef_cmp("GLIBC_2.3.2", "GLIBC_2.3") > 0);
	assert_true(ms_verdef_cmp("GLIBC_2.3", "GLIBC_2.3.2") < 0);
	assert_true(ms_verdef_cmp("GLIBCXX_3.4.30", "CXXABI_1.3.13") > 0);
	assert_int_equal(ms_verdef_cmp("A_010.2", "B_10.02"), 0);
	assert_true(ms_verdef_cmp("A_1.99999999999999999999999", "A_1.9999999999999999999999") > 0);
	assert_true(ms_verdef_cmp("NCURSES6_TINFO_6.2.20211010", "NCURSES6_TINFO_6.2.20200212") > 0);
	assert_true(ms_verdef_cmp("ELFUTILS_0.188", "ELFUTILS_0") > 0);
	/* Names not of the form sort below every one that is. */
	assert_true(ms_verdef_cmp("GLIBC_PRIVATE", "A_0") < 0);
	assert_true(ms_verdef_cmp("A_0", "libc.so.6") > 0);
	assert_int_equal(ms_verdef_cmp("2.0", "_1.0"), 0);
	assert_true(ms_verdef_cmp("A_1.", "A_0") < 0);
	assert_true(ms_verdef_cmp("A-B_1.0", "A_0") < 0);
	assert_true(ms_verdef_cmp("9_1.0", "A_0") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_matches_readelf),
		cmocka_unit_test(test_built_library),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_crafted_hostile),
		cmocka_unit_test(test_long_chain_is_bounded),
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
