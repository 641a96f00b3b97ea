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

#endif
