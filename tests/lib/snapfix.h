/*
 * snapfix.h - the usual state of the snapshot, safewrite and diff tests: a
 * temporary directory with ms-fixture running in it, and a file name there
 * for the test's output.
 *
 * Contract: snapfix_env_setup and snapfix_env_teardown are a cmocka setup
 * and teardown pair; the teardown stops the fixture and removes the
 * directory with everything in it, also after a failed setup.
 */
#ifndef MAPSCOPE_TESTS_SNAPFIX_H
#define MAPSCOPE_TESTS_SNAPFIX_H

#include "fixture_client.h"
#include "msrun.h"
#include "testutil.h"

struct snapfix_env {
	char *dir;
	struct fixture fx;
	const char *pid; /* the fixture's PID as text (fx.pidstr), for command lines */
	char *out;       /* dir/out, a file name for the test to use */
};

int snapfix_env_setup(void **state);
int snapfix_env_teardown(void **state);

#endif
