/*
 * lookup_buildid.h - the build ID of the file a lookup found at a path
 * (untrusted/lookup.h), for the stale verdicts' "same bytes or a real
 * upgrade" question.
 *
 * ms_lookup_build_id reads it at most once per lookup record: the file is
 * opened only through ms_lookup_open_read (the checked reopen of the
 * O_PATH descriptor the walk checked, never by name), and read with
 * buildid.h's bounded reader.  The answer is kept in l (bid_state, bid,
 * bid_len, bid_why): MS_LOOKUP_BID_HAVE, _NONE (not ELF, or no note),
 * _REFUSED (the walk or the reader refused on purpose: bid_why says why) or
 * _FAILED.
 */
#ifndef MAPSCOPE_LOOKUP_BUILDID_H
#define MAPSCOPE_LOOKUP_BUILDID_H

#include <stddef.h>

#include "untrusted/lookup.h"

/* Fill l's build ID if not yet tried (l from ms_lookup_path with the same path). */
void ms_lookup_build_id(const struct ms_lookup_root *root, const char *path, size_t len,
			struct ms_lookup *l);

#endif
