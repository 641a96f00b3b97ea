/*
 * The files view's core: mappings grouped into files (filemap.h) on the
 * fixture and on our own mappings, the SONAME reader (soname.h) on a real
 * library and on crafted ELF files, and the version a name carries.
 */
#include "config.h"

#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/files/fileinfo.h"
#include "core/files/filemap.h"
#include "core/maps/maps.h"
#include "core/elf/soname.h"
#include "fixture_client.h"
#include "testutil.h"

static void collect_pid(pid_t pid, enum ms_backend b, struct ms_proc **proc, struct ms_maps **maps,
			struct ms_maplist *list)
{
	struct ms_maps_opts opts = { .backend = b, .ioctl_fn = NULL };
	struct ms_error err;

	if (ms_proc_open(pid, proc, &err) < 0 || ms_maps_open(*proc, &opts, maps, &err) < 0 ||
	    ms_maps_collect(*maps, 0, list, &err) < 0)
		fail_msg("pid %d: %s", (int)pid, err.msg);
}

static const struct ms_filerow *row_of_path(const struct ms_filemap *fm, const char *path)
{
	struct stat st;
	unsigned dev_major, dev_minor;

	/* The device of the mappings is the file system's, not stat's on btrfs. */
	if (stat(path, &st) < 0 || tu_mapped_dev(path, &dev_major, &dev_minor) < 0)
		fail_msg("stat %s", path);
	for (size_t i = 0; i < fm->count; i++)
		if (fm->rows[i].kind == MS_FILEKIND_FILE && fm->rows[i].inode == st.st_ino &&
		    fm->rows[i].dev_major == dev_major && fm->rows[i].dev_minor == dev_minor)
			return &fm->rows[i];
	fail_msg("no row for %s", path);
	abort(); /* not reached: fail_msg ends the test */
}

static const struct ms_filerow *row_named(const struct ms_filemap *fm, const char *name)
{
	for (size_t i = 0; i < fm->count; i++)
		if (fm->rows[i].name && !strcmp(fm->rows[i].name, name))
			return &fm->rows[i];
	fail_msg("no row named %s", name);
	abort(); /* not reached */
}

/* What a fixture test holds, freed by the teardown even when a check fails. */
struct fx_state {
	struct fixture fx;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list;
	struct ms_filemap fm;
};

static int fx_setup(void **state)
{
	struct fx_state *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	*state = s;
	assert_int_equal(fixture_start(&s->fx), 0);
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx_state *s = *state;

	ms_filemap_free(&s->fm);
	ms_maplist_free(&s->list);
	ms_maps_close(s->maps);
	ms_proc_close(s->proc);
	fixture_stop(&s->fx);
	free(s);
	return 0;
}

static void check_fixture(struct fx_state *s, enum ms_backend backend)
{
	struct fixture fx = s->fx;
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 };
	struct ms_error err;
	const struct ms_filerow *r;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), total = 0, sum = 0;
	size_t nmaps = 0, anon_rows = 0;
	char path[512], perms[5];

	/* The same file mapped twice: one row, two mappings. */
	assert_int_equal(fixture_command(&s->fx, "mapfile twice.dat"), 0);
	assert_int_equal(fixture_command(&s->fx, "mapfile twice.dat"), 0);
	fx = s->fx;
	collect_pid(fx.pid, backend, &s->proc, &s->maps, &s->list);
	list = s->list;
	assert_int_equal(ms_filemap_build(&s->fm, &list, NULL, &err), 0);
	fm = s->fm;

	snprintf(path, sizeof(path), "%s/shared.dat", fx.dir);
	r = row_of_path(&fm, path);
	assert_non_null(r);
	assert_int_equal(r->mappings, 1);
	assert_int_equal(r->size, 2 * page);
	ms_perms_format(r->perms, perms);
	assert_string_equal(perms, "rw-s");

	snprintf(path, sizeof(path), "%s/code.bin", fx.dir);
	r = row_of_path(&fm, path);
	assert_non_null(r);
	assert_int_equal(r->mappings, 1);
	assert_int_equal(r->size, page);
	assert_int_equal(r->first_addr, fixture_find(&fx, "file-rx")->start);

	snprintf(path, sizeof(path), "%s/twice.dat", fx.dir);
	r = row_of_path(&fm, path);
	assert_non_null(r);
	assert_int_equal(r->mappings, 2);
	assert_int_equal(r->size, 8 * page);
	assert_int_equal(list.items[r->first].start, r->first_addr);

	if (!fx.anon_named_skipped) {
		r = row_named(&fm, "[anon:ms-fixture]");
		assert_non_null(r);
		assert_int_equal(r->kind, MS_FILEKIND_ANON_NAMED);
		assert_int_equal(r->mappings, 1);
	}
	/* A sanitizer build's allocator does not use brk: no [heap] then. */
	for (size_t i = 0; i < list.count; i++)
		if (list.items[i].name && !strcmp(list.items[i].name, "[heap]")) {
			assert_non_null(r = row_named(&fm, "[heap]"));
			assert_int_equal(r->kind, MS_FILEKIND_HEAP);
		}
	assert_non_null(r = row_named(&fm, "[stack]"));
	assert_int_equal(r->kind, MS_FILEKIND_STACK);
	if (backend == MS_BACKEND_IOCTL)
		assert_int_equal(row_named(&fm, "[vdso]")->kind, MS_FILEKIND_SPECIAL);

	/* Every mapping is in exactly one row, and row_of says which. */
	for (size_t i = 0; i < list.count; i++) {
		total += ms_mapping_size(&list.items[i]);
		assert_true(fm.row_of[i] < fm.count);
	}
	for (size_t i = 0; i < fm.count; i++) {
		sum += fm.rows[i].size;
		nmaps += fm.rows[i].mappings;
		anon_rows += fm.rows[i].kind == MS_FILEKIND_ANON;
		assert_int_equal(fm.row_of[fm.rows[i].first], i);
	}
	assert_int_equal(sum, total);
	assert_int_equal(nmaps, list.count);
	assert_int_equal(anon_rows, 1);
	/* Linear: a handful of probes per mapping, not one per row. */
	assert_true(fm.probes <= 2 * list.count);

}

static void test_fixture_ioctl(void **state)
{
	check_fixture(*state, MS_BACKEND_IOCTL);
}

static void test_fixture_text(void **state)
{
	check_fixture(*state, MS_BACKEND_TEXT);
}

/* Two mappings of one file with other permissions: the row unites them. */
static void test_perms_union(void **state)
{
	char path[] = "/tmp/ms-filemap-XXXXXX";
	int fd = mkstemp(path);
	long page = sysconf(_SC_PAGESIZE);
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 }, again = { 0 };
	struct ms_error err;
	const struct ms_filerow *r;
	char perms[5];
	void *a, *b;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4 * page), 0);
	a = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0);
	b = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page);
	assert_true(a != MAP_FAILED && b != MAP_FAILED);
	collect_pid(getpid(), MS_BACKEND_AUTO, &proc, &maps, &list);
	assert_int_equal(ms_filemap_build(&fm, &list, NULL, &err), 0);
	r = row_of_path(&fm, path);
	assert_non_null(r);
	assert_int_equal(r->mappings, 2);
	ms_perms_format(r->perms, perms);
	assert_string_equal(perms, "rw-s");

	/* Sorting keeps row_of pointing at each mapping's row. */
	assert_int_equal(ms_filemap_sort(&fm, MS_FILESORT_SIZE, false), 0);
	for (size_t i = 1; i < fm.count; i++)
		assert_true(fm.rows[i - 1].size >= fm.rows[i].size);
	for (size_t i = 0; i < list.count; i++) {
		const struct ms_filerow *row = &fm.rows[fm.row_of[i]];

		assert_true(row->first_addr <= list.items[i].start);
	}
	assert_int_equal(ms_filemap_sort(&fm, MS_FILESORT_NAME, false), 0);
	for (size_t i = 1; i < fm.count; i++)
		assert_true(fm.rows[i - 1].kind <= fm.rows[i].kind);
	assert_non_null(ms_filemap_find(&fm, row_of_path(&fm, path)));

	/* The libc row, described: its SONAME and build ID; details carry over a rebuild. */
	{
		struct ms_fileinfo_ctx *ctx;
		const struct ms_filerow *libc = NULL;

		char *want;

		assert_int_equal(ms_fileinfo_ctx_new(NULL, proc, maps, &ctx, &err), 0);
		assert_int_equal(ms_fileinfo_describe(ctx, &fm, &list, 0, fm.count,
						      MS_FILEINFO_ALL & ~MS_FILEINFO_LIBVER, &err), 0);
		for (size_t i = 0; i < fm.count; i++)
			if (fm.rows[i].info.soname_rc == 0 && !strcmp(fm.rows[i].info.soname, "libc.so.6"))
				libc = &fm.rows[i];
		if (!libc)
			fail_msg("no row with the SONAME libc.so.6");
		/* LIBVER not asked: none shown; asked later (a column chosen), the described row gets it. */
		assert_string_equal(ms_fileinfo_libver_text(&libc->info), "");
		assert_int_equal(ms_fileinfo_describe(ctx, &fm, &list, 0, fm.count, MS_FILEINFO_ALL, &err), 0);
		want = tu_readelf_highest(libc->name, "GLIBC");
		if (want)
			assert_string_equal(ms_fileinfo_libver_text(&libc->info), want);
		else
			assert_int_equal(strncmp(ms_fileinfo_libver_text(&libc->info), "GLIBC_", 6), 0);
		free(want);
		assert_string_equal(libc->info.soname, "libc.so.6");
		assert_true(libc->info.verdict_known);
		assert_int_equal(libc->info.verdict.verdict, MS_STALE_OK);
		if (ms_maps_backend(maps) == MS_BACKEND_IOCTL)
			assert_true(libc->info.build_id_len > 0);
		/* Our temporary file is not ELF: no SONAME, and it says why. */
		r = row_of_path(&fm, path);
		assert_int_equal(r->info.soname_rc, MS_END);
		assert_string_equal(r->info.soname_why, "not an ELF file");
		assert_int_equal(r->info.libver_rc, MS_END);
		assert_string_equal(r->info.libver_why, "not an ELF file");
		assert_int_equal(ms_filemap_build(&again, &list, &fm, &err), 0);
		r = ms_filemap_find(&again, libc);
		if (!r)
			fail_msg("libc not found again");
		assert_string_equal(r->info.soname, "libc.so.6");
		ms_fileinfo_ctx_free(ctx);
	}

	ms_filemap_free(&again);
	ms_filemap_free(&fm);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	munmap(a, (size_t)page);
	munmap(b, (size_t)page);
	close(fd);
	unlink(path);
}

/* A small ELF64 shared object: PT_LOAD over the whole file, PT_DYNAMIC, a string table. */
struct crafted {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	Elf64_Dyn dyn[4];
	char strtab[400];
};

#define VADDR 0x10000u

static void craft(struct crafted *c, const char *soname)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->eh.e_ident, ELFMAG, SELFMAG);
	c->eh.e_ident[EI_CLASS] = ELFCLASS64;
	c->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	c->eh.e_ident[EI_VERSION] = EV_CURRENT;
	c->eh.e_type = ET_DYN;
	c->eh.e_phoff = offsetof(struct crafted, ph);
	c->eh.e_phentsize = sizeof(Elf64_Phdr);
	c->eh.e_phnum = 2;
	c->ph[0].p_type = PT_LOAD;
	c->ph[0].p_vaddr = VADDR;
	c->ph[0].p_filesz = c->ph[0].p_memsz = sizeof(*c);
	c->ph[1].p_type = PT_DYNAMIC;
	c->ph[1].p_offset = offsetof(struct crafted, dyn);
	c->ph[1].p_filesz = sizeof(c->dyn);
	c->dyn[0].d_tag = DT_STRTAB;
	c->dyn[0].d_un.d_ptr = VADDR + offsetof(struct crafted, strtab);
	c->dyn[1].d_tag = DT_STRSZ;
	c->dyn[1].d_un.d_val = sizeof(c->strtab);
	c->dyn[2].d_tag = DT_SONAME;
	c->dyn[2].d_un.d_val = 1;
	snprintf(c->strtab + 1, sizeof(c->strtab) - 1, "%s", soname);
}

/* The answer from memory and from a file agree; returns the code, the text in out/why. */
static int soname_of(const struct crafted *c, size_t size, char *out, char *why)
{
	struct ms_error e1 = { 0 }, e2 = { 0 };
	char again[MS_SONAME_MAX + 1];
	int fd = memfd_create("crafted", MFD_CLOEXEC), rc, rc2;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, c, size), (ssize_t)size);
	rc = ms_soname_parse((const unsigned char *)c, size, out, &e1);
	rc2 = ms_soname_read_fd(fd, again, &e2);
	close(fd);
	assert_int_equal(rc, rc2);
	assert_string_equal(out, again);
	assert_string_equal(e1.msg, e2.msg);
	strcpy(why, rc ? e1.msg : "");
	return rc;
}

/*
 * One file mapped read-only, executable, writable (private) and writable
 * and executable: the row lists each set once, in text order, and marks
 * the writable and executable one; without it there is no mark.
 */
static void test_perm_sets(void **state)
{
	char path[] = "/tmp/ms-permsets-XXXXXX", sets[MS_PERMSETS_MAX];
	int fd = mkstemp(path);
	long page = sysconf(_SC_PAGESIZE);
	static const int prot[] = { PROT_READ, PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE, PROT_READ,
				    PROT_READ | PROT_WRITE | PROT_EXEC };
	void *at[5];
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list = { 0 };
	struct ms_filemap fm = { 0 };
	struct ms_error err;
	const struct ms_filerow *r;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * page), 0);
	for (int i = 0; i < 5; i++) {
		at[i] = mmap(NULL, (size_t)page, prot[i], MAP_PRIVATE, fd, (off_t)(i * page));
		assert_true(at[i] != MAP_FAILED);
	}
	collect_pid(getpid(), MS_BACKEND_AUTO, &proc, &maps, &list);
	assert_int_equal(ms_filemap_build(&fm, &list, NULL, &err), 0);
	r = row_of_path(&fm, path);
	assert_int_equal(r->mappings, 5);
	ms_permsets_format(r->perm_sets, sets, sizeof(sets));
	assert_string_equal(sets, "r--,r-x,rw-,rwx!");
	assert_true(ms_permsets_wx(r->perm_sets));
	ms_filemap_free(&fm);
	ms_maplist_free(&list);

	/* Without the rwx mapping: no mark, though the union is still rwx. */
	assert_int_equal(munmap(at[4], (size_t)page), 0);
	assert_int_equal(ms_maps_collect(maps, 0, &list, &err), 0);
	assert_int_equal(ms_filemap_build(&fm, &list, NULL, &err), 0);
	r = row_of_path(&fm, path);
	assert_int_equal(r->perms, MS_PERM_READ | MS_PERM_WRITE | MS_PERM_EXEC);
	ms_permsets_format(r->perm_sets, sets, sizeof(sets));
	assert_string_equal(sets, "r--,r-x,rw-");
	assert_false(ms_permsets_wx(r->perm_sets));

	/* A shared set keeps its fourth letter; a buffer too small is cut, terminated. */
	ms_permsets_format((uint16_t)(1u << (MS_PERM_READ | MS_PERM_WRITE | MS_PERM_SHARED)), sets, sizeof(sets));
	assert_string_equal(sets, "rw-s");
	ms_permsets_format(r->perm_sets, sets, 6);
	assert_string_equal(sets, "r--,r");
	ms_permsets_format(0, sets, sizeof(sets));
	assert_string_equal(sets, "");

	for (int i = 0; i < 4; i++)
		munmap(at[i], (size_t)page);
	ms_filemap_free(&fm);
	ms_maplist_free(&list);
	ms_maps_close(maps);
	ms_proc_close(proc);
	close(fd);
	unlink(path);
}

static void test_soname_crafted(void **state)
{
	struct crafted c;
	char out[MS_SONAME_MAX + 1], why[256];
	char longname[300];

	(void)state;
	craft(&c, "libcraft.so.1");
	assert_int_equal(soname_of(&c, sizeof(c), out, why), 0);
	assert_string_equal(out, "libcraft.so.1");

	/* The dynamic segment points out of the file. */
	craft(&c, "libcraft.so.1");
	c.ph[1].p_offset = 1u << 30;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "dynamic section past the end of the file");
	c.ph[1].p_offset = UINT64_MAX - 8;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);

	/* A huge dynamic segment is refused before any read. */
	craft(&c, "libcraft.so.1");
	c.ph[1].p_filesz = UINT64_MAX;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "dynamic section over 64 KiB");

	/* A huge DT_STRSZ: never allocated by, checked against the file. */
	craft(&c, "libcraft.so.1");
	c.dyn[1].d_un.d_val = UINT64_MAX;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "string table past the end of the file");
	assert_string_equal(out, "");

	/* A SONAME offset past the table. */
	craft(&c, "libcraft.so.1");
	c.dyn[2].d_un.d_val = UINT64_MAX - 2;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);

	/* A string table address no PT_LOAD holds. */
	craft(&c, "libcraft.so.1");
	c.dyn[0].d_un.d_ptr = 0x42;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "string table outside the loaded segments");

	/* No PT_DYNAMIC, no DT_SONAME: a normal "none". */
	craft(&c, "libcraft.so.1");
	c.ph[1].p_type = PT_NOTE;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_END);
	assert_string_equal(why, "no dynamic section");
	craft(&c, "libcraft.so.1");
	c.dyn[2].d_tag = DT_NEEDED;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_END);
	assert_string_equal(why, "no SONAME");

	/* Over MS_SONAME_MAX bytes: unknown, not cut. */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	craft(&c, longname);
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	assert_string_equal(why, "SONAME longer than 256 bytes");

	/* Extended numbering and a truncated file. */
	craft(&c, "libcraft.so.1");
	c.eh.e_phnum = PN_XNUM;
	assert_int_equal(soname_of(&c, sizeof(c), out, why), MS_ERR_LIMIT);
	craft(&c, "libcraft.so.1");
	assert_int_equal(soname_of(&c, offsetof(struct crafted, dyn) + 8, out, why), MS_ERR_LIMIT);
	assert_int_equal(soname_of(&c, 10, out, why), MS_END);
}

/* A library we link with -Wl,-soname: the reader finds the name the linker wrote. */
static void test_soname_test_library(void **state)
{
	char *lib = tu_built("libstale-a.so");
	char out[MS_SONAME_MAX + 1];
	struct ms_error err = { 0 };
	int fd;

	(void)state;
	assert_non_null(lib);
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_soname_read_fd(fd, out, &err), 0);
	assert_string_equal(out, "libstale.so.1");
	close(fd);
	free(lib);
	/* An executable has a dynamic section but no SONAME. */
	fd = open(getenv("MS_FIXTURE"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ms_soname_read_fd(fd, out, &err), MS_END);
	assert_string_equal(err.msg, "no SONAME");
	close(fd);
}

static void test_version_from_name(void **state)
{
	char v[MS_VERSION_MAX + 1];
	static const struct {
		const char *name, *want;
	} cases[] = {
		{ "/usr/lib/libz.so.1.2.13", "1.2.13" },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", "6" },
		{ "/usr/lib/libssl.so.3 (deleted)", "3" },
		{ "/usr/lib/libfoo.so", "" },
		{ "/usr/lib/libfoo.so.1.2.", "" },
		{ "/usr/lib/libfoo.so.1a", "" },
		{ "/opt/x.so.1/libbar.so", "" },
		{ "/usr/bin/python3.11", "" },
		{ "[heap]", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ms_version_from_name(cases[i].name, strlen(cases[i].name), v);
		assert_string_equal(v, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixture_ioctl, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_fixture_text, fx_setup, fx_teardown),
		cmocka_unit_test(test_perms_union),
		cmocka_unit_test(test_perm_sets),
		cmocka_unit_test(test_soname_crafted),
		cmocka_unit_test(test_soname_test_library),
		cmocka_unit_test(test_version_from_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
