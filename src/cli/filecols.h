/*
 * filecols.h - the columns of `mapscope list PID --by-file`: one line per
 * file (device and inode) or kind of anonymous memory, grouped by the core
 * (core/filemap.h) and described only for the columns selected
 * (core/fileinfo.h: RSS, BUILDID, VERDICT, SONAME and LIBVER cost reads,
 * SONAME and LIBVER one open of the file together; PACKAGE
 * one lookup in dpkg's database, core/pkg/pkgdb.h, for the files listed).
 * Names, SONAMEs and packages are escaped; sizes human-readable unless -b.
 */
#ifndef MAPSCOPE_CLI_FILECOLS_H
#define MAPSCOPE_CLI_FILECOLS_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli/cli.h"
#include "core/files/filemap.h"

enum {
	FILECOL_NAME,
	FILECOL_KIND,
	FILECOL_MAPS,
	FILECOL_SIZE,
	FILECOL_RSS,
	FILECOL_PERMS,
	FILECOL_DEV,
	FILECOL_INODE,
	FILECOL_START,
	FILECOL_BUILDID,
	FILECOL_VERDICT,
	FILECOL_SONAME,
	FILECOL_LIBVER,
	FILECOL_FILEVER,
	FILECOL_PACKAGE,
	FILECOL_PKGVERSION,
	FILECOL_INSTALLED,
	FILECOL_PKGSOURCE,
	FILECOL_VENDORED,
	FILECOL_VERWHY,
	FILECOL_PKGNOTE,
	FILECOL_COUNT,
};

extern const struct cli_column filecols[FILECOL_COUNT];

/* The --by-file column list, for `list --help`. */
void filecols_help(void);

/*
 * The MS_FILEINFO_* reads the selected fact columns of cols need (*rss: a
 * residency walk for RSS), for the per-file description (fileinfo.h).
 */
unsigned filecols_fileinfo(const struct cli_column *cols, const int *selected, size_t n, bool *rss);

/*
 * Describe fm's rows for what (MS_FILEINFO_*; the ignore rules loaded for
 * a verdict).  Returns an exit status (message printed).
 */
int filecols_describe(struct ms_proc *proc, struct ms_maps *maps, struct ms_filemap *fm,
		      const struct ms_maplist *list, unsigned what);

/*
 * One process's mappings grouped by file and described: the maps opened
 * (fields: MS_FIELD_* besides the names), every mapping collected
 * (o's filter), grouped (filemap.h), RSS read when rss, described for
 * what.  Returns an exit status (message printed); free it either way.
 */
struct filecols_run {
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_maplist list;
	struct ms_filemap fm;
};
int filecols_collect(pid_t pid, const struct cli_opts *o, unsigned fields, unsigned what, bool rss,
		     struct filecols_run *r);
void filecols_run_free(struct filecols_run *r);

/* The command, once `list` has parsed its options. */
int cmd_list_by_file(pid_t pid, const struct cli_opts *o);

#endif
