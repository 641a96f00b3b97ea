#include "config.h"

#include <stdlib.h>

#include "proc/fstype_shared.h"

struct ns_table {
	uint64_t mntns; /* the namespace's inode number (all live on nsfs) */
	struct ms_fstypes *table;
};

struct ms_fstypes_shared {
	struct ns_table ns[MS_FSTYPES_SHARED_MAX];
	size_t count;
	size_t entries; /* kept in all tables */
};

struct ms_fstypes_shared *ms_fstypes_shared_new(void)
{
	return calloc(1, sizeof(struct ms_fstypes_shared));
}

void ms_fstypes_shared_free(struct ms_fstypes_shared *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++)
		ms_fstypes_free(s->ns[i].table);
	free(s);
}

size_t ms_fstypes_shared_loaded(const struct ms_fstypes_shared *s)
{
	return s ? s->count : 0;
}

const struct ms_fstypes *ms_fstypes_shared_table(struct ms_fstypes_shared *s, const struct ms_proc *proc)
{
	struct ms_fstypes *t;
	int err;
	uint64_t mntns;
	size_t n;

	if (!s)
		return NULL;
	mntns = ms_proc_mntns_at(ms_proc_dirfd(proc), "ns/mnt", &err);
	if (err)
		return NULL;
	for (size_t i = 0; i < s->count; i++)
		if (s->ns[i].mntns == mntns)
			return s->ns[i].table;
	if (s->count == MS_FSTYPES_SHARED_MAX || s->entries >= MS_FSTYPES_SHARED_ENTRIES ||
	    ms_fstypes_load(proc, &t, NULL) < 0)
		return NULL;
	n = ms_fstypes_entries(t);
	if (n > MS_FSTYPES_SHARED_ENTRIES - s->entries) {
		ms_fstypes_free(t);
		return NULL;
	}
	s->entries += n;
	s->ns[s->count++] = (struct ns_table){ mntns, t };
	return t;
}

bool ms_fstypes_shared_refuse(const struct ms_fstypes *t, uint32_t major, uint32_t minor, const char **why)
{
	if (!t || major == 0)
		return false;
	*why = ms_fstypes_refuse(t, major, minor);
	return true;
}
