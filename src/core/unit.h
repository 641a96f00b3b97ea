/*
 * unit.h - the systemd unit that owns a process, from /proc/PID/cgroup.
 *
 * systemd puts every unit in its own cgroup named after it, below slices:
 *   0::/system.slice/ssh.service
 *   0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service
 *   0::/user.slice/user-1000.slice/session-3.scope
 * The unit is the innermost path component that is a unit but not a slice
 * (a name ending in .service, .scope, .socket, .mount, .swap, .timer, ...
 * other than .slice): the one to restart.  Below user@UID.service it is a
 * user unit (systemctl --user), and *user_uid says whose.
 *
 * The unified hierarchy's line ("0::") is preferred; on a v1-only system the
 * "name=systemd" line is used.  The cgroup path is untrusted text (a process
 * may create sub-cgroups it owns): the result is the raw component, to be
 * escaped before display, at most MS_UNIT_MAX - 1 bytes (longer ones are not
 * units systemd makes).
 *
 * ms_unit_parse returns 0 with out filled, MS_END when no unit is there
 * (kernel threads, the root cgroup, no systemd), or MS_ERR_INVAL for text
 * that is not a cgroup file.
 */
#ifndef MAPSCOPE_UNIT_H
#define MAPSCOPE_UNIT_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"
#include "proc.h"

#define MS_UNIT_MAX 256
#define MS_UNIT_CGROUP_READ_MAX 65536

struct ms_unit {
	char name[MS_UNIT_MAX];
	long user_uid; /* -1: a system unit */
};

int ms_unit_parse(const char *text, size_t len, struct ms_unit *out);

/* Read /proc/PID/cgroup through the handle and parse it. */
int ms_unit_of(const struct ms_proc *proc, struct ms_unit *out, struct ms_error *err);

#endif
