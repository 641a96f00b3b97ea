/*
 * A tiny shared library for the dpkg history test: each build says its
 * own MS_HIST_BUILD, so each build has its own build ID.
 */
const char *ms_hist_build(void);

const char *ms_hist_build(void)
{
	return MS_HIST_BUILD;
}
