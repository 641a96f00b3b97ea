#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "base/grow.h"

bool ms_mapping_is_file_backed(const struct ms_mapping *m)
{
	/* Every superblock has a non-zero s_dev, so a file always shows one. */
	return m->inode != 0 || m->dev_major != 0 || m->dev_minor != 0;
}

bool ms_mapping_matches(const struct ms_mapping *m, unsigned filter)
{
	unsigned want = filter & (MS_PERM_READ | MS_PERM_WRITE | MS_PERM_EXEC | MS_PERM_SHARED);

	if ((m->perms & want) != want)
		return false;
	if ((filter & MS_FILTER_FILE_BACKED) && !ms_mapping_is_file_backed(m))
		return false;
	return true;
}

bool ms_mapping_same_identity(const struct ms_mapping *a, const struct ms_mapping *b)
{
	return a->start == b->start && a->end == b->end && a->perms == b->perms &&
	       a->offset == b->offset && a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor;
}

void ms_perms_format(unsigned perms, char out[5])
{
	out[0] = perms & MS_PERM_READ ? 'r' : '-';
	out[1] = perms & MS_PERM_WRITE ? 'w' : '-';
	out[2] = perms & MS_PERM_EXEC ? 'x' : '-';
	out[3] = perms & MS_PERM_SHARED ? 's' : 'p';
	out[4] = '\0';
}

int ms_filter_parse(const char *s, unsigned *filter, char *bad)
{
	unsigned f = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'r': f |= MS_FILTER_READABLE; break;
		case 'w': f |= MS_FILTER_WRITABLE; break;
		case 'x': f |= MS_FILTER_EXECUTABLE; break;
		case 's': f |= MS_FILTER_SHARED; break;
		case '-': break;
		default:
			if (bad)
				*bad = *s;
			return -1;
		}
	}
	*filter = f;
	return 0;
}

size_t ms_mapping_name_undeleted(const char *name, size_t len)
{
	static const char mark[] = " (deleted)";
	const size_t n = sizeof(mark) - 1;

	return len >= n && !memcmp(name + len - n, mark, n) ? len - n : len;
}

const char *ms_mapping_not_a_file(const struct ms_mapping *m)
{
	static const struct {
		const char *prefix, *why;
	} kinds[] = {
		{ "/memfd:", "a memfd, by its name: not a file on disk" },
		{ "/SYSV", "SysV shared memory, by its name: not a file on disk" },
		{ "/dev/zero", "shared anonymous memory, by its name: not a file on disk" },
		{ "/[aio]", "an AIO ring, by its name: not a file on disk" },
		{ "/anon_hugepage", "anonymous huge pages, by their name: not a file on disk" },
		{ "/drm mm object", "a GPU buffer, by its name: not a file on disk" },
		{ "/dmabuf:", "a DMA buffer, by its name: not a file on disk" },
		{ "/i915", "a GPU buffer, by its name: not a file on disk" },
	};

	if (m->dev_major != 0 || !m->name)
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);

		if (m->name_len >= n && !memcmp(m->name, kinds[i].prefix, n))
			return kinds[i].why;
	}
	return NULL;
}

int ms_mapping_set_name(struct ms_mapping *m, const char *name, size_t len)
{
	char *copy = NULL;
	size_t cap = 0;

	if (len && m->name && m->name_cap > len) {
		memmove(m->name, name, len);
		m->name[len] = '\0';
		m->name_len = len;
		return 0;
	}
	if (len) {
		/* Rounded up, so that the names of one process mostly fit the first. */
		cap = (len + 64) & ~(size_t)63;
		copy = malloc(cap);
		if (!copy)
			return MS_ERR_NOMEM;
		memcpy(copy, name, len);
		copy[len] = '\0';
	}
	free(m->name);
	m->name = copy;
	m->name_cap = cap;
	m->name_len = len;
	return 0;
}

int ms_mapping_copy(struct ms_mapping *dst, const struct ms_mapping *src)
{
	if (dst == src)
		return 0;
	free(dst->name);
	*dst = *src;
	dst->name = NULL;
	dst->name_cap = 0;
	dst->name_len = 0;
	return ms_mapping_set_name(dst, src->name, src->name_len);
}

void ms_mapping_reset(struct ms_mapping *m)
{
	free(m->name);
	memset(m, 0, sizeof(*m));
}

int ms_maplist_push(struct ms_maplist *list, struct ms_mapping *m)
{
	if (ms_grow((void **)&list->items, &list->capacity, list->count, sizeof(*list->items), 64) < 0)
		return MS_ERR_NOMEM;
	list->items[list->count++] = *m;
	memset(m, 0, sizeof(*m));
	return 0;
}

void ms_maplist_clear(struct ms_maplist *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i].name);
	list->count = 0;
}

void ms_maplist_free(struct ms_maplist *list)
{
	ms_maplist_clear(list);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

size_t ms_maplist_lower_bound(const struct ms_maplist *list, uint64_t addr)
{
	size_t lo = 0, hi = list->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list->items[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
