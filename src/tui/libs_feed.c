/* libs_feed.c - the libraries view's walk: see libs_feed.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pkg/owner.h"
#include "tui/libs_feed.h"

int tui_libfeed_init(struct tui_libfeed *f, const struct ms_ignore *ignore, enum ms_backend backend,
		     struct ms_error *err)
{
	memset(f, 0, sizeof(*f));
	f->backend = backend;
	f->what = MS_LIBTABLE_RSS;
	return ms_stale_ctx_new(ignore, &f->ctx, err);
}

static void drop_walk(struct tui_libfeed *f)
{
	if (f->next) {
		ms_libtable_free(f->next);
		free(f->next);
		f->next = NULL;
	}
	if (f->walking)
		ms_fleet_free(&f->fleet);
	f->walking = false;
}

void tui_libfeed_restart(struct tui_libfeed *f)
{
	drop_walk(f);
}

void tui_libfeed_free(struct tui_libfeed *f)
{
	drop_walk(f);
	ms_stale_ctx_free(f->ctx);
	memset(f, 0, sizeof(*f));
}

static int start(struct tui_libfeed *f, struct ms_error *err)
{
	const struct ms_libtable_opts opts = { .what = f->what };
	int rc;

	f->next = calloc(1, sizeof(*f->next));
	if (!f->next)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "libraries view: out of memory");
	if ((rc = ms_libtable_init(f->next, &opts, err)) < 0) {
		free(f->next);
		f->next = NULL;
		return rc;
	}
	if ((rc = ms_fleet_init(&f->fleet, NULL, 0, false, f->backend, err)) < 0) {
		drop_walk(f);
		return rc;
	}
	f->walking = true;
	f->share = (f->fleet.count + TUI_LIBFEED_TICKS - 1) / TUI_LIBFEED_TICKS;
	if (!f->share)
		f->share = 1;
	ms_stale_ctx_forget(f->ctx);
	return 0;
}

/* The walk's end: packages in one lookup, the counts, the table out. */
static int finish(struct tui_libfeed *f, struct ms_libtable **done, struct ms_error *err)
{
	struct ms_owner *owner = NULL;
	int rc;

	f->pkg_why = NULL;
	/* Not a dpkg or rpm system: no database, and the packages say so. */
	if ((rc = ms_owner_open(NULL, &owner, err)) == MS_ERR_NOMEM)
		return rc;
	rc = ms_libtable_packages(f->next, owner, &f->pkg_why, err);
	ms_owner_close(owner);
	if (rc == MS_ERR_NOMEM)
		return rc;
	f->scanned = f->fleet.scanned;
	f->unreadable = f->fleet.vanished + f->fleet.denied + f->fleet.failed;
	ms_fleet_free(&f->fleet);
	f->walking = false;
	*done = f->next;
	f->next = NULL;
	f->walks++;
	return 0;
}

int tui_libfeed_step(struct tui_libfeed *f, bool whole, struct ms_libtable **done, struct ms_error *err)
{
	struct ms_proc *proc;
	struct ms_maps *maps;
	int rc;

	*done = NULL;
	if (!f->walking && (rc = start(f, err)) < 0)
		return rc;
	for (size_t n = 0; whole || n < f->share; n++) {
		rc = ms_fleet_next(&f->fleet, &proc, &maps, err);
		if (rc == MS_FLEET_DONE)
			return finish(f, done, err);
		if (rc < 0) {
			drop_walk(f);
			return rc;
		}
		if (rc != MS_FLEET_OPEN)
			continue;
		rc = ms_libtable_add(f->next, f->ctx, proc, maps, err);
		ms_maps_close(maps);
		ms_proc_close(proc);
		if (rc == MS_ERR_NOMEM) {
			drop_walk(f);
			return rc;
		}
		if (rc < 0)
			ms_fleet_note_error(&f->fleet, err);
	}
	return 0;
}
