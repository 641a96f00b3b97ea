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
 * "mapscope:hash-skipped").
 *
 * Components, one a line (libs_cdx_evidence.c writes each):
 *   - a "library" per package version (sbom.h): name, version (always),
 *     purl; evidence.identity (field "purl", its confidence, the purl as
 *     concludedValue, and the methods: "manifest-analysis" for dpkg, rpm,
 *     Python and npm, "binary-analysis" for the ELF package note, "other"
 *     for the history that dated a replaced copy or left candidates, with
 *     that reason as the value); evidence.occurrences, one per file
 *     mapped (location: its name as the kernel gives it; additionalContext:
 *     "pids 12 345", then its verdict, what copy it is, its build ID);
 *   - a "file" per file no package names a version of: its name, SHA-256
 *     hash, one occurrence;
 *   - an "application" per process that maps any of them: bom-ref
 *     "process-PID", its command as name, mapscope:pid, and
 *     mapscope:where for a process under another root.
 * Dependencies: the host depends on each process (and, with installed,
 * on each version installed that no process maps); each process on the
 * components it maps.
 *
 * Properties, only for what CycloneDX has no field for:
 * mapscope:package-source (the database), mapscope:running (installed,
 * replaced, candidate, installed-not-running; unknown on a file
 * component whose package is known but not its copy's version),
 * mapscope:installed-version (where another version runs),
 * mapscope:verdict (each stale verdict of its files), mapscope:vendored,
 * and on file components mapscope:package (the package, or why none) and
 * mapscope:version-why.
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

#include <stdbool.h>

#include "cli/cli.h"
#include "core/files/libtable.h"

/* installed: also the version installed of each package with an old copy running (--installed). */
int libs_cdx_print(struct ms_libtable *t, const struct cli_opts *o, bool installed);

#endif
