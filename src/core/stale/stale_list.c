#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "stale/stale_list.h"

/* Empty the list for the next scan; a scratch list (pool) keeps its name buffers. */
void ms_stale_list_clear(struct ms_stale_list *list, struct ms_stale_scratch *pool)
{
	if (pool) {
		if (list->count > pool->names_kept)
			pool->names_kept = list->count;
	} else if (list->items) {
		for (size_t i = 0; i < list->count; i++)
			free(list->items[i].name);
	}
	list->count = 0;
}

void ms_stale_list_free(struct ms_stale_list *list)
{
	ms_stale_list_clear(list, NULL);
	free(list->items);
	list->items = NULL;
	list->capacity = 0;
}

void ms_stale_scratch_free(struct ms_stale_scratch *s)
{
	ms_stale_list_clear(&s->list, s);
	for (size_t i = 0; s->list.items && i < s->names_kept; i++)
		free(s->list.items[i].name);
	free(s->list.items);
	free(s->name_caps);
	memset(s, 0, sizeof(*s));
}

/*
 * Room for a name of len bytes and its NUL in the list's next slot; in a
 * scratch list (pool), the buffer a former scan left there when it is
 * large enough.  NULL when out of memory.
 */
static char *slot_name(struct ms_stale_list *list, struct ms_stale_scratch *pool, size_t len)
{
	size_t at = list->count, cap = list->capacity;
	char *name;

	if (ms_grow((void **)&list->items, &cap, at, sizeof(*list->items), 16) < 0)
		return NULL;
	if (pool && (cap != list->capacity || !pool->name_caps)) {
		size_t *caps = realloc(pool->name_caps, cap * sizeof(*caps));

		/* items may have grown already: capacity stays what name_caps covers. */
		if (!caps)
			return NULL;
		pool->name_caps = caps;
	}
	list->capacity = cap;
	if (!pool)
		return malloc(len + 1);
	if (at < pool->names_kept && pool->name_caps[at] > len)
		return list->items[at].name;
	name = at < pool->names_kept ? realloc(list->items[at].name, len + 1) : malloc(len + 1);
	if (!name)
		return NULL;
	if (at >= pool->names_kept)
		pool->names_kept = at + 1;
	list->items[at].name = name;
	pool->name_caps[at] = len + 1;
	return name;
}

struct ms_stale_file *ms_stale_list_add(struct ms_stale_list *list, struct ms_stale_scratch *pool,
					struct ms_stale_group *g, const struct ms_mapping *m)
{
	struct ms_stale_file *f;
	char *name = slot_name(list, pool, m->name_len);

	if (!name)
		return NULL;
	f = &list->items[list->count];
	/* Every field set, the verdict's sentence only emptied: its 192 bytes are written when judged. */
	f->mappings = 0;
	f->first_addr = 0;
	f->first_end = 0;
	f->is_exe = false;
	f->result.verdict = MS_STALE_OK;
	f->result.why[0] = '\0';
	f->result.path_ours = false;
	f->result.unlinked = (struct timespec){ 0, 0 };
	f->name = name;
	if (m->name_len)
		memcpy(f->name, m->name, m->name_len);
	f->name[m->name_len] = '\0';
	f->name_len = m->name_len;
	f->inode = m->inode;
	f->dev_major = m->dev_major;
	f->dev_minor = m->dev_minor;
	f->name_ambiguous = m->name_ambiguous;
	f->build_id_len = m->build_id_len;
	memcpy(f->build_id, m->build_id, sizeof(f->build_id));
	f->build_id_skipped = m->build_id_skipped;
	list->count++;
	return ms_stale_group_add(g, list, list->count - 1) < 0 ? NULL : f;
}

/* Group one mapping into list: 0 or MS_ERR_NOMEM. */
int ms_stale_list_group(struct ms_stale_list *list, struct ms_stale_scratch *pool, struct ms_stale_group *g,
			const struct ms_mapping *m)
{
	struct ms_stale_file *f;

	if (m->name_truncated)
		return 0;
	f = ms_stale_group_find(g, list, m->dev_major, m->dev_minor, m->inode, m->name ? m->name : "",
				m->name_len);
	if (!f && !(f = ms_stale_list_add(list, pool, g, m)))
		return MS_ERR_NOMEM;
	if (!f->mappings++) {
		f->first_addr = m->start;
		f->first_end = m->end;
	}
	/* Not every mapping of a file carries the build ID (text backend, races). */
	if (!f->build_id_len && m->build_id_len) {
		f->build_id_len = m->build_id_len;
		memcpy(f->build_id, m->build_id, sizeof(f->build_id));
	}
	if (!f->build_id_len && m->build_id_skipped)
		f->build_id_skipped = m->build_id_skipped;
	return 0;
}

