/*
 * detail_pkg.h - the "package" line of the maps view's detail pane: the
 * package that owns the selected mapping's file, its version and the
 * database that answered (core/pkg/owner.h).  No curses.
 *
 * The answer is kept for the last file asked about (device, inode and
 * name), so redrawing the pane, or moving between mappings of one file,
 * does not ask again; selecting another file asks once (one owner lookup
 * of one path).  Anonymous memory and names that are not paths have no
 * line; a process under another root than ours says that our databases do
 * not describe its files.  For a replaced or deleted file (its verdict),
 * the version of the copy that runs is asked of the source's history
 * (owner.h, ms_owner_running) as `list --by-file` asks it: the copy's
 * unlink time from the verdict, the process (or the ancestor that mapped
 * the copy first) for its start; the line then says how that version was
 * found, or why it is unknown.  tui_detail_pkg_forget drops the answer (F5).
 */
#ifndef MAPSCOPE_TUI_DETAIL_PKG_H
#define MAPSCOPE_TUI_DETAIL_PKG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/maps/mapping.h"
#include "core/pkg/owner.h"
#include "core/proc/proc.h"
#include "core/stale/stale.h"

struct tui_detail_pkg {
	bool known;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *name; /* the file asked about, raw */
	size_t name_len;
	char line[2800]; /* three escaped fields of at most 512 bytes, the reason, and words */
};

/*
 * The line for m (NULL: none), escaped with escape_flags.  verdict: m's
 * stale verdict (stale.h), whose proof of the name (path_ours) decides
 * whether the name may be looked up at all; NULL (not judged yet): no
 * line until it is.  proc: m's process.
 */
const char *tui_detail_pkg_line(struct tui_detail_pkg *dp, const struct ms_proc *proc, const struct ms_mapping *m,
				const struct ms_stale_result *verdict, bool other_root,
				unsigned escape_flags);
void tui_detail_pkg_forget(struct tui_detail_pkg *dp);

#endif
