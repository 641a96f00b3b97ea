#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/cpus.h"
#include "stale/stale_prefetch.h"

/* Processes walked ahead at most: enough to ride out one slow process. */
#define QUEUE 32
/*
 * The thread, once the queue is full, is woken when BATCH slots are free,
 * not at each one: a wakeup across CPUs costs a few microseconds on both,
 * as much as a process's walk (perf: 500 wakeups took the kernel 4 ms more
 * than the walk saved).
 */
#define BATCH 8

struct item {
	bool ready;            /* settled and not yet taken: the caller may take it */
	int kind;              /* MS_FLEET_OPEN, _NAMED_FAILED, _SKIP, or MS_ERR_NOMEM */
	int open_rc;           /* what ms_fleet_open_at answered */
	struct ms_proc *proc;  /* open only for MS_FLEET_OPEN with walk_rc 0 */
	struct ms_maps *maps;
	struct ms_maplist mappings;
	int walk_rc;
	bool named;
	struct ms_error err;
};

struct ms_stale_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;   /* the fleet, tail, stop, each item's ready, the flags below */
	pthread_cond_t settled; /* the item at tail became ready */
	pthread_cond_t freed;   /* tail moved, or stop */
	struct ms_fleet *fleet; /* next is the index the next walker takes */
	unsigned filter;
	size_t tail;            /* the index the caller takes next */
	bool stop;
	bool caller_waits;      /* on settled */
	bool thread_waits;      /* on freed */
	bool ended;             /* the caller took DONE or NOMEM */
	size_t walked_here;     /* by the caller */
	struct ms_cpu_split cpus;
	struct item items[QUEUE]; /* index i in items[i % QUEUE] */
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

/* Process i of the fleet opened and walked into it, outside the lock; *known as ms_fleet_open_at's. */
static void walk_one(struct ms_stale_prefetch *p, struct item *it, size_t i, bool *known)
{
	it->walk_rc = 0;
	it->named = false;
	it->open_rc = ms_fleet_open_at(p->fleet, i, known, &it->proc, &it->maps, &it->err);
	if (it->open_rc != MS_FLEET_OPEN)
		return;
	it->walk_rc = walk(it->maps, p->filter, &it->mappings, &it->err);
	/* An exec mid-walk is followed once, as ms_stale_scan does. */
	if (it->walk_rc == MS_ERR_EXECED) {
		it->walk_rc = ms_maps_reopen(it->maps, &it->err);
		if (it->walk_rc == 0)
			it->walk_rc = walk(it->maps, p->filter, &it->mappings, &it->err);
	}
	if (it->walk_rc != 0)
		close_item(it);
}

/* Under the lock: the fleet counts what walk_one found, and the item is ready. */
static void settle(struct ms_stale_prefetch *p, struct item *it, bool known)
{
	p->fleet->ioctl_known |= known;
	it->kind = ms_fleet_settle(p->fleet, it->open_rc, &it->err);
	if (it->kind == MS_FLEET_OPEN && it->walk_rc != 0) {
		if (it->walk_rc == MS_ERR_NOMEM)
			it->kind = MS_ERR_NOMEM;
		else
			it->named = ms_fleet_note_error(p->fleet, &it->err);
	}
	it->ready = true;
}

/*
 * Under the lock: take the fleet's next index for the caller or the thread;
 * SIZE_MAX when none is left, or when it would be more than 32 ahead of the
 * caller (its slot is not taken yet).
 */
static size_t take_index(struct ms_stale_prefetch *p, bool *known)
{
	struct ms_fleet *f = p->fleet;

	if (f->next == f->count || f->next - p->tail == QUEUE)
		return SIZE_MAX;
	*known = f->ioctl_known;
	return f->next++;
}

/* Walk index i (taken with take_index) and settle it; called without the lock. */
static void walk_index(struct ms_stale_prefetch *p, size_t i, bool known)
{
	struct item *it = &p->items[i % QUEUE];

	walk_one(p, it, i, &known);
	pthread_mutex_lock(&p->lock);
	settle(p, it, known);
	if (p->caller_waits && i == p->tail)
		pthread_cond_signal(&p->settled);
	pthread_mutex_unlock(&p->lock);
}

static void *prefetch_main(void *arg)
{
	struct ms_stale_prefetch *p = arg;
	struct ms_fleet *f = p->fleet;

	for (;;) {
		size_t i = SIZE_MAX;
		bool known = false;

		pthread_mutex_lock(&p->lock);
		while (!p->stop && (i = take_index(p, &known)) == SIZE_MAX && f->next < f->count) {
			p->thread_waits = true;
			pthread_cond_wait(&p->freed, &p->lock);
		}
		p->thread_waits = false;
		pthread_mutex_unlock(&p->lock);
		if (i == SIZE_MAX)
			return NULL;
		walk_index(p, i, known);
	}
}

static void destroy(struct ms_stale_prefetch *p)
{
	for (size_t i = 0; i < QUEUE; i++)
		ms_maplist_free(&p->items[i].mappings);
	ms_cpu_split_end(&p->cpus);
	pthread_cond_destroy(&p->freed);
	pthread_cond_destroy(&p->settled);
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
	pthread_cond_init(&p->settled, NULL);
	pthread_cond_init(&p->freed, NULL);
	if (ms_cpu_helper_start(&p->thread, &cpus, prefetch_main, p) != 0) {
		destroy(p);
		return NULL;
	}
	return p;
}

/*
 * Under the lock, the item at tail once it is ready.  While the thread is
 * still on it, the caller walks the next index nobody has taken rather
 * than wait; it waits only when there is none.
 */
static struct item *ready_at_tail(struct ms_stale_prefetch *p)
{
	struct item *it = &p->items[p->tail % QUEUE];

	while (!it->ready) {
		bool known;
		size_t i = take_index(p, &known);

		if (i == SIZE_MAX) {
			p->caller_waits = true;
			pthread_cond_wait(&p->settled, &p->lock);
			p->caller_waits = false;
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		walk_index(p, i, known);
		p->walked_here++;
		pthread_mutex_lock(&p->lock);
	}
	return it;
}

int ms_stale_prefetch_next(struct ms_stale_prefetch *p, struct ms_proc **proc, struct ms_maps **maps,
			   struct ms_maplist *mappings, int *walk_rc, bool *named, struct ms_error *err)
{
	for (;;) {
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
		if (p->tail == p->fleet->count) {
			pthread_mutex_unlock(&p->lock);
			p->ended = true;
			return MS_FLEET_DONE;
		}
		it = ready_at_tail(p);
		pthread_mutex_unlock(&p->lock);

		/* A ready item is the caller's until tail moves past it. */
		kind = it->kind;
		*proc = it->proc;
		*maps = it->maps;
		*walk_rc = it->walk_rc;
		*named = it->named;
		*err = it->err;
		it->proc = NULL;
		it->maps = NULL;
		/* The lists trade places: the walkers refill the caller's old buffer. */
		ms_maplist_clear(&mine);
		*mappings = it->mappings;
		it->mappings = mine;

		pthread_mutex_lock(&p->lock);
		/* Not ready again until a walker settles index tail + 32 here. */
		it->ready = false;
		p->tail++;
		if (p->thread_waits && p->fleet->next - p->tail <= QUEUE - BATCH)
			pthread_cond_signal(&p->freed);
		pthread_mutex_unlock(&p->lock);
		if (kind == MS_ERR_NOMEM)
			p->ended = true;
		if (kind != MS_FLEET_SKIP)
			return kind;
	}
}

size_t ms_stale_prefetch_walked_here(const struct ms_stale_prefetch *p)
{
	return p ? p->walked_here : 0;
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
	/* Walked and never taken: every index taken is settled by now. */
	for (size_t i = p->tail; i < p->fleet->next; i++)
		close_item(&p->items[i % QUEUE]);
	destroy(p);
}
