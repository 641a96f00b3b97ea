/*
 * osrelease.h - the distribution this machine runs, from os-release(5):
 * /etc/os-release, else /usr/lib/os-release (the files systemd reads).
 * For the vendor of package URLs (purl.h) and the SBOM's operating
 * system (core/files/sbom.h).
 *
 * The file is read through saferead.h (a regular file only, never
 * blocking, at most MS_OSRELEASE_MAX bytes: a longer one is not read at
 * all).  Only ID, VERSION_ID, VERSION_CODENAME and PRETTY_NAME are
 * kept, each cut to its
 * field's size; a value may be quoted ("..." or '...', with backslash
 * escapes inside double quotes, as os-release(5) says).  ID is kept only
 * when it is what os-release(5) allows (0-9, a-z, '.', '_', '-'): it goes
 * into URLs.  The others are raw bytes: escape before display.
 *
 * ms_osrelease_read fills what it found ("" for the rest) and returns 0,
 * or the read's error (neither file readable; err says why).  path NULL:
 * the two system files.
 */
#ifndef MAPSCOPE_OSRELEASE_H
#define MAPSCOPE_OSRELEASE_H

#include "base/error.h"

#define MS_OSRELEASE_MAX (64u << 10)

struct ms_osrelease {
	char id[64];
	char version_id[64];
	char version_codename[64];
	char pretty_name[256];
};

int ms_osrelease_read(const char *path, struct ms_osrelease *out, struct ms_error *err);
/* The same over text already read (len bytes). */
void ms_osrelease_parse(const char *text, size_t len, struct ms_osrelease *out);

#endif
