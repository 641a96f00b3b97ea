/*
 * outfile.h - a document a command prints on standard output, written to a
 * file instead, atomically (libs --sbom-file): a reader of the name (a
 * collector uploading the spool folder) sees the previous document or the
 * new one, whole, never half of either.
 *
 * cli_outfile_begin opens the file through safewrite's atomic mode (see
 * safewrite.h: a temporary beside the target, O_EXCL|O_NOFOLLOW, renamed
 * over it at the end; the target must be a regular file or nothing, and
 * another user's file is refused, so is a symlink another user planted; a
 * symlink of ours is replaced, never written through), then points file
 * descriptor 1 at the temporary, so the writer that prints to stdout
 * writes the file unchanged.  Nothing is opened before the caller has its
 * document ready to print, so a slow scan leaves no temporary behind it
 * for long.
 *
 * cli_outfile_end puts standard output back and, when the writer's status
 * is CLI_EXIT_OK and stdout took every byte, fsyncs and renames the
 * temporary over the target; otherwise it removes the temporary and the
 * target is left as it was.  New files get mode (less the umask).
 *
 * Errors are printed, naming opt (the option given) and the file; both
 * return CLI_EXIT_USAGE (2) on failure, as --metrics-file does.
 */
#ifndef MAPSCOPE_CLI_OUTFILE_H
#define MAPSCOPE_CLI_OUTFILE_H

#include <sys/types.h>

#include "core/base/safewrite.h"

struct cli_outfile {
	struct ms_safewrite w;
	int saved_stdout; /* the real standard output, while redirected */
	const char *opt;  /* "--sbom-file", for messages */
};

/* CLI_EXIT_OK with stdout redirected, or CLI_EXIT_USAGE (said why). */
int cli_outfile_begin(struct cli_outfile *of, const char *opt, const char *path, mode_t mode);

/* status, or CLI_EXIT_USAGE when the file could not be completed. */
int cli_outfile_end(struct cli_outfile *of, int status);

#endif
