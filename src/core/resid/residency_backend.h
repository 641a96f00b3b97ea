/*
 * residency_backend.h - the seam between residency.c and its backends
 * (residency_scan.c: PAGEMAP_SCAN, residency_smaps.c: smaps text).  Private
 * to the core.
 *
 * residency.c checks the order of the mappings, zeroes the results and
 * checks the process is still alive afterwards; a backend only adds what
 * it finds for each mapping.  A backend answers MS_ERR_NOTSUP when the
 * kernel lacks its interface (the probe uses that to fall back).
 */
#ifndef MAPSCOPE_RESIDENCY_BACKEND_H
#define MAPSCOPE_RESIDENCY_BACKEND_H

#include "resid/residency.h"

struct page_region;

struct ms_res_ops {
	enum ms_res_backend kind;
	int (*query)(struct ms_residency *res, const struct ms_mapping *maps,
		     size_t count, struct ms_resinfo *out, struct ms_error *err);
};

struct ms_residency {
	struct ms_proc *proc;
	int fd;                  /* /proc/PID/pagemap, -1 for smaps */
	const struct ms_res_ops *ops;
	ms_ioctl_fn ioctl_fn;
	uint64_t page_size;
	size_t vec_len;
	struct page_region *vec; /* the scan's output vector, vec_len long */
	struct ms_res_stats stats;
};

extern const struct ms_res_ops ms_res_scan_ops;
extern const struct ms_res_ops ms_res_smaps_ops;

/* The first of maps[lo..count) whose end is above addr (count if none). */
size_t ms_res_skip_before(const struct ms_mapping *maps, size_t lo, size_t count,
			  uint64_t addr);

/*
 * openat below the process directory, errors named after the file: a
 * descriptor, or a negative code (MS_ERR_NOTSUP when the file is missing
 * but the process is alive).
 */
int ms_res_openat(struct ms_residency *res, const char *name, struct ms_error *err);

#endif
