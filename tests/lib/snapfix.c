#include "config.h"

#include <stdlib.h>

#include "snapfix.h"

int snapfix_env_setup(void **state)
{
	struct snapfix_env *e = calloc(1, sizeof(*e));

	*state = e;
	if (!e || !(e->dir = tu_tmpdir()) || !(e->out = tu_join(e->dir, "out")))
		return -1;
	if (fixture_start_with(&e->fx, &(struct fixture_opts){ .dir = e->dir }) < 0)
		return -1;
	e->pid = e->fx.pidstr;
	return 0;
}

int snapfix_env_teardown(void **state)
{
	struct snapfix_env *e = *state;

	if (e) {
		fixture_stop(&e->fx);
		tu_rmtree(e->dir);
		free(e->dir);
		free(e->out);
		free(e);
	}
	return 0;
}
