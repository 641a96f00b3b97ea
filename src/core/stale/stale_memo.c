#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "stale/stale_memo.h"

#define MEMO_SLOTS (2u * MS_STALE_MEMO_MAX)

static uint64_t key_hash(uint64_t seed, const struct ms_mapping *m)
{
	uint64_t h = ms_hash_mix(ms_hash_mix(seed, ((uint64_t)m->dev_major << 32) | m->dev_minor), m->inode);

	return ms_hash_bytes(h, m->name, m->name_len);
}

static bool same_file(const struct ms_stale_memo_entry *e, const struct ms_mapping *m)
{
	return e->inode == m->inode && e->dev_major == m->dev_major && e->dev_minor == m->dev_minor &&
	       e->name_len == m->name_len && !memcmp(e->name, m->name, m->name_len);
}

static bool same_key(const struct ms_stale_memo_entry *e, uint64_t h, const struct ms_mapping *m)
{
	return e->hash == h && same_file(e, m);
}

/* The slot holding m's key, or the empty slot where it would go. */
static size_t slot_of(const struct ms_stale_memo *memo, uint64_t h, const struct ms_mapping *m)
{
	size_t i = h & (MEMO_SLOTS - 1);

	while (memo->slots[i] && !same_key(&memo->entries[memo->slots[i] - 1], h, m))
		i = (i + 1) & (MEMO_SLOTS - 1);
	return i;
}

const struct ms_stale_result *ms_stale_memo_find(struct ms_stale_memo *memo, const struct ms_mapping *m,
						 size_t pos)
{
	size_t i;

	if (!memo->count || !m->name)
		return NULL;
	if (pos < MS_STALE_MEMO_HINTS && memo->hints[pos] && same_file(&memo->entries[memo->hints[pos] - 1], m))
		return &memo->entries[memo->hints[pos] - 1].result;
	i = slot_of(memo, key_hash(memo->seed, m), m);
	if (!memo->slots[i])
		return NULL;
	if (pos < MS_STALE_MEMO_HINTS)
		memo->hints[pos] = memo->slots[i];
	return &memo->entries[memo->slots[i] - 1].result;
}

void ms_stale_memo_add(struct ms_stale_memo *memo, const struct ms_mapping *m, const struct ms_stale_result *r,
		       size_t pos)
{
	struct ms_stale_memo_entry *e;
	uint64_t h;
	size_t i;

	if (memo->count >= MS_STALE_MEMO_MAX || !m->name || m->name_len > PATH_MAX)
		return;
	if (!memo->slots) {
		memo->slots = calloc(MEMO_SLOTS, sizeof(*memo->slots));
		memo->entries = malloc(MS_STALE_MEMO_MAX * sizeof(*memo->entries));
		if (!memo->slots || !memo->entries) {
			ms_stale_memo_free(memo);
			return;
		}
		memo->seed = ms_hash_seed();
	}
	h = key_hash(memo->seed, m);
	i = slot_of(memo, h, m);
	if (memo->slots[i])
		return;
	e = &memo->entries[memo->count];
	e->name = malloc(m->name_len + 1);
	if (!e->name)
		return;
	memcpy(e->name, m->name, m->name_len);
	e->name[m->name_len] = '\0';
	e->name_len = m->name_len;
	e->hash = h;
	e->inode = m->inode;
	e->dev_major = m->dev_major;
	e->dev_minor = m->dev_minor;
	e->result = *r;
	memo->slots[i] = (uint16_t)++memo->count;
	if (pos < MS_STALE_MEMO_HINTS)
		memo->hints[pos] = memo->slots[i];
}

void ms_stale_memo_clear(struct ms_stale_memo *memo)
{
	for (size_t i = 0; i < memo->count; i++)
		free(memo->entries[i].name);
	if (memo->slots)
		memset(memo->slots, 0, MEMO_SLOTS * sizeof(*memo->slots));
	memset(memo->hints, 0, sizeof(memo->hints));
	memo->count = 0;
}

void ms_stale_memo_free(struct ms_stale_memo *memo)
{
	ms_stale_memo_clear(memo);
	free(memo->slots);
	free(memo->entries);
	memset(memo, 0, sizeof(*memo));
}
