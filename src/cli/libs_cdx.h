/*
 * libs_cdx.h - `mapscope libs --format=cyclonedx`: the mapped files as a
 * CycloneDX 1.6 JSON document (a runtime SBOM), for vulnerability
 * scanners and dependency trackers.  The components are core/files/
 * sbom.h's (one per package version mapped, with its package URL; one per
 * file no package owns, with its SHA-256); this writes them.
 *
 * The document: bomFormat, specVersion "1.6", a random urn:uuid serial
 * number, version 1; metadata with the time (UTC), the lifecycle phase
 * "operations" (what runs), mapscope as the tool, and the host as an
 * "operating-system" component (os-release's ID, VERSION_ID and
 * PRETTY_NAME; the host name and kernel release as properties), the
 * number of processes, of file components without a hash
 * ("mapscope:unhashed-files") and of those the hash budget left out
 * ("mapscope:hash-budget-skipped"; each such component says so in
 * "mapscope:hash-skipped"); the
 * components; and one dependency entry, the host depending on each of
 * them.  Facts CycloneDX has no field for are properties named
 * "mapscope:...": the package's database, whether its copy is the one
 * installed ("mapscope:running": installed, replaced or unknown), the
 * installed version where it is not the one that runs, the processes
 * (count and PIDs), and per file (mapscope:file:N:...) its path, build
 * ID, stale verdict and, for a process under another root, where it
 * lives.
 *
 * Every string read from processes, files or databases is written as it
 * is, escaped once by JSON's own rules, so a reader gets the name itself:
 * the document is ASCII (every other character as \uXXXX, DEL as \u007f),
 * and a byte that is not UTF-8, which JSON cannot hold, becomes U+FFFD.
 * Purls are percent-encoded from the raw bytes (purl.h).  Components are written one a line as
 * they are made, so memory stays that of the table.  Returns an exit
 * status (cli_stdout_done's on a write error).
 */
#ifndef MAPSCOPE_CLI_LIBS_CDX_H
#define MAPSCOPE_CLI_LIBS_CDX_H

#include "cli/cli.h"
#include "core/files/libtable.h"

int libs_cdx_print(struct ms_libtable *t, const struct cli_opts *o);

#endif
