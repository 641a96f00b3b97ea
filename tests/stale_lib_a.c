/* A tiny shared library for the stale tests: one build ID. */
int stale_lib_answer(void);

int stale_lib_answer(void)
{
	return 41;
}
