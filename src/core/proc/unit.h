/*
 * unit.h - the systemd unit that owns a process, from /proc/PID/cgroup.
 *
 * systemd puts every unit in its own cgroup named after it, below slices:
 *   0::/system.slice/ssh.service
 *   0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service
 *   0::/user.slice/user-1000.slice/session-3.scope
 * The unit is the outermost path component that is a unit but not a slice
 * (a name ending in .service, .scope, .socket, .mount, .swap, .timer, ...
 * other than .slice): the one to restart.  When that is a user manager
 * (user@UID.service), the unit is the outermost one below it, a user unit
 * (systemctl --user), and user_uid says whose.  Deeper components are a
 * delegated subtree (Delegate=, a user manager's whole tree, a container):
 * the processes in it chose those names, so a "sshd.service" or a
 * "user@0.service" there is never taken for a system unit or another
 * user's manager.
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

#include "base/error.h"
#include "proc/proc.h"

#define MS_UNIT_MAX 256
#define MS_UNIT_CGROUP_READ_MAX 65536

struct ms_unit {
	char name[MS_UNIT_MAX];
	long user_uid; /* -1: a system unit */
};

int ms_unit_parse(const char *text, size_t len, struct ms_unit *out);

/* One cgroup path component: "user@1000.service" -> 1000; -1 if it is not a user manager. */
long ms_unit_user_manager_uid(const char *name, size_t len);

/*
 * The two cgroup paths of /proc/PID/cgroup text that say where a process
 * lives: the unified hierarchy's ("0::PATH") and the name=systemd one's on
 * a v1-only system.  Each points into text (not NUL-terminated) or is NULL.
 * 0, or MS_ERR_INVAL for text that is not a cgroup file.
 */
struct ms_cgroup_paths {
	const char *v2, *v1;
	size_t v2_len, v1_len;
};

int ms_cgroup_paths(const char *text, size_t len, struct ms_cgroup_paths *out);

/*
 * The unit for display: the escaped name (escape.h flags), and for a user
 * unit its manager, "foo.service (user@1000.service)".  Returns the length
 * written; out always ends in NUL.
 */
size_t ms_unit_describe(const struct ms_unit *u, unsigned esc_flags, char *out, size_t size);
/* The same with the name raw, for a writer that escapes by its own format's rules (OpenMetrics). */
size_t ms_unit_describe_raw(const struct ms_unit *u, char *out, size_t size);


#endif
