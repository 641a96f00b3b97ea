/*
 * maps_ref.h - the reference the maps model test (test_tui_maps_random)
 * checks the maps view's model against: a process's mappings parsed here
 * from /proc/PID/maps text, not through the engine, and the matching and
 * ordering rules the view promises, written again over that text.
 *
 * Contract: a refset owns its names (refset_free); allocation or parse
 * failures fail the running cmocka test.  The matching functions take the
 * view's model only to read its filter, name filter and sort.
 */
#ifndef MAPSCOPE_TESTS_MAPS_REF_H
#define MAPSCOPE_TESTS_MAPS_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ms_mapping;
struct tui_mapview;

/* One line of /proc/PID/maps, parsed here. */
struct ref {
	uint64_t start, end, offset, inode;
	unsigned major, minor, perms;
	char ptext[5];
	bool file;
	char *name; /* NULL: none */
	size_t name_len;
};

struct refset {
	struct ref *v;
	size_t n, cap;
};

void refset_clear(struct refset *s);
void refset_free(struct refset *s);
/* dst becomes a copy of src, names and all. */
void refset_copy(struct refset *dst, const struct refset *src);

/* out becomes pid's mappings now; with ioctl, without [vsyscall], which PROCMAP_QUERY never gives. */
void refset_read(pid_t pid, bool ioctl, struct refset *out);

/* m passes the kernel filter bits of filter (MS_FILTER_*). */
bool ref_kernel_match(const struct ref *m, unsigned filter);
/* The name (NULL: none) passes vm's name filter. */
bool ref_name_match(const struct tui_mapview *vm, const char *name, size_t len);
/* a and b are one mapping: range, permissions, offset and file. */
bool ref_same(const struct ref *a, const struct ref *b);
/* The engine's m is the text's x, as ref_same (names aside); then with the same name (or both none). */
bool ref_is_mapping(const struct ms_mapping *m, const struct ref *x);
bool ref_same_name(const struct ms_mapping *m, const struct ref *x);
bool refset_has(const struct refset *s, const struct ref *x);
/* The line of s that is m, or NULL. */
const struct ref *refset_find(const struct refset *s, const struct ms_mapping *m);

/* qsort_r's order for rows of struct ref *, ctx the view's model: its sort, then address. */
int ref_sort_cmp(const void *pa, const void *pb, void *ctx);

#endif
