/*
 * access.h - why the kernel refused ptrace read access to a process
 * (opening /proc/PID/maps), in words that name the real cause.
 *
 * The kernel grants it (ptrace_may_access, PTRACE_MODE_READ_FSCREDS) when
 * the reader's fsuid and fsgid are the target's real, effective and saved
 * ids and the target holds no capability the reader lacks, or when the
 * reader has CAP_SYS_PTRACE in the target's user namespace; a non-dumpable
 * target needs CAP_SYS_PTRACE whatever the ids; and then every security
 * module (Landlock, SELinux, AppArmor, a BPF program) may still refuse.
 * Yama's ptrace_scope governs attaching only, never reading.  So "needs the
 * same user or CAP_SYS_PTRACE" is wrong for root with CAP_SYS_PTRACE.
 *
 * ms_access_facts_read gathers what can be known without that access:
 * the target's ids and permitted capabilities from /proc/PID/status, ours
 * from /proc/self/status, whether we are in the initial user namespace,
 * and the active security modules when securityfs shows them.
 * ms_access_explain turns the facts into the reason, without "pid N: ".
 */
#ifndef MAPSCOPE_PROC_ACCESS_H
#define MAPSCOPE_PROC_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ms_access_facts {
	bool target_known;     /* its status was read */
	uid_t target_uid;      /* its effective uid */
	bool same_ids;         /* our fsuid and fsgid are all its uids and gids */
	bool caps_covered;     /* its permitted capabilities are in our effective set */
	bool ptrace_cap;       /* CAP_SYS_PTRACE is in our effective set */
	bool init_userns;      /* we are in the initial user namespace */
	uid_t our_uid;
	char lsm[128];         /* the active security modules; "" when unknown */
};

/* dirfd: the target's /proc/PID directory. */
void ms_access_facts_read(int dirfd, struct ms_access_facts *f);

/* The reason, NUL-terminated in buf; returns its length. */
size_t ms_access_explain(const struct ms_access_facts *f, char *buf, size_t size);

#endif
