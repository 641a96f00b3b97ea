/*
 * residency.h - how much of each mapping is in memory: resident, swapped,
 * and in huge pages.
 *
 * ms_residency_open opens /proc/PID/pagemap relative to the process handle's
 * directory.  That open is where the kernel checks ptrace read access, as
 * for maps (proc_mem_open with PTRACE_MODE_READ): same user or
 * CAP_SYS_PTRACE.  Later queries need no further checks.
 *
 * Two backends answer the same query with the same meaning:
 *   - pagemap: the PAGEMAP_SCAN ioctl (Linux 6.7) on the pagemap descriptor.
 *     One walk covers the whole address range of the mappings asked for (a
 *     window of them, not one call per mapping); the kernel reports only
 *     present or swapped pages, merged into regions, and the walk continues
 *     from walk_end until the range is covered;
 *   - smaps: the text of /proc/PID/smaps, read only as far as the last
 *     mapping asked for.
 * MS_RES_AUTO probes the ioctl once, at open; ENOTTY (a kernel before 6.7,
 * or the seam saying so) or a missing pagemap file switches that handle to
 * smaps for good.  ms_residency_backend says which one answered, so a front
 * end can say where the numbers came from.  Tests force either backend and
 * can replace ioctl(2) through struct ms_res_opts.
 *
 * What the numbers mean (bytes), for each mapping asked for:
 *   - rss: resident pages, counted as smaps counts Rss.  A page that was
 *     read but never written maps the shared zero page; smaps does not
 *     count it (vm_normal_page() is NULL for it) and neither does this.
 *     Hugetlb pages are not in Rss either (smaps shows them apart);
 *   - swap: pages swapped out, as smaps Swap.  smaps also adds the swapped
 *     part of a shmem object that is not mapped in the page tables; the
 *     pagemap backend cannot see that part;
 *   - huge: resident bytes in huge pages: PMD-mapped transparent huge pages
 *     and hugetlb pages (smaps AnonHugePages + ShmemPmdMapped +
 *     FilePmdMapped + Shared_Hugetlb + Private_Hugetlb);
 *   - hugetlb: resident hugetlb bytes (part of huge, not of rss).  The
 *     pagemap backend knows a hugetlb mapping by its page_size, which only
 *     the ioctl maps backend reports;
 *   - zero: bytes mapped to the shared zero page (pagemap backend only;
 *     zero_known says whether it was counted);
 *   - pss: the proportional set size, smaps Pss (smaps backend only, so a
 *     caller that wants it opens with MS_RES_SMAPS; pss_known says).
 *
 * The mappings given must be in address order without overlap (what the
 * maps engine returns).  Addresses between them are not reported.  Nothing
 * is atomic: pages come and go while the kernel walks.  When the process
 * exits the query fails with MS_ERR_EXITED; after an exec the descriptor
 * still describes the old image, so close it and open the process again.
 */
#ifndef MAPSCOPE_RESIDENCY_H
#define MAPSCOPE_RESIDENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "maps/maps.h"
#include "proc/proc.h"

enum ms_res_backend {
	MS_RES_AUTO,
	MS_RES_PAGEMAP,
	MS_RES_SMAPS,
};

struct ms_res_opts {
	enum ms_res_backend backend;
	ms_ioctl_fn ioctl_fn; /* NULL: the real ioctl */
	size_t vec_len;       /* page regions per PAGEMAP_SCAN call; 0: the default */
};

struct ms_resinfo {
	uint64_t rss;
	uint64_t swap;
	uint64_t huge;
	uint64_t hugetlb;
	uint64_t zero;
	bool zero_known;
	uint64_t pss;    /* smaps backend only: pss_known says, for uss and dirty too */
	bool pss_known;
	uint64_t uss;    /* private pages: Private_Clean + Private_Dirty */
	uint64_t dirty;  /* written pages: Private_Dirty + Shared_Dirty */
};

struct ms_res_stats {
	size_t scans;       /* PAGEMAP_SCAN calls made */
	size_t regions;     /* page regions the kernel returned */
	size_t smaps_reads; /* smaps files read (smaps backend) */
};

struct ms_residency;

int ms_residency_open(struct ms_proc *proc, const struct ms_res_opts *opts,
		      struct ms_residency **out, struct ms_error *err);
void ms_residency_close(struct ms_residency *res);

/* The backend in use (never AUTO once open succeeded). */
enum ms_res_backend ms_residency_backend(const struct ms_residency *res);
/* "pagemap" or "smaps" ("auto" for AUTO). */
const char *ms_res_backend_name(enum ms_res_backend backend);
const struct ms_res_stats *ms_residency_stats(const struct ms_residency *res);

/*
 * Fill out[i] for each of the count mappings (address order, no overlap).
 * 0, or MS_ERR_INVAL for an unordered list, MS_ERR_EXITED when the process
 * is gone, MS_ERR_IO / MS_ERR_NOMEM / MS_ERR_PROTO; out is zeroed first.
 */
int ms_residency_query(struct ms_residency *res, const struct ms_mapping *maps,
		       size_t count, struct ms_resinfo *out, struct ms_error *err);

#endif
