/*
 * compat.h - the kernel interfaces mapscope is built on, for headers that
 * predate them.
 *
 * Debian 12 ships uapi headers from Linux 6.1, which know neither
 * PROCMAP_QUERY (6.11), PAGEMAP_SCAN (6.7) nor F_CREATED_QUERY (6.12).
 * configure checks for each declaration; where a header lacks one, this file
 * defines it from the uapi layout.  Every struct is checked field by field
 * against the kernel's layout with _Static_assert, so a typo fails the build
 * instead of corrupting an ioctl.  Request numbers are built with _IOWR, never
 * written as magic numbers.
 *
 * Sources: include/uapi/linux/fs.h and include/uapi/linux/fcntl.h in the
 * kernel tree (v6.12).
 */
#ifndef MAPSCOPE_COMPAT_H
#define MAPSCOPE_COMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#if defined(HAVE_DECL_PROCMAP_QUERY) && HAVE_DECL_PROCMAP_QUERY
#include <linux/fs.h>
#else
enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE = 0x01,
	PROCMAP_QUERY_VMA_WRITABLE = 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE = 0x04,
	PROCMAP_QUERY_VMA_SHARED = 0x08,
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA = 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA = 0x20,
};

struct procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define PROCFS_IOCTL_MAGIC 'f'
#define PROCMAP_QUERY _IOWR(PROCFS_IOCTL_MAGIC, 17, struct procmap_query)
#endif

_Static_assert(sizeof(struct procmap_query) == 104, "procmap_query is 104 bytes");
_Static_assert(offsetof(struct procmap_query, size) == 0, "size");
_Static_assert(offsetof(struct procmap_query, query_flags) == 8, "query_flags");
_Static_assert(offsetof(struct procmap_query, query_addr) == 16, "query_addr");
_Static_assert(offsetof(struct procmap_query, vma_start) == 24, "vma_start");
_Static_assert(offsetof(struct procmap_query, vma_end) == 32, "vma_end");
_Static_assert(offsetof(struct procmap_query, vma_flags) == 40, "vma_flags");
_Static_assert(offsetof(struct procmap_query, vma_page_size) == 48, "vma_page_size");
_Static_assert(offsetof(struct procmap_query, vma_offset) == 56, "vma_offset");
_Static_assert(offsetof(struct procmap_query, inode) == 64, "inode");
_Static_assert(offsetof(struct procmap_query, dev_major) == 72, "dev_major");
_Static_assert(offsetof(struct procmap_query, dev_minor) == 76, "dev_minor");
_Static_assert(offsetof(struct procmap_query, vma_name_size) == 80, "vma_name_size");
_Static_assert(offsetof(struct procmap_query, build_id_size) == 84, "build_id_size");
_Static_assert(offsetof(struct procmap_query, vma_name_addr) == 88, "vma_name_addr");
_Static_assert(offsetof(struct procmap_query, build_id_addr) == 96, "build_id_addr");

#if defined(HAVE_DECL_PAGEMAP_SCAN) && HAVE_DECL_PAGEMAP_SCAN
#include <linux/fs.h>
#else
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#define PAGE_IS_HUGE (1 << 6)
#define PAGE_IS_SOFT_DIRTY (1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

_Static_assert(sizeof(struct page_region) == 24, "page_region is 24 bytes");
_Static_assert(sizeof(struct pm_scan_arg) == 96, "pm_scan_arg is 96 bytes");
_Static_assert(offsetof(struct pm_scan_arg, walk_end) == 32, "walk_end");
_Static_assert(offsetof(struct pm_scan_arg, return_mask) == 88, "return_mask");

/* F_LINUX_SPECIFIC_BASE (1024) + 4; older kernels answer EINVAL. */
#ifndef F_CREATED_QUERY
#define MS_F_LINUX_SPECIFIC_BASE 1024
#define F_CREATED_QUERY (MS_F_LINUX_SPECIFIC_BASE + 4)
#endif
_Static_assert(F_CREATED_QUERY == 1028, "F_CREATED_QUERY is 1028");

/* Linux 5.17; absent from some libc headers. */
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

#endif
