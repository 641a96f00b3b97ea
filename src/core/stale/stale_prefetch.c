#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/cpus.h"
#include "stale/stale_prefetch.h"

/* Processes walked ahead at most: enough to ride out one slow process. */
#define QUEUE 32
/*
 * Each side wakes the other once per BATCH processes, not once per process:
 * a wakeup across CPUs costs a few microseconds on both, as much as a
 * process's walk (perf: 500 wakeups took the kernel 4 ms more than the
 * walk saved).
 */
#define BATCH 8

struct item {
	int kind;              /* MS_FLEET_*, or MS_ERR_NOMEM */
	struct ms_proc *proc;  /* open only for MS_FLEET_OPEN with walk_rc 0 */
	struct ms_maps *maps;
	struct ms_maplist mappings;
	int walk_rc;
	bool named;
	struct ms_error err;
};

struct ms_stale_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;   /* head, tail, stop */
	pthread_cond_t filled;  /* head moved */
	pthread_cond_t freed;   /* tail moved, or stop */
	struct ms_fleet *fleet; /* the thread's until stop */
	unsigned filter;
	unsigned head;          /* items made; the thread fills slot head % QUEUE */
	unsigned tail;          /* items taken */
	bool stop;
	bool finished;          /* the last item (DONE or NOMEM) is made */
	bool caller_waits;      /* on filled */
	bool thread_waits;      /* on freed */
	bool ended;             /* the caller took the last item */
	struct ms_cpu_split cpus;
	struct item items[QUEUE];
};

/* The mappings of maps that pass filter, names only, into list: 0 or the walk's error. */
static int walk(struct ms_maps *maps, unsigned filter, struct ms_maplist *list, struct ms_error *err)
{
	unsigned fields = ms_maps_set_fields(maps, MS_FIELD_NAME);
	int rc;

	ms_maplist_clear(list);
	rc = ms_maps_collect(maps, filter, list, err);
	ms_maps_set_fields(maps, fields);
	return rc;
}

static void close_item(struct item *it)
{
	ms_maps_close(it->maps);
	ms_proc_close(it->proc);
	it->maps = NULL;
	it->proc = NULL;
}

/* The next process of the fleet, walked, into it (the thread's slot). */
static void fill(struct ms_stale_prefetch *p, struct item *it)
{
	it->proc = NULL;
	it->maps = NULL;
	it->walk_rc = 0;
	it->named = false;
	it->kind = ms_fleet_next(p->fleet, &it->proc, &it->maps, &it->err);
	if (it->kind != MS_FLEET_OPEN)
		return;
	it->walk_rc = walk(it->maps, p->filter, &it->mappings, &it->err);
	/* An exec mid-walk is followed once, as ms_stale_scan does. */
	if (it->walk_rc == MS_ERR_EXECED) {
		it->walk_rc = ms_maps_reopen(it->maps, &it->err);
		if (it->walk_rc == 0)
			it->walk_rc = walk(it->maps, p->filter, &it->mappings, &it->err);
	}
	if (it->walk_rc == 0)
		return;
	close_item(it);
	if (it->walk_rc == MS_ERR_NOMEM)
		it->kind = MS_ERR_NOMEM;
	else
		it->named = ms_fleet_note_error(p->fleet, &it->err);
}

static void *prefetch_main(void *arg)
{
	struct ms_stale_prefetch *p = arg;

	for (;;) {
		struct item *it;
		int kind;

		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->head - p->tail == QUEUE) {
			p->thread_waits = true;
			pthread_cond_wait(&p->freed, &p->lock);
		}
		p->thread_waits = false;
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		it = &p->items[p->head % QUEUE];
		pthread_mutex_unlock(&p->lock);

		/* The slot is the thread's until head moves past it. */
		fill(p, it);
		kind = it->kind;

		pthread_mutex_lock(&p->lock);
		p->head++;
		p->finished = kind == MS_FLEET_DONE || kind == MS_ERR_NOMEM;
		if (p->caller_waits && (p->finished || p->head - p->tail >= BATCH))
			pthread_cond_signal(&p->filled);
		pthread_mutex_unlock(&p->lock);
		if (kind == MS_FLEET_DONE || kind == MS_ERR_NOMEM)
			return NULL;
	}
}

static void destroy(struct ms_stale_prefetch *p)
{
	for (size_t i = 0; i < QUEUE; i++)
		ms_maplist_free(&p->items[i].mappings);
	ms_cpu_split_end(&p->cpus);
	pthread_cond_destroy(&p->freed);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct ms_stale_prefetch *ms_stale_prefetch_start(struct ms_fleet *fleet, unsigned filter)
{
	struct ms_stale_prefetch *p = calloc(1, sizeof(*p));
	cpu_set_t cpus;

	if (!p)
		return NULL;
	/* Apart, or not at all (base/cpus.h says why). */
	if (!ms_cpu_split_begin(&p->cpus, &cpus)) {
		free(p);
		return NULL;
	}
	p->fleet = fleet;
	p->filter = filter;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->freed, NULL);
	if (ms_cpu_helper_start(&p->thread, &cpus, prefetch_main, p) != 0) {
		destroy(p);
		return NULL;
	}
	return p;
}

int ms_stale_prefetch_next(struct ms_stale_prefetch *p, struct ms_proc **proc, struct ms_maps **maps,
			   struct ms_maplist *mappings, int *walk_rc, bool *named, struct ms_error *err)
{
	struct ms_maplist mine = *mappings;
	struct item *it;
	int kind;

	*proc = NULL;
	*maps = NULL;
	*walk_rc = 0;
	*named = false;
	if (p->ended)
		return MS_FLEET_DONE;
	pthread_mutex_lock(&p->lock);
	/* Once out of work, wait for a batch (or the end), not for one process. */
	if (p->head == p->tail)
		while (!p->finished && p->head - p->tail < BATCH) {
			p->caller_waits = true;
			pthread_cond_wait(&p->filled, &p->lock);
		}
	p->caller_waits = false;
	it = &p->items[p->tail % QUEUE];
	pthread_mutex_unlock(&p->lock);

	/* The slot is the caller's until tail moves past it. */
	kind = it->kind;
	*proc = it->proc;
	*maps = it->maps;
	*walk_rc = it->walk_rc;
	*named = it->named;
	*err = it->err;
	it->proc = NULL;
	it->maps = NULL;
	/* The lists trade places: the thread refills the caller's old buffer. */
	ms_maplist_clear(&mine);
	*mappings = it->mappings;
	it->mappings = mine;

	pthread_mutex_lock(&p->lock);
	p->tail++;
	if (p->thread_waits && p->head - p->tail <= QUEUE - BATCH)
		pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
	if (kind == MS_FLEET_DONE || kind == MS_ERR_NOMEM)
		p->ended = true;
	return kind;
}

void ms_stale_prefetch_stop(struct ms_stale_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	/* Made and never taken. */
	for (unsigned i = p->tail; i != p->head; i++)
		close_item(&p->items[i % QUEUE]);
	destroy(p);
}
