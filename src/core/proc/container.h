/*
 * container.h - where a process with another root lives, named from its
 * cgroup path.
 *
 * Container engines give each container a cgroup named after it:
 *   docker       docker-ID.scope (systemd driver), or /docker/ID (cgroupfs)
 *   containerd   cri-containerd-ID.scope, or a bare ID below /kubepods
 *   CRI-O        crio-ID.scope
 *   podman       libpod-ID.scope
 *   nspawn       systemd-nspawn@NAME.service or machine-NAME.scope
 * An ID is 64 lower-case hex digits and is shown, as `docker ps` does, by
 * its first 12.  The outermost matching component counts: below it the
 * container names its own cgroups, so a deeper match proves nothing.
 *
 * A user manager (user@UID.service) delegates its whole tree to the user,
 * who may create "docker-ID.scope" or "machine-NAME.scope" there and move a
 * process in.  So, as in unit.h, a user manager met before any engine's name
 * ends the walk: what lives below it is the user's, never a container, and
 * is told as "other root (user@UID.service)".  (A rootless container is
 * shown that way too: its name is the user's word, not the engine's.)
 *
 * ms_container_parse takes a cgroup path (unit.h, ms_cgroup_paths) and
 * returns 0 with out filled (a container: engine set; a user's tree: engine
 * NULL and user_uid set), or MS_END when neither is recognised (the front
 * end then says "other root").  A machine name is raw bytes from the cgroup
 * tree, at most MS_CONTAINER_NAME_MAX - 1 of them: ms_container_describe
 * escapes it.
 */
#ifndef MAPSCOPE_CONTAINER_H
#define MAPSCOPE_CONTAINER_H

#include <stddef.h>

#define MS_CONTAINER_NAME_MAX 72

struct ms_container {
	const char *engine; /* "docker", "containerd", "cri-o", "podman", "machine"; NULL: a user's tree */
	char name[MS_CONTAINER_NAME_MAX]; /* the short ID, or the machine's name */
	long user_uid; /* the user manager's UID when engine is NULL; -1 otherwise */
};

int ms_container_parse(const char *path, size_t len, struct ms_container *out);

struct ms_proc;

/*
 * The container of a process, from its /proc/PID/cgroup (read bounded, as
 * unit.h reads it): 0 with out filled, MS_END when no engine is named, or
 * an error reading the file.
 */
int ms_container_of(const struct ms_proc *proc, struct ms_container *out);

/*
 * "docker:0123456789ab", "machine:NAME" (escaped), or for a user's tree
 * "other root (user@1000.service)"; returns the length.
 */
size_t ms_container_describe(const struct ms_container *c, unsigned esc_flags, char *out,
			     size_t size);
/* The same with the name raw, for a writer that escapes by its own format's rules (OpenMetrics). */
size_t ms_container_describe_raw(const struct ms_container *c, char *out, size_t size);

#endif
