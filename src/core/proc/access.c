#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/access.h"
#include "proc/proc.h"

#define CAP_SYS_PTRACE_BIT 19
#define STATUS_MAX (64 * 1024)

/* The numbers after "Key:" in a status text, at most n; how many were read. */
static size_t status_numbers(const char *text, const char *key, int base, uint64_t *out, size_t n)
{
	size_t klen = strlen(key), got = 0;
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			const char *s = p + klen + 1;
			char *end;

			while (got < n) {
				uint64_t v = strtoull(s, &end, base);

				if (end == s)
					break;
				out[got++] = v;
				s = end;
			}
			return got;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static char *read_status(int dirfd)
{
	char *buf = NULL;
	size_t len;
	bool truncated;

	return ms_read_file_at(dirfd, "status", STATUS_MAX, &buf, &len, &truncated) < 0 ? NULL : buf;
}

static bool all_equal(const uint64_t *ids, size_t n, uint64_t want)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] != want)
			return false;
	return n > 0;
}

static bool in_init_userns(void)
{
	char map[128] = "";
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long long inside, outside, count;

	if (!f)
		return false;
	if (!fgets(map, sizeof(map), f))
		map[0] = '\0';
	fclose(f);
	/* The initial namespace maps every id to itself: "0 0 4294967295". */
	return sscanf(map, "%llu %llu %llu", &inside, &outside, &count) == 3 && inside == 0 &&
	       outside == 0 && count == 4294967295ULL;
}

static void read_lsm(char *buf, size_t size)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	/* Names are [a-z,]: anything else is not what the kernel writes there. */
	if (buf[strspn(buf, "abcdefghijklmnopqrstuvwxyz0123456789_,")])
		buf[0] = '\0';
}

static char *read_own_status(void)
{
	int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *text;

	if (self < 0)
		return NULL;
	text = read_status(self);
	close(self);
	return text;
}

void ms_access_facts_read(int dirfd, struct ms_access_facts *f)
{
	char *theirs = read_status(dirfd), *ours = read_own_status();
	uint64_t uids[3], gids[3], their_caps, our_caps = 0;
	bool have_ours;

	memset(f, 0, sizeof(*f));
	f->our_uid = geteuid();
	f->init_userns = in_init_userns();
	read_lsm(f->lsm, sizeof(f->lsm));
	have_ours = ours && status_numbers(ours, "CapEff", 16, &our_caps, 1) == 1;
	f->ptrace_cap = have_ours && ((our_caps >> CAP_SYS_PTRACE_BIT) & 1);
	if (theirs && status_numbers(theirs, "Uid", 10, uids, 3) == 3 &&
	    status_numbers(theirs, "Gid", 10, gids, 3) == 3) {
		f->target_known = true;
		f->target_uid = (uid_t)uids[1];
		/* fsuid and fsgid: the effective ids, as mapscope never calls setfsuid. */
		f->same_ids = all_equal(uids, 3, geteuid()) && all_equal(gids, 3, getegid());
		f->caps_covered = have_ours && status_numbers(theirs, "CapPrm", 16, &their_caps, 1) == 1 &&
				  (their_caps & ~our_caps) == 0;
	}
	free(theirs);
	free(ours);
}

size_t ms_access_explain(const struct ms_access_facts *f, char *buf, size_t size)
{
	int n;

	if (f->ptrace_cap && f->init_userns)
		n = snprintf(buf, size,
			     "refused by a security module, not by user or capability: mapscope %shas "
			     "CAP_SYS_PTRACE (active modules: %s)",
			     f->same_ids ? "runs as its user and " : "",
			     f->lsm[0] ? f->lsm : "unknown; a Landlock sandbox, SELinux, AppArmor or a BPF program may refuse");
	else if (f->ptrace_cap)
		n = snprintf(buf, size,
			     "CAP_SYS_PTRACE counts only in mapscope's own user namespace and those it owns; "
			     "this process is outside them, or a security module refused");
	else if (!f->target_known)
		n = snprintf(buf, size, "needs ptrace access: the same user or CAP_SYS_PTRACE");
	else if (!f->same_ids)
		n = snprintf(buf, size, "needs ptrace access: run as its user (uid %u) or with CAP_SYS_PTRACE",
			     (unsigned)f->target_uid);
	else if (!f->caps_covered)
		n = snprintf(buf, size,
			     "it holds capabilities mapscope lacks, though both run as uid %u: needs CAP_SYS_PTRACE",
			     (unsigned)f->our_uid);
	else
		n = snprintf(buf, size,
			     "it is not dumpable (a setuid or file-capability program, or PR_SET_DUMPABLE 0), "
			     "or a security module refused: needs CAP_SYS_PTRACE");
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
