#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "untrusted/walk_dircache.h"

struct entry {
	char *path; /* NULL: a free slot */
	size_t len;
	uint64_t used; /* the walk that last found or kept it */
	struct ms_walk_kept dir;
};

struct ms_walk_dircache {
	int root_fd; /* the root it serves */
	const struct ms_walk_mounts *mounts;
	uint64_t walk;
	bool root_known, root_roots;
	struct entry entries[MS_WALK_CACHE_DIRS];
};

struct ms_walk_dircache *ms_walk_dircache_new(void)
{
	struct ms_walk_dircache *c = calloc(1, sizeof(*c));

	if (c)
		c->root_fd = -1;
	return c;
}

static void drop(struct entry *e)
{
	close(e->dir.fd);
	free(e->path);
	e->path = NULL;
}

void ms_walk_dircache_clear(struct ms_walk_dircache *c)
{
	if (!c)
		return;
	c->root_known = false;
	for (size_t i = 0; i < MS_WALK_CACHE_DIRS; i++)
		if (c->entries[i].path)
			drop(&c->entries[i]);
}

void ms_walk_dircache_free(struct ms_walk_dircache *c)
{
	ms_walk_dircache_clear(c);
	free(c);
}

void ms_walk_dircache_begin(struct ms_walk_dircache *c, const struct ms_walk_root *root)
{
	/* A descriptor number is only a number: the table's address tells a reopened root apart too. */
	if (c->root_fd != root->fd || c->mounts != root->mounts) {
		ms_walk_dircache_clear(c);
		c->root_fd = root->fd;
		c->mounts = root->mounts;
	}
	c->walk++;
}

bool ms_walk_dircache_root_known(const struct ms_walk_dircache *c, bool *roots)
{
	*roots = c->root_roots;
	return c->root_known;
}

void ms_walk_dircache_root_set(struct ms_walk_dircache *c, bool roots)
{
	c->root_known = true;
	c->root_roots = roots;
}

const struct ms_walk_kept *ms_walk_dircache_find(struct ms_walk_dircache *c, const char *path, size_t len)
{
	for (size_t i = 0; i < MS_WALK_CACHE_DIRS; i++) {
		struct entry *e = &c->entries[i];

		if (e->path && e->len == len && !memcmp(e->path, path, len)) {
			e->used = c->walk;
			return &e->dir;
		}
	}
	return NULL;
}

bool ms_walk_dircache_keep(struct ms_walk_dircache *c, const char *path, size_t len,
			   const struct ms_walk_kept *dir)
{
	struct entry *slot = NULL;
	char *copy;

	for (size_t i = 0; i < MS_WALK_CACHE_DIRS; i++) {
		struct entry *e = &c->entries[i];

		if (!e->path) {
			if (!slot || slot->path)
				slot = e;
			continue;
		}
		if (e->len == len && !memcmp(e->path, path, len))
			return false;
		/* The least recently used, never one this walk stands on. */
		if (e->used != c->walk && (!slot || (slot->path && e->used < slot->used)))
			slot = e;
	}
	if (!slot || !(copy = malloc(len + 1)))
		return false;
	memcpy(copy, path, len);
	copy[len] = '\0';
	if (slot->path)
		drop(slot);
	*slot = (struct entry){ .path = copy, .len = len, .used = c->walk, .dir = *dir };
	return true;
}
