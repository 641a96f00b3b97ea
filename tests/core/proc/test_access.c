/*
 * Why ptrace read access was refused: each cause in its own words, and the
 * facts read from /proc for a process of our own.
 */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/proc/access.h"

static const char *explain(const struct ms_access_facts *f)
{
	static char buf[512];

	ms_access_explain(f, buf, sizeof(buf));
	return buf;
}

static void test_each_cause(void **state)
{
	struct ms_access_facts f = { .target_known = true, .target_uid = 1000, .our_uid = 65534,
				     .init_userns = true };

	(void)state;
	/* Another user, no capability: the old message was right here, and names the uid. */
	assert_string_equal(explain(&f), "needs ptrace access: run as its user (uid 1000) or with CAP_SYS_PTRACE");
	/* The same user, but it holds more capabilities. */
	f.same_ids = true;
	f.our_uid = 1000;
	assert_non_null(strstr(explain(&f), "it holds capabilities mapscope lacks, though both run as uid 1000"));
	/* The same user and capabilities: only non-dumpable or a security module is left. */
	f.caps_covered = true;
	assert_non_null(strstr(explain(&f), "it is not dumpable"));
	/* Root with CAP_SYS_PTRACE (PID 1 in a sandbox): never "needs the same user or CAP_SYS_PTRACE". */
	f.ptrace_cap = true;
	f.target_uid = f.our_uid = 0;
	assert_null(strstr(explain(&f), "needs"));
	assert_non_null(strstr(explain(&f), "refused by a security module, not by user or capability: "
					    "mapscope runs as its user and has CAP_SYS_PTRACE"));
	assert_non_null(strstr(explain(&f), "active modules: unknown"));
	snprintf(f.lsm, sizeof(f.lsm), "lockdown,capability,landlock,bpf");
	assert_non_null(strstr(explain(&f), "(active modules: lockdown,capability,landlock,bpf)"));
	/* CAP_SYS_PTRACE from a user namespace of our own. */
	f.init_userns = false;
	assert_non_null(strstr(explain(&f), "counts only in mapscope's own user namespace"));
	/* Nothing known of the target. */
	memset(&f, 0, sizeof(f));
	assert_string_equal(explain(&f), "needs ptrace access: the same user or CAP_SYS_PTRACE");
}

/* Ourselves as the target: the same ids, capabilities covered, CAP_SYS_PTRACE as status says. */
static void test_facts_of_ourselves(void **state)
{
	struct ms_access_facts f;
	char line[256];
	int dirfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FILE *status = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;

	(void)state;
	assert_true(dirfd >= 0);
	assert_non_null(status);
	while (fgets(line, sizeof(line), status))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(status);
	ms_access_facts_read(dirfd, &f);
	close(dirfd);
	assert_true(f.target_known);
	assert_true(f.same_ids);
	assert_true(f.caps_covered);
	assert_int_equal(f.target_uid, geteuid());
	assert_int_equal(f.ptrace_cap, (eff >> 19) & 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_cause),
		cmocka_unit_test(test_facts_of_ourselves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
