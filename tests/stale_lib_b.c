/* A tiny shared library for the stale tests: another build ID than a's. */
int stale_lib_answer(void);
int stale_lib_other(int x);

int stale_lib_answer(void)
{
	return 42;
}

int stale_lib_other(int x)
{
	return x * 3 + 1;
}
