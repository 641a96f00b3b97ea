/* outfile.c - a command's stdout document, atomically to a file: see outfile.h. */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/outfile.h"

int cli_outfile_begin(struct cli_outfile *of, const char *opt, const char *path, mode_t mode)
{
	const struct ms_safewrite_opts so = { .atomic = true, .mode = mode };
	struct ms_error err;

	of->opt = opt;
	of->saved_stdout = -1;
	if (fflush(stdout) != 0) {
		cli_error("%s: write error on standard output", opt);
		return CLI_EXIT_USAGE;
	}
	if (ms_safewrite_open(path, &so, &of->w, &err) < 0) {
		cli_error("%s: %s", opt, err.msg);
		return CLI_EXIT_USAGE;
	}
	of->saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (of->saved_stdout < 0 || dup2(of->w.fd, STDOUT_FILENO) < 0) {
		cli_error("%s: cannot redirect standard output to %s", opt, path);
		if (of->saved_stdout >= 0)
			close(of->saved_stdout);
		ms_safewrite_abort(&of->w);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int cli_outfile_end(struct cli_outfile *of, int status)
{
	struct ms_error err;
	bool ok = status == CLI_EXIT_OK;

	if (fflush(stdout) != 0 || ferror(stdout))
		ok = false;
	clearerr(stdout);
	/* The temporary's descriptor stays w.fd: fd 1 is only a second name for it. */
	if (dup2(of->saved_stdout, STDOUT_FILENO) < 0)
		ok = false;
	close(of->saved_stdout);
	of->saved_stdout = -1;
	if (!ok) {
		ms_safewrite_abort(&of->w);
		if (status == CLI_EXIT_OK)
			cli_error("%s: the document could not be written; the file is left as it was", of->opt);
		return status == CLI_EXIT_OK ? CLI_EXIT_USAGE : status;
	}
	if (ms_safewrite_close(&of->w, &err) < 0) {
		cli_error("%s: %s", of->opt, err.msg);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}
