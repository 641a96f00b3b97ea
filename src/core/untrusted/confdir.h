/*
 * confdir.h - the user's own configuration folder, and the files in it,
 * reached without following anything a user could plant.
 *
 * The folder is $XDG_CONFIG_HOME/mapscope, or $HOME/.config/mapscope when
 * XDG_CONFIG_HOME is unset or not absolute.  The environment is the
 * user's, and root keeps it under `sudo -E` or `su -m`: the user then owns
 * the folder root would read and write, and chooses what is at every name
 * below it (a link to /etc/shadow, a link out to any folder, a FIFO).  So:
 *   - the base (the value of XDG_CONFIG_HOME or HOME) is opened as named,
 *     links and all (it is where the user said), and never made; it must
 *     be owned by the effective uid or root.  Another owner turns the
 *     folder off: nothing under it is opened at all, and *foreign says so;
 *   - each level below it is opened from the one above (openat, O_PATH |
 *     O_DIRECTORY | O_NOFOLLOW), a missing one made 0700 (mkdirat) only
 *     when the caller is about to write; each must be a directory owned by
 *     the effective uid or root that others cannot write (its group only
 *     when that is the euid's own group): a symbolic link there is refused,
 *     never followed;
 *   - a file is read through ms_read_regular_owned (saferead.h): opened
 *     O_PATH | O_NOFOLLOW, a regular file owned by the euid or root, read
 *     through a non-blocking reopen, bounded;
 *   - a file is replaced through ms_safewrite_file_at (safewrite.h): a 0600
 *     temporary beside it, renamed over it.
 * As root, then, every level must be root's.  Errors are values, each
 * message naming the level or file (escaped); nothing here prints.
 */
#ifndef MAPSCOPE_CONFDIR_H
#define MAPSCOPE_CONFDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

struct ms_confdir {
	const char *var;        /* "XDG_CONFIG_HOME" or "HOME": where base came from */
	char base[PATH_MAX];    /* its value, absolute */
	const char *below;      /* the levels under base: "mapscope" or ".config/mapscope" */
	int fd;                 /* the folder (O_PATH) once opened, else -1 */
	bool foreign;           /* the last open refused base: another user's */
	uid_t base_owner;       /* then, its owner */
};

/*
 * From the environment, as the header says, or from base itself (var
 * names where it came from, for messages; below as for XDG_CONFIG_HOME).
 * Nothing is opened.  0, or -1 when there is no absolute path to use.
 */
int ms_confdir_locate(struct ms_confdir *d);
int ms_confdir_at(struct ms_confdir *d, const char *var, const char *base);

/* base/below/name (name may be NULL: the folder) into buf, escaped for messages. */
void ms_confdir_shown(const struct ms_confdir *d, const char *name, char *buf, size_t size);

/*
 * Open the folder into d->fd, as the header says; with create, missing
 * levels below base are made.  0, or a negative ms_errcode with err naming
 * the level: MS_ERR_NOACCESS with sys_errno EPERM and d->foreign set when
 * base is another user's (the message says whose, and what to do);
 * MS_ERR_NOACCESS (EPERM, ELOOP or ENOTDIR) for a level refused; the
 * kernel's errno otherwise (ENOENT, ENOTDIR: nothing there).
 */
int ms_confdir_open(struct ms_confdir *d, bool create, struct ms_error *err);
void ms_confdir_close(struct ms_confdir *d);

/* The file name of the open folder, at most max bytes (ms_read_regular_owned). */
int ms_confdir_read(const struct ms_confdir *d, const char *name, size_t max, char **text,
		    size_t *len, struct ms_error *err);

/* Replace the file name of the open folder with data: atomic, mode 0600. */
int ms_confdir_replace(const struct ms_confdir *d, const char *name, const void *data, size_t len,
		       struct ms_error *err);

#endif
