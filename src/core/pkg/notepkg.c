/* notepkg.c - the ELF package note as an owner source: see notepkg.h. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/pkgnote.h"
#include "maps/mapping.h"
#include "pkg/notepkg.h"
#include "pkg/owner.h"
#include "pkg/owner_source.h"
#include "proc/proc.h"
#include "untrusted/mapfiles.h"
#include "untrusted/untrusted_walk.h"

_Static_assert(sizeof(((struct ms_pkg *)0)->name) == MS_PKGNOTE_NAME_MAX &&
		       sizeof(((struct ms_pkg *)0)->version) == MS_PKGNOTE_VERSION_MAX &&
		       sizeof(((struct ms_pkg *)0)->arch) == MS_PKGNOTE_ARCH_MAX,
	       "a note's fields fit struct ms_pkg's whole");

struct ms_notepkg {
	struct ms_walk_root root; /* fd -1 until a path is asked about, or when it cannot be had */
	bool root_tried;
};

int ms_notepkg_open(struct ms_notepkg **out, struct ms_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "package notes: out of memory");
	(*out)->root.fd = -1;
	return 0;
}

void ms_notepkg_close(struct ms_notepkg *np)
{
	if (!np)
		return;
	ms_walk_root_release(&np->root);
	free(np);
}

static bool root_ready(struct ms_notepkg *np)
{
	if (!np->root_tried) {
		np->root_tried = true;
		ms_walk_root_ours(&np->root);
	}
	return np->root.fd >= 0;
}

/* The note of the file at path (len bytes), read the checked way; 0 or pkgnote.h's errors. */
static int note_at(struct ms_notepkg *np, const char *path, size_t len, struct ms_pkgnote *note)
{
	char buf[PATH_MAX];
	const char *why;
	int fd, rc;

	if (len == 0 || len >= sizeof(buf) || path[0] != '/' || memchr(path, '\0', len))
		return MS_END;
	memcpy(buf, path, len);
	buf[len] = '\0';
	fd = ms_walk_open_read(&np->root, buf, MS_WALK_NO_SYMLINKS, NULL, NULL, NULL, NULL, &why);
	if (fd < 0)
		return MS_END;
	rc = ms_pkgnote_read_fd(fd, note, NULL);
	close(fd);
	return rc;
}

/* The database's version says what the note's does, but for an epoch ("1:") the note leaves out. */
static bool same_version(const char *db, const char *note)
{
	size_t digits = strspn(db, "0123456789");

	return !strcmp(db, note) || (digits > 0 && db[digits] == ':' && !strcmp(db + digits + 1, note));
}

static void take_note(struct ms_pkg *p, const struct ms_pkgnote *note)
{
	if (!p->found) {
		*p = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_NOTE };
		memcpy(p->name, note->name, sizeof(p->name));
		memcpy(p->version, note->version, sizeof(p->version));
		memcpy(p->arch, note->architecture, sizeof(p->arch));
		snprintf(p->note_type, sizeof(p->note_type), "%.*s", (int)(sizeof(p->note_type) - 1), note->type);
		return;
	}
	if (!note->version[0] || same_version(p->version, note->version))
		return;
	p->note_differs = true;
	memcpy(p->note_name, note->name, sizeof(p->note_name));
	memcpy(p->note_version, note->version, sizeof(p->note_version));
}

int ms_notepkg_find(struct ms_notepkg *np, const char *const *paths, const size_t *lens, const bool *gone,
		    size_t n, struct ms_pkg *out, struct ms_error *err)
{
	size_t left = 0;

	(void)err;
	/* Nothing at a path just now, or no note there: none to read (not even the mount table, if so for all). */
	for (size_t i = 0; i < n; i++)
		left += !gone || !gone[i];
	if (!left || !root_ready(np))
		return 0;
	/* Only dpkg and rpm rank before us: anything found is a database's. */
	for (size_t i = 0; i < n; i++) {
		struct ms_pkgnote note;

		if (gone && gone[i])
			continue;
		if (note_at(np, paths[i], lens[i], &note) == 0)
			take_note(&out[i], &note);
	}
	ms_walk_dircache_clear(np->root.dirs);
	return 0;
}

/* The note of the copy one mapping of copy c maps, through map_files; -1 with *why when not read. */
static int running_note(struct ms_notepkg *np, const struct ms_copy *c, struct ms_pkgnote *note,
			struct ms_error *why)
{
	struct ms_mapping m = { .start = c->addr, .end = c->end, .inode = c->ino,
				.dev_major = c->dev_major, .dev_minor = c->dev_minor };
	struct ms_proc *proc;
	const char *because;
	int fd, rc;

	if (!c->pid || !root_ready(np))
		return ms_error_set(why, MS_ERR_NOTSUP, 0, "no mapping of the running copy is known");
	if (ms_proc_open_dir(c->pid, &proc, why) < 0)
		return -1;
	fd = ms_mapfiles_open(proc, &m, NULL, &np->root, NULL, &because);
	ms_proc_close(proc);
	if (fd < 0)
		return ms_error_set(why, MS_ERR_IO, 0, "%s", because);
	rc = ms_pkgnote_read_fd(fd, note, why);
	close(fd);
	return rc;
}

int ms_notepkg_running(struct ms_notepkg *np, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
		       struct ms_error *err)
{
	(void)err;
	for (size_t i = 0; i < n; i++) {
		struct ms_pkg *p = &pkgs[i];
		struct ms_pkgnote note;
		struct ms_error why = { 0 };

		if (!p->found || p->source != MS_PKG_SOURCE_NOTE || p->running_state == MS_PKG_RUNNING_INSTALLED)
			continue;
		if (running_note(np, &copies[i], &note, &why) < 0) {
			ms_pkg_running_unknown(p, "%s", why.msg);
		} else if (!note.version[0]) {
			ms_pkg_running_unknown(p, "the running copy's package note names no version");
		} else {
			p->running_state = MS_PKG_RUNNING_KNOWN;
			memcpy(p->running, note.version, sizeof(p->running));
			p->running_alt[0] = '\0';
			snprintf(p->running_why, sizeof(p->running_why), "the running copy's own package note");
		}
	}
	ms_walk_dircache_clear(np->root.dirs);
	return 0;
}

static int note_open(const struct ms_owner_opts *opts, void **state, struct ms_error *err)
{
	(void)opts;
	return ms_notepkg_open((struct ms_notepkg **)state, err);
}

static int note_find(void *state, const char *const *paths, const size_t *lens, const bool *gone, size_t n,
		     struct ms_pkg *out, struct ms_error *err)
{
	return ms_notepkg_find(state, paths, lens, gone, n, out, err);
}

static int note_running(void *state, struct ms_pkg *pkgs, const struct ms_copy *copies, size_t n,
			struct ms_error *err)
{
	return ms_notepkg_running(state, pkgs, copies, n, err);
}

static void note_close(void *state)
{
	ms_notepkg_close(state);
}

const struct ms_owner_source ms_owner_source_note = {
	.name = "elf-note",
	.source = MS_PKG_SOURCE_NOTE,
	.open = note_open,
	.find = note_find,
	.running = note_running,
	.close = note_close,
};
