#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resfix.h"

static const struct fixture_opts residency = { .prog = "ms-residency-fixture" };

int resfix_start(struct fixture *fx)
{
	return fixture_start_with(fx, &residency);
}

int resfix_setup(void **state)
{
	return fixture_setup_with(state, &residency);
}

int resfix_read_smaps(pid_t pid, struct smaps_set *set)
{
	char path[64], line[8192];
	struct smaps_rec *cur = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	set->recs = NULL;
	set->count = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, kb;
		char name[64];

		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (set->count == cap) {
				cap = cap ? cap * 2 : 64;
				set->recs = realloc(set->recs, cap * sizeof(*set->recs));
				if (!set->recs)
					break;
			}
			cur = &set->recs[set->count++];
			memset(cur, 0, sizeof(*cur));
			cur->start = a;
			cur->end = b;
		} else if (cur && sscanf(line, "%63[^:]: %llu kB", name, &kb) == 2) {
			if (!strcmp(name, "Rss"))
				cur->rss = kb * 1024;
			else if (!strcmp(name, "Swap"))
				cur->swap = kb * 1024;
			else if (!strcmp(name, "AnonHugePages") || !strcmp(name, "ShmemPmdMapped") ||
				 !strcmp(name, "FilePmdMapped"))
				cur->anon_huge += kb * 1024;
			else if (!strcmp(name, "Shared_Hugetlb") || !strcmp(name, "Private_Hugetlb"))
				cur->hugetlb += kb * 1024;
			else if (!strcmp(name, "Pss"))
				cur->pss = kb * 1024;
			/* proc(5): the private pages, clean or dirty, and the dirty ones, private or shared. */
			if (!strcmp(name, "Private_Clean") || !strcmp(name, "Private_Dirty"))
				cur->priv += kb * 1024;
			if (!strcmp(name, "Private_Dirty") || !strcmp(name, "Shared_Dirty"))
				cur->dirty += kb * 1024;
		}
	}
	fclose(f);
	return 0;
}

bool resfix_smaps_same(const struct smaps_set *a, const struct smaps_set *b)
{
	return a->count == b->count && !memcmp(a->recs, b->recs, a->count * sizeof(*a->recs));
}

const struct smaps_rec *resfix_smaps_find(const struct smaps_set *set, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->recs[i].start == start && set->recs[i].end == end)
			return &set->recs[i];
	return NULL;
}


int resfix_smaps_of(const struct fixture *fx, const char *kind, struct smaps_rec *rec)
{
	const struct fx_map *fm = fixture_find(fx, kind);
	const struct smaps_rec *found;
	struct smaps_set set;

	if (!fm || resfix_read_smaps(fx->pid, &set) < 0)
		return -1;
	found = resfix_smaps_find(&set, fm->start, fm->end);
	if (found)
		*rec = *found;
	free(set.recs);
	return found ? 0 : -1;
}

bool resfix_read_on_zero_page(const struct smaps_rec *read_only)
{
	return read_only->rss == 0;
}
