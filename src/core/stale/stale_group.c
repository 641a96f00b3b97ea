#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "stale/stale_group.h"

#define GROUP_FIRST_SLOTS 16u
/*
 * Up to this many files a list is searched in order, without tables: most
 * processes map fewer distinct files, and two tables allocated, hashed
 * into and freed per process cost more than comparing a few inodes.
 */
#define GROUP_LINEAR_MAX 16u

static uint64_t hash_inode(const struct ms_stale_group *g, uint32_t maj, uint32_t min,
			   uint64_t inode)
{
	return ms_hash_mix(ms_hash_mix(g->seed, ((uint64_t)maj << 32) | min), inode);
}

static uint64_t hash_name(const struct ms_stale_group *g, uint32_t maj, uint32_t min,
			  uint64_t inode, const char *name, size_t len)
{
	return ms_hash_bytes(hash_inode(g, maj, min, inode), name, len);
}

void ms_stale_group_init(struct ms_stale_group *g)
{
	memset(g, 0, sizeof(*g));
	g->seed = ms_hash_seed();
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

/* The small list's search, in the order added: the first match is the earliest. */
static struct ms_stale_file *scan(struct ms_stale_group *g, struct ms_stale_list *list, uint32_t maj,
				  uint32_t min, uint64_t inode, const char *name, size_t len)
{
	for (size_t i = 0; i < list->count; i++) {
		struct ms_stale_file *f = &list->items[i];

		g->probes++;
		if (same_inode(f, maj, min, inode) &&
		    (!name || (f->name_len == len && !memcmp(f->name, name, len))))
			return f;
	}
	return NULL;
}

struct ms_stale_file *ms_stale_group_find(struct ms_stale_group *g, struct ms_stale_list *list,
					  uint32_t maj, uint32_t min, uint64_t inode,
					  const char *name, size_t len)
{
	if (!g->by_name.slots)
		return scan(g, list, maj, min, inode, name, len);
	return probe(g, &g->by_name, list, hash_name(g, maj, min, inode, name, len), maj, min,
		     inode, name, len);
}

struct ms_stale_file *ms_stale_group_find_inode(struct ms_stale_group *g,
						struct ms_stale_list *list, uint32_t maj,
						uint32_t min, uint64_t inode)
{
	if (!g->by_inode.slots)
		return scan(g, list, maj, min, inode, NULL, 0);
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

/* Index list->items[index] in both tables. */
static int index_one(struct ms_stale_group *g, struct ms_stale_list *list, size_t index)
{
	const struct ms_stale_file *f = &list->items[index];

	if (reserve(g, &g->by_name, true, list) < 0 || reserve(g, &g->by_inode, false, list) < 0)
		return MS_ERR_NOMEM;
	place(&g->by_name, hash_of(g, true, f), (uint32_t)index + 1);
	/* Only the first of an identity: the exe lookup wants the earliest. */
	if (!ms_stale_group_find_inode(g, list, f->dev_major, f->dev_minor, f->inode))
		place(&g->by_inode, hash_of(g, false, f), (uint32_t)index + 1);
	return 0;
}

int ms_stale_group_add(struct ms_stale_group *g, struct ms_stale_list *list, size_t index)
{
	if (index >= UINT32_MAX)
		return MS_ERR_NOMEM;
	if (g->by_name.slots)
		return index_one(g, list, index);
	if (list->count <= GROUP_LINEAR_MAX)
		return 0;
	/* The list outgrew the search in order: index every file, in the order added. */
	for (size_t i = 0; i <= index; i++)
		if (index_one(g, list, i) < 0) {
			free(g->by_name.slots);
			free(g->by_inode.slots);
			g->by_name = g->by_inode = (struct ms_stale_group_table){ 0 };
			return MS_ERR_NOMEM;
		}
	return 0;
}
