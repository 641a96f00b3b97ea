/*
 * resfix.h - what the residency tests share: starting
 * tests/ms-residency-fixture (it speaks ms-fixture's protocol, so
 * fixture_client.h drives it), and an independent reader of
 * /proc/PID/smaps to compare mapscope's numbers with.
 */
#ifndef MAPSCOPE_TESTS_RESFIX_H
#define MAPSCOPE_TESTS_RESFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fixture_client.h"

/* What this test reads from smaps by itself, to compare with. */
struct smaps_rec {
	uint64_t start, end;
	uint64_t rss, swap, anon_huge, hugetlb;
	uint64_t pss, priv, dirty; /* Pss; Private_Clean + Private_Dirty; Private_Dirty + Shared_Dirty */
};

struct smaps_set {
	struct smaps_rec *recs;
	size_t count;
};

/* Start ms-residency-fixture (found beside $MS_FIXTURE).  0 or -1. */
int resfix_start(struct fixture *fx);
/* cmocka setup: *state is a malloc'd fixture running it; fixture_teardown ends it. */
int resfix_setup(void **state);

/* Every record of /proc/PID/smaps; set->recs is malloc'd.  0 or -1. */
int resfix_read_smaps(pid_t pid, struct smaps_set *set);
bool resfix_smaps_same(const struct smaps_set *a, const struct smaps_set *b);
const struct smaps_rec *resfix_smaps_find(const struct smaps_set *set, uint64_t start, uint64_t end);

/*
 * The smaps record of the fixture's mapping of that kind, read now from
 * the kernel's /proc/PID/smaps (not through mapscope).  0, or -1 when
 * smaps cannot be read or has no record of exactly that mapping.
 */
int resfix_smaps_of(const struct fixture *fx, const char *kind, struct smaps_rec *rec);

/*
 * Whether the kernel mapped the shared zero page for a mapping the fixture
 * only read (anon-read, thp-read), judged from that mapping's own smaps
 * record: the zero page is never counted in Rss, so Rss 0 after the reads
 * means the zero page (or the huge zero page) backs them.  Some kernels
 * allocate real pages on a read fault of private anonymous memory instead
 * (a guest booted with pvm_no_zero_page=1, say): then Rss counts them.
 */
bool resfix_read_on_zero_page(const struct smaps_rec *read_only);

#endif
