/*
 * The PAGEMAP_SCAN backend.  Kernel behaviour relied on, from
 * do_pagemap_scan() and its helpers in fs/proc/task_mmu.c (v6.7 onwards):
 *   - size must equal sizeof(struct pm_scan_arg) (96 bytes) or EINVAL;
 *   - pages are reported only when they have a category of
 *     category_anyof_mask, so asking for PRESENT|SWAPPED skips holes and
 *     never-touched pages, which keeps the output small;
 *   - adjacent pages with the same categories (after return_mask) come back
 *     as one page_region, even across a mapping boundary, so regions are
 *     split between mappings here;
 *   - when the vector fills up the kernel stops and sets walk_end to the
 *     first address it did not report; otherwise walk_end is the end asked
 *     for.  The return value is the number of regions written;
 *   - PAGE_IS_PFNZERO marks the shared zero page (is_zero_pfn, and the huge
 *     zero page for PMDs); smaps_pte_entry() skips those pages through
 *     vm_normal_page(), so they are not resident in smaps' sense;
 *   - PAGE_IS_HUGE marks PMD-mapped THP and hugetlb entries;
 *   - VM_PFNMAP mappings are skipped (pagemap_scan_test_walk), as smaps
 *     finds no normal pages in them;
 *   - leaving PAGE_IS_FILE out of every mask spares the kernel a
 *     vm_normal_page() lookup per page (masks_of_interest).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/compat.h"
#include "resid/residency_backend.h"

/*
 * The kernel half of the address space: only x86-64's [vsyscall] is listed
 * there (text maps backend).  access_ok() refuses it with EFAULT in
 * pagemap_scan_get_args(), and smaps shows it with Rss 0, so it is not
 * scanned.
 */
#define KERNEL_HALF (UINT64_C(1) << 63)

#define SCAN_ANYOF (PAGE_IS_PRESENT | PAGE_IS_SWAPPED)
#define SCAN_RETURN (PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_PFNZERO | PAGE_IS_HUGE)

static void account(struct ms_resinfo *info, uint64_t categories, uint64_t bytes,
		    bool hugetlb)
{
	if (categories & PAGE_IS_SWAPPED) {
		info->swap += bytes;
		return;
	}
	if (!(categories & PAGE_IS_PRESENT))
		return;
	if (categories & PAGE_IS_PFNZERO) {
		info->zero += bytes;
		return;
	}
	if (hugetlb) {
		info->hugetlb += bytes;
		info->huge += bytes;
		return;
	}
	info->rss += bytes;
	if (categories & PAGE_IS_HUGE)
		info->huge += bytes;
}

/* Share one region out among the mappings it overlaps; returns the next first index. */
static size_t attribute(const struct ms_residency *res, const struct page_region *r,
			const struct ms_mapping *maps, size_t lo, size_t count,
			struct ms_resinfo *out)
{
	lo = ms_res_skip_before(maps, lo, count, r->start);
	for (size_t j = lo; j < count && maps[j].start < r->end; j++) {
		uint64_t from = r->start > maps[j].start ? r->start : maps[j].start;
		uint64_t to = r->end < maps[j].end ? r->end : maps[j].end;

		account(&out[j], r->categories, to - from, maps[j].page_size > res->page_size);
	}
	return lo;
}

static int scan_call(struct ms_residency *res, struct pm_scan_arg *arg,
		     struct ms_error *err)
{
	pid_t pid = ms_proc_pid(res->proc);
	int n;

	for (;;) {
		res->stats.scans++;
		n = res->ioctl_fn(res->fd, PAGEMAP_SCAN, arg);
		if (n >= 0)
			break;
		if (errno != EINTR)
			break;
	}
	if (n >= 0) {
		if ((uint64_t)n > arg->vec_len)
			return ms_error_set(err, MS_ERR_PROTO, 0,
					    "pid %d: PAGEMAP_SCAN returned %d regions for %llu",
					    (int)pid, n, (unsigned long long)arg->vec_len);
		return n;
	}
	if (errno == ENOTTY)
		return ms_error_set(err, MS_ERR_NOTSUP, ENOTTY,
				    "pid %d: this kernel lacks PAGEMAP_SCAN (Linux 6.7)", (int)pid);
	if (errno == ESRCH)
		return ms_error_set(err, MS_ERR_EXITED, ESRCH, "pid %d: the process exited", (int)pid);
	return ms_error_set(err, MS_ERR_IO, errno, "pid %d: PAGEMAP_SCAN: %s", (int)pid, strerror(errno));
}

static int scan_query(struct ms_residency *res, const struct ms_mapping *maps,
		      size_t count, struct ms_resinfo *out, struct ms_error *err)
{
	struct pm_scan_arg arg;
	uint64_t addr, end;
	size_t lo = 0, scanned = count;

	for (size_t i = 0; i < count; i++)
		out[i].zero_known = true;
	while (scanned && maps[scanned - 1].start >= KERNEL_HALF)
		scanned--;
	if (!scanned)
		return 0;
	addr = maps[0].start;
	end = maps[scanned - 1].end;

	while (addr < end) {
		int n;

		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = addr;
		arg.end = end;
		arg.vec = (uint64_t)(uintptr_t)res->vec;
		arg.vec_len = res->vec_len;
		arg.category_anyof_mask = SCAN_ANYOF;
		arg.return_mask = SCAN_RETURN;
		n = scan_call(res, &arg, err);
		if (n < 0)
			return n;
		res->stats.regions += (size_t)n;
		for (int i = 0; i < n; i++) {
			const struct page_region *r = &res->vec[i];

			if (r->start < addr || r->end <= r->start || r->end > end)
				return ms_error_set(err, MS_ERR_PROTO, 0,
						    "pid %d: PAGEMAP_SCAN region 0x%llx-0x%llx outside 0x%llx-0x%llx",
						    (int)ms_proc_pid(res->proc),
						    (unsigned long long)r->start, (unsigned long long)r->end,
						    (unsigned long long)addr, (unsigned long long)end);
			lo = attribute(res, r, maps, lo, scanned, out);
		}
		if (arg.walk_end <= addr || arg.walk_end > end)
			return ms_error_set(err, MS_ERR_PROTO, 0,
					    "pid %d: PAGEMAP_SCAN walk_end 0x%llx does not advance past 0x%llx",
					    (int)ms_proc_pid(res->proc),
					    (unsigned long long)arg.walk_end, (unsigned long long)addr);
		addr = arg.walk_end;
	}
	return 0;
}

const struct ms_res_ops ms_res_scan_ops = {
	.kind = MS_RES_PAGEMAP,
	.query = scan_query,
};
