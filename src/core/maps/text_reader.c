#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/cpus.h"
#include "maps/text_reader.h"

struct ms_text_reader {
	pthread_t thread;
	pthread_mutex_t ring_lock; /* head, tail, stop, len[], err[] */
	pthread_cond_t filled;     /* head moved */
	pthread_cond_t freed;      /* tail moved, or stop */
	pthread_mutex_t fd_lock;   /* the descriptor */
	int fd;
	off_t off;                 /* the reader's own */
	unsigned head;             /* chunks read (the reader's slot is head % RING) */
	unsigned tail;             /* chunks given back by the caller */
	bool holding;              /* the caller holds slot tail % RING */
	bool ended;                /* the caller took the last chunk */
	int end_err;               /* then: 0 at the end of the text, else the pread's errno */
	bool stop;
	size_t len[MS_TEXT_READER_RING];
	int err[MS_TEXT_READER_RING];   /* the last chunk's: 0 (end of text) or an errno */
	bool last[MS_TEXT_READER_RING]; /* no chunk after this one */
	char *buf;                 /* RING chunks, one block */
	struct ms_cpu_split cpus;  /* the caller on one CPU, the thread on the others */
};

/*
 * Fill one chunk: the kernel's seq_file gives a few kilobytes per pread, so
 * several make a chunk and the caller is woken once for all of them.  The
 * bytes read; fewer than a chunk only at the end of the text (*e 0) or when a
 * pread failed (*e its errno).
 */
static size_t fill(struct ms_text_reader *r, char *dst, int *e)
{
	size_t got = 0;

	while (got < MS_TEXT_READER_CHUNK) {
		ssize_t n;

		pthread_mutex_lock(&r->fd_lock);
		do
			n = pread(r->fd, dst + got, MS_TEXT_READER_CHUNK - got, r->off);
		while (n < 0 && errno == EINTR);
		*e = n < 0 ? errno : 0;
		pthread_mutex_unlock(&r->fd_lock);
		if (n <= 0)
			break;
		got += (size_t)n;
		r->off += n;
	}
	return got;
}

static void *reader_main(void *arg)
{
	struct ms_text_reader *r = arg;

	for (;;) {
		unsigned slot;
		size_t n;
		int e = 0;

		pthread_mutex_lock(&r->ring_lock);
		while (!r->stop && r->head - r->tail == MS_TEXT_READER_RING)
			pthread_cond_wait(&r->freed, &r->ring_lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->ring_lock);
			return NULL;
		}
		slot = r->head % MS_TEXT_READER_RING;
		pthread_mutex_unlock(&r->ring_lock);

		n = fill(r, r->buf + (size_t)slot * MS_TEXT_READER_CHUNK, &e);

		pthread_mutex_lock(&r->ring_lock);
		r->len[slot] = n;
		r->err[slot] = e;
		r->last[slot] = n < MS_TEXT_READER_CHUNK;
		r->head++;
		pthread_cond_signal(&r->filled);
		pthread_mutex_unlock(&r->ring_lock);
		if (n < MS_TEXT_READER_CHUNK)
			return NULL;
	}
}

static void destroy(struct ms_text_reader *r)
{
	ms_cpu_split_end(&r->cpus);
	pthread_cond_destroy(&r->freed);
	pthread_cond_destroy(&r->filled);
	pthread_mutex_destroy(&r->fd_lock);
	pthread_mutex_destroy(&r->ring_lock);
	free(r->buf);
	free(r);
}

struct ms_text_reader *ms_text_reader_start(int fd, off_t off)
{
	struct ms_text_reader *r = calloc(1, sizeof(*r));
	cpu_set_t cpus;
	int rc;

	if (!r)
		return NULL;
	r->buf = malloc((size_t)MS_TEXT_READER_RING * MS_TEXT_READER_CHUNK);
	/* Apart, or not at all (base/cpus.h says why). */
	if (!r->buf || !ms_cpu_split_begin(&r->cpus, &cpus)) {
		free(r->buf);
		free(r);
		return NULL;
	}
	r->fd = fd;
	r->off = off;
	pthread_mutex_init(&r->ring_lock, NULL);
	pthread_mutex_init(&r->fd_lock, NULL);
	pthread_cond_init(&r->filled, NULL);
	pthread_cond_init(&r->freed, NULL);
	/* The thread starts with every signal blocked: they stay the caller's. */
	rc = ms_cpu_helper_start(&r->thread, &cpus, reader_main, r);
	if (rc != 0) {
		destroy(r);
		return NULL;
	}
	return r;
}

/* After the last chunk: 0 at the end of the text, or -1 with the pread's errno. */
static ssize_t end_of_text(const struct ms_text_reader *r)
{
	if (!r->end_err)
		return 0;
	errno = r->end_err;
	return -1;
}

ssize_t ms_text_reader_next(struct ms_text_reader *r, const char **chunk)
{
	unsigned slot;
	size_t n;

	*chunk = NULL;
	if (r->ended && !r->holding)
		return end_of_text(r);
	pthread_mutex_lock(&r->ring_lock);
	if (r->holding) {
		r->tail++;
		r->holding = false;
		pthread_cond_signal(&r->freed);
	}
	if (r->ended) {
		pthread_mutex_unlock(&r->ring_lock);
		return end_of_text(r);
	}
	while (r->head == r->tail)
		pthread_cond_wait(&r->filled, &r->ring_lock);
	slot = r->tail % MS_TEXT_READER_RING;
	n = r->len[slot];
	if (r->last[slot]) {
		r->ended = true;
		r->end_err = r->err[slot];
	}
	r->holding = n > 0;
	pthread_mutex_unlock(&r->ring_lock);
	if (!n)
		return end_of_text(r);
	*chunk = r->buf + (size_t)slot * MS_TEXT_READER_CHUNK;
	return (ssize_t)n;
}

void ms_text_reader_stop(struct ms_text_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->ring_lock);
	r->stop = true;
	pthread_cond_signal(&r->freed);
	pthread_mutex_unlock(&r->ring_lock);
	pthread_join(r->thread, NULL);
	destroy(r);
}

void ms_text_reader_lock_fd(struct ms_text_reader *r)
{
	if (r)
		pthread_mutex_lock(&r->fd_lock);
}

void ms_text_reader_unlock_fd(struct ms_text_reader *r)
{
	if (r)
		pthread_mutex_unlock(&r->fd_lock);
}
