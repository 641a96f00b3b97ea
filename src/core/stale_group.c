#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "stale_group.h"

#define GROUP_FIRST_SLOTS 16u

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t hash_inode(const struct ms_stale_group *g, uint32_t maj, uint32_t min,
			   uint64_t inode)
{
	return mix(mix(g->seed, ((uint64_t)maj << 32) | min), inode);
}

static uint64_t hash_name(const struct ms_stale_group *g, uint32_t maj, uint32_t min,
			  uint64_t inode, const char *name, size_t len)
{
	uint64_t h = mix(hash_inode(g, maj, min, inode), len);

	for (; len >= 8; name += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, name, 8);
		h = mix(h, w);
	}
	if (len) {
		uint64_t w = 0;

		memcpy(&w, name, len);
		h = mix(h, w);
	}
	return mix(h, 0);
}

/*
 * One seed per run: the hash only needs to be unguessable to the processes
 * whose inode numbers and names it hashes, and a draw per group cost two
 * getrandom calls per process of a fleet walk.  A weak seed still differs
 * per run.  A race between threads at most draws twice; both draws are good.
 */
static uint64_t run_seed(void)
{
	static uint64_t seed;
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED);

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&seed;
	s |= 1;
	__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	return s;
}

void ms_stale_group_init(struct ms_stale_group *g)
{
	memset(g, 0, sizeof(*g));
	g->seed = run_seed();
}

void ms_stale_group_free(struct ms_stale_group *g)
{
	free(g->by_name.slots);
	free(g->by_inode.slots);
	memset(g, 0, sizeof(*g));
}

static bool same_inode(const struct ms_stale_file *f, uint32_t maj, uint32_t min, uint64_t inode)
{
	return f->inode == inode && f->dev_major == maj && f->dev_minor == min;
}

/*
 * Walk t's probe sequence for h; returns the file for which match() holds,
 * or NULL at the first empty slot.  name NULL matches any name.
 */
static struct ms_stale_file *probe(struct ms_stale_group *g, const struct ms_stale_group_table *t,
				   struct ms_stale_list *list, uint64_t h, uint32_t maj, uint32_t min,
				   uint64_t inode, const char *name, size_t len)
{
	if (!t->slots)
		return NULL;
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		struct ms_stale_file *f;

		if (!t->slots[i])
			return NULL;
		g->probes++;
		f = &list->items[t->slots[i] - 1];
		if (same_inode(f, maj, min, inode) &&
		    (!name || (f->name_len == len && !memcmp(f->name, name, len))))
			return f;
	}
}

struct ms_stale_file *ms_stale_group_find(struct ms_stale_group *g, struct ms_stale_list *list,
					  uint32_t maj, uint32_t min, uint64_t inode,
					  const char *name, size_t len)
{
	return probe(g, &g->by_name, list, hash_name(g, maj, min, inode, name, len), maj, min,
		     inode, name, len);
}

struct ms_stale_file *ms_stale_group_find_inode(struct ms_stale_group *g,
						struct ms_stale_list *list, uint32_t maj,
						uint32_t min, uint64_t inode)
{
	return probe(g, &g->by_inode, list, hash_inode(g, maj, min, inode), maj, min, inode,
		     NULL, 0);
}

static void place(struct ms_stale_group_table *t, uint64_t h, uint32_t slot)
{
	size_t i = h & t->mask;

	while (t->slots[i])
		i = (i + 1) & t->mask;
	t->slots[i] = slot;
	t->used++;
}

static uint64_t hash_of(const struct ms_stale_group *g, bool by_name, const struct ms_stale_file *f)
{
	return by_name ? hash_name(g, f->dev_major, f->dev_minor, f->inode, f->name, f->name_len)
		       : hash_inode(g, f->dev_major, f->dev_minor, f->inode);
}

/* Keep the table at most half full, so probe sequences stay short. */
static int reserve(const struct ms_stale_group *g, struct ms_stale_group_table *t, bool by_name,
		   const struct ms_stale_list *list)
{
	size_t slots = t->slots ? t->mask + 1 : 0, want = slots ? slots : GROUP_FIRST_SLOTS;
	struct ms_stale_group_table grown = { 0 };

	while ((t->used + 1) * 2 > want) {
		if (want > SIZE_MAX / 2 / sizeof(uint32_t))
			return MS_ERR_NOMEM;
		want *= 2;
	}
	if (want == slots)
		return 0;
	grown.slots = calloc(want, sizeof(uint32_t));
	if (!grown.slots)
		return MS_ERR_NOMEM;
	grown.mask = want - 1;
	for (size_t i = 0; i < slots; i++)
		if (t->slots[i])
			place(&grown, hash_of(g, by_name, &list->items[t->slots[i] - 1]), t->slots[i]);
	free(t->slots);
	*t = grown;
	return 0;
}

int ms_stale_group_add(struct ms_stale_group *g, struct ms_stale_list *list, size_t index)
{
	const struct ms_stale_file *f = &list->items[index];

	if (index >= UINT32_MAX)
		return MS_ERR_NOMEM;
	if (reserve(g, &g->by_name, true, list) < 0 || reserve(g, &g->by_inode, false, list) < 0)
		return MS_ERR_NOMEM;
	place(&g->by_name, hash_of(g, true, f), (uint32_t)index + 1);
	/* Only the first of an identity: the exe lookup wants the earliest. */
	if (!ms_stale_group_find_inode(g, list, f->dev_major, f->dev_minor, f->inode))
		place(&g->by_inode, hash_of(g, false, f), (uint32_t)index + 1);
	return 0;
}
