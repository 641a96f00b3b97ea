/*
 * saferead.h - read a small file that someone else may have put there.
 *
 * The settings file and the stale-ignore list sit at paths a user controls
 * (and a hostile one can swap between two system calls).  Whatever is at
 * the path, reading it must not block, must not act on a device, and must
 * not allocate what the file says.  ms_read_regular:
 *   - opens the path O_PATH, which never opens the file itself: a FIFO's
 *     open would block until a writer comes, and a device's open alone can
 *     act (/dev/watchdog arms itself);
 *   - checks with fstat on that descriptor that it is a regular file, and
 *     refuses anything else, naming what it is;
 *   - reopens that very inode through /proc/self/fd/N with
 *     O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC, so whatever is swapped in at
 *     the path meanwhile is never read;
 *   - reads at most max bytes into one buffer of max + 1; a longer file is
 *     an error, never silently cut short.
 * A symlink at the path is followed (a dotfiles manager makes config files
 * symlinks); the file it leads to must still be regular.
 *
 * Errors are values, each message naming the path (escaped):
 *   - the open's errno (ENOENT, ENOTDIR, EACCES...) as sys_errno, with
 *     MS_ERR_NOACCESS for EACCES and MS_ERR_IO otherwise;
 *   - MS_ERR_INVAL for anything but a regular file, sys_errno EISDIR (a
 *     directory), ENXIO (a FIFO or socket) or ENODEV (a device);
 *   - MS_ERR_LIMIT, sys_errno EFBIG, for a file over max bytes.
 * No printing.
 */
#ifndef MAPSCOPE_SAFEREAD_H
#define MAPSCOPE_SAFEREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

/*
 * Read path whole.  0 with *text (malloc'd, NUL-terminated after *len
 * bytes) and *len, or a negative ms_errcode with err set and *text NULL.
 */
int ms_read_regular(const char *path, size_t max, char **text, size_t *len,
		    struct ms_error *err);

/*
 * Read the entry name (no slash) of dirfd (an O_PATH descriptor will do)
 * whole, as ms_read_regular reads a path, except that nothing there is
 * followed: a symbolic link is refused (MS_ERR_IO, sys_errno ELOOP), and
 * so is a file owned by anyone but owner or root (MS_ERR_NOACCESS,
 * sys_errno EPERM).  For a folder a caller walked to itself, one level at
 * a time (confdir.h); path names the file in messages (escaped here).
 */
int ms_read_regular_owned(int dirfd, const char *name, uid_t owner, const char *path, size_t max,
			  char **text, size_t *len, struct ms_error *err);

/*
 * Open path as ms_read_regular does (O_PATH, a regular file, reopened
 * through /proc/self/fd, non-blocking) for a caller that reads it a piece
 * at a time into a buffer it reuses: a large file read whole into fresh
 * memory pays a page fault per 4 KiB.  The descriptor, or a negative
 * ms_errcode with err set as ms_read_regular's.
 */
int ms_open_regular(const char *path, struct ms_error *err);

/*
 * A directory that only root can change: owned by root, writable by no
 * group or other.  No unprivileged user can swap its entries, so a caller
 * may read them with ms_read_regular_entry.
 */
bool ms_dir_only_root_changes(int dirfd);

/*
 * All len bytes of fd at off into buf, reading again after EINTR and a
 * short read.  false when the file ends first or a read fails.
 */
bool ms_pread_all(int fd, void *buf, size_t len, off_t off);

/*
 * Read the entry name (no slash) of dirfd whole, at most max bytes, where
 * dirfd passed ms_dir_only_root_changes: opened directly (O_NOFOLLOW,
 * O_NONBLOCK, O_NOCTTY) without the O_PATH step, then refused unless
 * regular.  Cheaper by two system calls and a /proc lookup; the package
 * database reads hundreds of files this way.  *buf (*cap bytes plus one,
 * or NULL) is reused and grown as needed, so a caller reading many files
 * pays for one buffer; the caller frees it.  0 with *len bytes in *buf,
 * NUL-terminated, or as ms_read_regular, the message naming the entry.
 */
int ms_read_regular_entry(int dirfd, const char *name, size_t max, char **buf, size_t *cap,
			  size_t *len, struct ms_error *err);

/*
 * What a file that is not regular is, for messages ("a FIFO", "a
 * directory", "a character device"...), and the errno that says so:
 * EISDIR, ENXIO (FIFO, socket) or ENODEV (device).
 */
const char *ms_file_kind(mode_t mode, int *sys_errno);

#endif
