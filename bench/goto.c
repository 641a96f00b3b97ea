/*
 * ms-bench-goto: the maps view's g, timed in-process on the model, for make bench.
 *
 * Usage: ms-bench-goto PID JUMPS
 *
 * Each jump is what one g press makes the explorer do, without curses:
 * select the mapping at the address (tui_mapfeed_goto), query the window
 * from it (tui_mapfeed_refresh, pulling it up from the last page), and name
 * the code there (tui_symbol_at_describe: the symbols index, and the
 * symbol lookup itself when built with libdw).  The view is 40 rows high,
 * address order, no filter.  The addresses are the middles of mappings
 * picked by a fixed sequence over the whole process, and every tenth is
 * its last mapping (the window is pulled up there).  The first jump is
 * timed with the rest: it collects the symbols' index.
 *
 * Prints "goto MEDIAN_US FIRST_US MAX_US COLLECTIONS INDEX_WALKS SYMBOLS":
 * microseconds per jump, the whole collections of the symbols' index and
 * the view's index walks over all the jumps, and 1 when symbols were
 * looked up (0: built without libdw).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/maps/maps.h"
#include "core/proc/proc.h"
#include "tui/maps_feed.h"
#include "tui/symbol_at.h"

#define HEIGHT 40

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* One g press at addr, as view_maps.c makes it.  0, or -1 with a message. */
static int press(struct tui_mapview *vm, struct ms_maps *maps, struct tui_symbol_at *at,
		 uint64_t addr)
{
	struct tui_symbol_text text;
	struct ms_error err;
	int rc = tui_mapfeed_goto(vm, maps, addr, &err);

	if ((rc < 0 && rc != MS_END) || tui_mapfeed_refresh(vm, maps, false, NULL, &err) < 0 ||
	    (at && (rc = tui_symbol_at_describe(at, addr, 0, &text, &err)) < 0 && rc != MS_END)) {
		fprintf(stderr, "ms-bench-goto: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ms_maplist all = { 0 };
	struct tui_mapview vm;
	struct tui_symbol_at *at;
	struct ms_proc *proc;
	struct ms_maps *maps;
	struct ms_error err;
	unsigned long long pick = 12345;
	long long *t, first;
	long jumps;
	int status = 1;

	if (argc != 3 || (jumps = strtol(argv[2], NULL, 10)) < 1 || jumps > 100000) {
		fprintf(stderr, "usage: ms-bench-goto PID JUMPS\n");
		return 2;
	}
	if (ms_proc_open((pid_t)atoi(argv[1]), &proc, &err) < 0 ||
	    ms_maps_open(proc, NULL, &maps, &err) < 0) {
		fprintf(stderr, "ms-bench-goto: %s\n", err.msg);
		return 1;
	}
	/* Where to jump, read before timing. */
	if (ms_maps_collect(maps, 0, &all, &err) < 0 || !all.count || !(t = calloc((size_t)jumps, sizeof(*t)))) {
		fprintf(stderr, "ms-bench-goto: no mappings to jump to\n");
		return 1;
	}
	tui_mapview_init(&vm, 0, HEIGHT);
	at = tui_symbol_at_new(proc, maps, false, NULL, NULL, NULL);
	/* The view as it opens: its first window. */
	if (tui_mapfeed_refresh(&vm, maps, false, NULL, &err) < 0) {
		fprintf(stderr, "ms-bench-goto: %s\n", err.msg);
		goto out;
	}
	for (long i = 0; i < jumps; i++) {
		const struct ms_mapping *m;
		long long t0;

		pick = pick * 6364136223846793005ULL + 1442695040888963407ULL;
		m = i % 10 == 9 ? &all.items[all.count - 1] : &all.items[(pick >> 33) % all.count];
		t0 = now_ns();
		if (press(&vm, maps, at, m->start + (m->end - m->start) / 2) < 0)
			goto out;
		t[i] = now_ns() - t0;
	}
	first = t[0];
	qsort(t, (size_t)jumps, sizeof(*t), cmp_ll);
	printf("goto %.1f %.1f %.1f %lu %lu %d\n",
	       (jumps % 2 ? t[jumps / 2] : (t[jumps / 2 - 1] + t[jumps / 2]) / 2) / 1000.0,
	       first / 1000.0, t[jumps - 1] / 1000.0, at ? tui_symbol_at_collections(at) : 0UL,
	       vm.index_walks, at != NULL);
	status = 0;
out:
	tui_symbol_at_free(at);
	tui_mapview_free(&vm);
	ms_maplist_free(&all);
	free(t);
	ms_maps_close(maps);
	ms_proc_close(proc);
	return status;
}
