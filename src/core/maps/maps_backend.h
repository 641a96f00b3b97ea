/*
 * maps_backend.h - the seam between the engine (maps.c) and its backends
 * (maps_ioctl.c, maps_text.c).  Private to the core.
 *
 * A backend answers one query at a time with the kernel's semantics for
 * PROCMAP_QUERY's flags (query_matching_vma in fs/proc/task_mmu.c): find the
 * first mapping whose end is above addr; if it fails the filter or does not
 * cover addr, keep walking only when MS_Q_COVERING_OR_NEXT is set, else
 * answer MS_END.
 *
 * begin() is called before each group of queries; the text backend reads and
 * parses the file there, the ioctl backend does nothing.  A backend reports a
 * vanished address space as MS_ERR_EXITED with sys_errno ESRCH, and the
 * engine works out what really happened.
 */
#ifndef MAPSCOPE_MAPS_BACKEND_H
#define MAPSCOPE_MAPS_BACKEND_H

#include "maps/maps.h"

#define MS_Q_COVERING_OR_NEXT 0x10u

struct ms_maps_ops {
	enum ms_backend kind;
	int (*begin)(struct ms_maps *maps, struct ms_error *err);
	int (*query)(struct ms_maps *maps, uint64_t addr, unsigned flags,
		     struct ms_mapping *out, struct ms_error *err);
	void (*reset)(struct ms_maps *maps); /* drop state tied to the fd */
	void (*destroy)(struct ms_maps *maps);
};

struct ms_maps {
	struct ms_proc *proc;
	int fd;
	const struct ms_maps_ops *ops;
	ms_ioctl_fn ioctl_fn;
	unsigned fields; /* MS_FIELD_* */
	bool ioctl_missing; /* PROCMAP_QUERY answered ENOTTY once: never ask again */
	enum ms_backend asked; /* what the caller chose at open */
	struct ms_maps_stats stats;
	void *state; /* the backend's own */
	struct ms_fstypes_shared *fstypes_shared; /* from the opts; may be NULL */
	bool no_read_ahead; /* ms_maps_set_read_ahead(false) */
	/* While the text is read ahead: every other use of fd holds its lock. */
	struct ms_text_reader *reader;
};

extern const struct ms_maps_ops ms_maps_ioctl_ops;
extern const struct ms_maps_ops ms_maps_text_ops;

/*
 * The name of the mapping that starts at addr, asked through PROCMAP_QUERY
 * whatever backend maps uses: the text backend confirms with it the names
 * its text cannot say exactly.  0 with out filled (out->start == addr),
 * MS_END when no mapping starts there any more, MS_ERR_NOTSUP without the
 * ioctl, or another error.  maps->state and maps->fields are left as they
 * were.
 */
int ms_maps_ioctl_name_at(struct ms_maps *maps, uint64_t addr, struct ms_mapping *out,
			  struct ms_error *err);

/* ms_maps_walk's whole-text path: maps_text.c. */
int ms_maps_text_walk(struct ms_maps *maps, ms_maps_walk_fn fn, void *ctx, struct ms_error *err);


#endif
