/*
 * symbols.h - what code is at an address: the symbol (name+offset) and the
 * source line, through elfutils' libdwfl.  Built only with libdw
 * (HAVE_LIBDW); without it the front ends have no symbol columns.
 *
 * One context serves one process for a whole run, with one Dwfl handle.
 * Modules are reported to it from the engine's own mappings (a maplist the
 * caller collected, never dwfl's reader of /proc/PID/maps), one per mapped
 * file (device and inode), lazily: a file is opened the first time an
 * address inside it is asked about, and never again.  Its module spans
 * from the mapping of its offset 0 (where the first PT_LOAD starts, as the
 * dynamic loader maps it) to the end of the last mapping of the same file
 * before another file's mapping.
 *
 * libdw never runs in this process.  It parses files any user may have
 * written, and it opens files, allocates and loops by what they say, so it
 * runs in an isolated child (untrusted_child.h), one per context, started
 * at the first lookup and kept for the context's life: the reader.  This
 * process opens each file the checked way (lookup.h: the mapping's
 * name under the process's root, the same device and inode as the mapping,
 * opened O_PATH and reopened through /proc/self/fd, never on a file system
 * served by someone else, fstype.h).  Where the path holds another file or
 * none (the file was replaced or deleted), the mapped file itself is read
 * through /proc/PID/map_files (mapfiles.h: root only); where that is
 * refused, the file gives no symbols and why names both facts ("the file
 * at the path is not the mapped one (replaced); reading the running copy
 * needs root"), with tell set so that a batch command says it once.  This
 * process hands the reader the
 * descriptor (symbols_child.h), which decides with elfcheck.h whether
 * libelf may see it (symbols_dw.h).  A lookup that takes longer than
 * MS_SYMBOLS_FILE_SECONDS, or a reader that grows past its memory limit,
 * crashes or says something malformed, ends that reader: the file then
 * gives no symbols this run, why says so ("symbols: gave up after 5 s",
 * "symbols: over the memory limit", ...), and the next lookup starts
 * another reader, which is given its files again.  At most
 * MS_SYMBOLS_READERS_MAX readers and MS_SYMBOLS_LOST_SECONDS of waiting on
 * killed ones per context; past that, no more symbols.
 * opts.interrupt, when set, is asked every 10 ms while the reader works:
 * when it returns true the reader is ended and why says "symbols:
 * interrupted" (the file is tried again at the next lookup).
 *
 * Debug files are looked for by the module's build ID, under the same
 * root: /usr/lib/debug/.build-id/NN/REST.debug, then the .gnu_debuglink
 * name next to the file, in its .debug directory and under /usr/lib/debug.
 * Each candidate must be a regular file root owns and only root can write,
 * pass elfcheck, and carry the module's build ID; a module without a build
 * ID gets no debug file (its DWARF would be a guess).  This process looks
 * for them and opens them when the reader asks; the reader cannot open
 * anything, so libdw's own search for alternate debug files
 * (.gnu_debugaltlink) fails there and the lookup goes on without.
 *
 * debuginfod: only when opts.debuginfod is set and DEBUGINFOD_URLS is not
 * empty, for modules with a build ID and no local debug file, within
 * opts.debuginfod_seconds for the whole context (the client's own timeout
 * is set to what remains, and the progress function aborts a transfer
 * past the deadline).  opts.progress, when set, is called during a fetch.
 * libdw reaches debuginfod on its own, from the environment, when it
 * follows a debug file's alternate link; so when fetching is off, the
 * context removes DEBUGINFOD_URLS from the process's environment (and the
 * reader removes it from its own).
 *
 * Symbols are looked up through a per-module index sorted by address
 * (symindex.h), built the first time a module is asked for a name, that
 * answers as libdw's dwfl_module_addrinfo does; past MS_SYMBOLS_INDEX_MAX
 * indexed symbols in all, further modules use libdw's scan.
 *
 * ms_symbols_lookup fills out for addr:
 *   - mapping: the index in the list of the mapping covering addr, or -1
 *     (then MS_END is returned);
 *   - name and name_off when a symbol of .symtab or .dynsym (of the file
 *     or its debug file) covers addr; else name is NULL and why says why
 *     (static text);
 *   - file and line when DWARF maps addr to a line; else file is NULL.
 *     A relative file comes with its compilation directory (comp_dir),
 *     when DWARF names one.
 * Strings are valid until the next lookup or ms_symbols_free, at most
 * MS_SYMMSG_STR_MAX bytes each; they are raw bytes from a file anyone may
 * have written: escape them before display.
 * Returns 0, MS_END (no mapping covers addr) or MS_ERR_NOMEM.
 *
 * ms_symbols_set_list lends another list (after a refresh); modules already
 * reported stay.  The list must outlive its use.
 */
#ifndef MAPSCOPE_SYMBOLS_H
#define MAPSCOPE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "maps/mapping.h"
#include "proc/proc.h"

#define MS_SYMBOLS_FILE_SECONDS 5u
#define MS_SYMBOLS_LOST_SECONDS 30u
#define MS_SYMBOLS_READERS_MAX 8u
#define MS_SYMBOLS_DEBUGINFOD_SECONDS 30u
/* Symbols the per-module indexes (symindex.h) hold at most, all together; past it, libdw's scan. */
#define MS_SYMBOLS_INDEX_MAX (4u << 20)

/* done and total as the debuginfod client reports them (total may be 0). */
typedef void (*ms_symbols_progress_fn)(void *arg, long done, long total);

struct ms_symbols_opts {
	bool debuginfod;
	unsigned debuginfod_seconds; /* 0: MS_SYMBOLS_DEBUGINFOD_SECONDS */
	ms_symbols_progress_fn progress;
	void *progress_arg;
	bool (*interrupt)(void *arg); /* asked while the reader works; true ends it */
	void *interrupt_arg;
};

struct ms_symbol {
	long mapping;
	const char *name;
	uint64_t name_off;
	const char *file;
	const char *comp_dir; /* when file is relative: the directory it is relative to, or NULL */
	int line;
	const char *why;
	bool tell; /* why is about the file, worth saying once: its running copy could not be read */
};

struct ms_symbols;

/* opts may be NULL (no debuginfod).  0, or MS_ERR_NOMEM / MS_ERR_IO. */
int ms_symbols_new(struct ms_proc *proc, const struct ms_maplist *list,
		   const struct ms_symbols_opts *opts, struct ms_symbols **out,
		   struct ms_error *err);
void ms_symbols_set_list(struct ms_symbols *s, const struct ms_maplist *list);
#define MS_SYMBOLS_NAME 0x1u
#define MS_SYMBOLS_SOURCE 0x2u
/* what: MS_SYMBOLS_* to look up; DWARF line tables are read only for SOURCE. */
int ms_symbols_lookup(struct ms_symbols *s, uint64_t addr, unsigned what, struct ms_symbol *out);
/*
 * The same for n addresses at once, out[i] for addrs[i] (mapping -1 when
 * no mapping covers it): the reader is asked about many in one round trip.
 * Strings are valid until the next lookup.  0, or MS_ERR_NOMEM.
 */
int ms_symbols_lookup_many(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
			   struct ms_symbol *out);
/*
 * The same in two halves, so that the caller works while the reader does:
 * ms_symbols_ask prepares the files and sends the reader the first
 * MS_SYMBOLS_ASK_MAX addresses it has to answer without waiting for them;
 * ms_symbols_take waits for them (each frame within
 * MS_SYMBOLS_FILE_SECONDS of the take, as a lookup does) and looks up the
 * rest.  addrs and out must stay the caller's until the take, and out is
 * complete only then.  One ask at a time, each followed by its take, with
 * no other lookup between them; the strings of the answers before the
 * ask stay valid until the take.  A reader that ends between the two
 * answers as it would in a lookup.  Both return 0 or MS_ERR_NOMEM.
 */
#define MS_SYMBOLS_ASK_MAX 1024u
int ms_symbols_ask(struct ms_symbols *s, const uint64_t *addrs, size_t n, unsigned what,
		   struct ms_symbol *out);
int ms_symbols_take(struct ms_symbols *s);
void ms_symbols_free(struct ms_symbols *s);

/*
 * For the fuzz target: the symbols of one ELF image in memory, with no
 * process, parsed by libdw in this process (the fuzzer is the sandbox).  The bytes are copied, checked as a file any user could have
 * written (elfcheck.h) and reported as one module at base, with no debug
 * files.  ms_symbols_lookup then answers for any address (mapping 0);
 * ms_symbols_image_check compares the module's index with libdw's own
 * scan at the edges of every indexed symbol (symindex.h) and returns
 * MS_ERR_PROTO, naming the address, where they differ.  ms_symbols_image_new
 * returns 0, MS_END, MS_ERR_LIMIT (elfcheck refused the bytes) or
 * MS_ERR_NOMEM.
 */
int ms_symbols_image_new(const unsigned char *buf, size_t len, uint64_t base,
			 struct ms_symbols **out, struct ms_error *err);
int ms_symbols_image_check(struct ms_symbols *s, struct ms_error *err);

/*
 * May debuginfod be asked at all?  0, or MS_ERR_NOTSUP with err saying why
 * not: built without its client, DEBUGINFOD_URLS not set, or, run as root,
 * no safe cache.  As root the client's cache is always
 * MS_SYMBOLS_DEBUGINFOD_CACHE (DEBUGINFOD_CACHE_PATH is set to it here),
 * never the default under HOME or XDG_CACHE_HOME: sudo -E or su -m may
 * have kept a user's, where the user can plant links that the client,
 * writing its cache files by name, would follow as root.  Each level is
 * made if missing and must be a directory only root may change
 * (safewrite.h, ms_safewrite_root_dir).  Others keep the client's default.
 * ms_symbols_new makes this check itself and fetches nothing when it fails.
 */
#define MS_SYMBOLS_DEBUGINFOD_CACHE "/var/cache/mapscope/debuginfod"
int ms_symbols_debuginfod_check(struct ms_error *err);

#endif
