#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/dwload.h"
#include "elf/symbols_child.h"
#include "elf/symbols_dw.h"
#include "untrusted/untrusted_child.h"

#if HAVE_DECL_ERROR_PRINT_PROGNAME
/* <error.h> itself is shadowed by mapscope's error.h on the include path. */
extern void (*error_print_progname)(void);
#endif

#define HEAD 8u /* type and file number, or type and a flag */
#define ADD_PATH_MAX 8192u
#define ANSWER_FIXED 32u

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

enum ms_symmsg_type ms_symmsg_type(const unsigned char *buf, size_t len)
{
	uint32_t t;

	if (len < HEAD)
		return 0;
	t = get32(buf);
	return t >= MS_SYMMSG_ADD && t <= MS_SYMMSG_ANSWERS ? (enum ms_symmsg_type)t : 0;
}

size_t ms_symmsg_put_add(unsigned char *buf, const struct ms_symmsg_add *m)
{
	size_t len = strlen(m->path);

	if (len > ADD_PATH_MAX)
		return 0;
	put32(buf, MS_SYMMSG_ADD);
	put32(buf + 4, m->file);
	put64(buf + 8, m->low);
	put64(buf + 16, m->high);
	put32(buf + 24, m->trusted);
	put32(buf + 28, (uint32_t)len);
	memcpy(buf + 32, m->path, len);
	return 32 + len;
}

int ms_symmsg_get_add(unsigned char *buf, size_t len, struct ms_symmsg_add *m)
{
	uint32_t plen;

	if (len < 32 || ms_symmsg_type(buf, len) != MS_SYMMSG_ADD)
		return -1;
	plen = get32(buf + 28);
	if (plen > ADD_PATH_MAX || plen != len - 32 || memchr(buf + 32, '\0', plen))
		return -1;
	m->file = get32(buf + 4);
	m->low = get64(buf + 8);
	m->high = get64(buf + 16);
	m->trusted = get32(buf + 24) == 1;
	if (get32(buf + 24) > 1 || m->low >= m->high)
		return -1;
	buf[32 + plen] = '\0';
	m->path = (const char *)buf + 32;
	return 0;
}

size_t ms_symmsg_put_many(unsigned char *buf, const struct ms_symmsg_lookup *q, size_t count)
{
	if (count == 0 || count > MS_SYMMSG_MANY_MAX)
		return 0;
	put32(buf, MS_SYMMSG_LOOKUP);
	put32(buf + 4, (uint32_t)count);
	put32(buf + 8, q[0].what);
	put32(buf + 12, 0);
	for (size_t i = 0; i < count; i++) {
		put32(buf + 16 + 16 * i, q[i].file);
		put32(buf + 20 + 16 * i, 0);
		put64(buf + 24 + 16 * i, q[i].addr);
	}
	return 16 + 16 * count;
}

int ms_symmsg_get_many(const unsigned char *buf, size_t len, struct ms_symmsg_lookup *q, size_t *count)
{
	uint32_t n, what;

	if (len < 16 || ms_symmsg_type(buf, len) != MS_SYMMSG_LOOKUP)
		return -1;
	n = get32(buf + 4);
	what = get32(buf + 8);
	if (n == 0 || n > MS_SYMMSG_MANY_MAX || len != 16 + 16 * (size_t)n || get32(buf + 12) ||
	    what & ~(unsigned)(MS_SYMBOLS_NAME | MS_SYMBOLS_SOURCE))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (get32(buf + 20 + 16 * i))
			return -1;
		q[i].file = get32(buf + 16 + 16 * i);
		q[i].addr = get64(buf + 24 + 16 * i);
		q[i].what = what;
	}
	*count = n;
	return 0;
}

size_t ms_symmsg_put_need_debug(unsigned char *buf, const struct ms_symmsg_need_debug *m)
{
	size_t link = strnlen(m->debuglink, sizeof(m->debuglink) - 1);

	if (m->id_len == 0 || m->id_len > MS_BUILD_ID_MAX)
		return 0;
	put32(buf, MS_SYMMSG_NEED_DEBUG);
	put32(buf + 4, m->file);
	put32(buf + 8, (uint32_t)m->id_len);
	put32(buf + 12, (uint32_t)link);
	memcpy(buf + 16, m->id, m->id_len);
	memcpy(buf + 16 + m->id_len, m->debuglink, link);
	return 16 + m->id_len + link;
}

int ms_symmsg_get_need_debug(const unsigned char *buf, size_t len, struct ms_symmsg_need_debug *m)
{
	uint32_t id_len, link;

	if (len < 16 || ms_symmsg_type(buf, len) != MS_SYMMSG_NEED_DEBUG)
		return -1;
	id_len = get32(buf + 8);
	link = get32(buf + 12);
	if (id_len == 0 || id_len > MS_BUILD_ID_MAX || link >= sizeof(m->debuglink) ||
	    len != 16 + (size_t)id_len + link || memchr(buf + 16 + id_len, '\0', link))
		return -1;
	m->file = get32(buf + 4);
	m->id_len = id_len;
	memcpy(m->id, buf + 16, id_len);
	memcpy(m->debuglink, buf + 16 + id_len, link);
	m->debuglink[link] = '\0';
	return 0;
}

size_t ms_symmsg_put_debug(unsigned char *buf, bool found)
{
	put32(buf, MS_SYMMSG_DEBUG);
	put32(buf + 4, found);
	return HEAD;
}

int ms_symmsg_get_debug(const unsigned char *buf, size_t len, bool *found)
{
	if (len != HEAD || ms_symmsg_type(buf, len) != MS_SYMMSG_DEBUG || get32(buf + 4) > 1)
		return -1;
	*found = get32(buf + 4) == 1;
	return 0;
}

/* Answer strings, in this order: name, file, comp_dir, why. */
#define ANSWER_STRINGS 4

size_t ms_symmsg_put_answer(unsigned char *buf, const struct ms_symbol *s)
{
	const char *str[ANSWER_STRINGS] = { s->name, s->file, s->comp_dir, s->why };
	size_t at = ANSWER_FIXED;
	uint32_t present = 0;

	put32(buf, MS_SYMMSG_ANSWER);
	put32(buf + 8, (uint32_t)s->line);
	put32(buf + 12, 0);
	put64(buf + 16, s->name_off);
	for (int i = 0; i < ANSWER_STRINGS; i++) {
		size_t n = str[i] ? strnlen(str[i], MS_SYMMSG_STR_MAX) : 0;

		if (str[i])
			present |= 1u << i;
		buf[24 + 2 * i] = (unsigned char)(n & 0xff);
		buf[25 + 2 * i] = (unsigned char)(n >> 8);
		memcpy(buf + at, str[i] ? str[i] : "", n);
		at += n;
	}
	put32(buf + 4, present);
	return at;
}

int ms_symmsg_get_answer(const unsigned char *buf, size_t len, struct ms_symbol *out, char *store,
			 size_t store_len)
{
	const char **str[ANSWER_STRINGS] = { &out->name, &out->file, &out->comp_dir, &out->why };
	uint32_t present;
	size_t at = ANSWER_FIXED, used = 0;

	if (len < ANSWER_FIXED || ms_symmsg_type(buf, len) != MS_SYMMSG_ANSWER ||
	    store_len < ANSWER_STRINGS * (MS_SYMMSG_STR_MAX + 1))
		return -1;
	present = get32(buf + 4);
	if (present >> ANSWER_STRINGS)
		return -1;
	out->line = (int)get32(buf + 8);
	out->name_off = get64(buf + 16);
	for (int i = 0; i < ANSWER_STRINGS; i++) {
		size_t n = (size_t)buf[24 + 2 * i] | (size_t)buf[25 + 2 * i] << 8;

		*str[i] = NULL;
		if (n > MS_SYMMSG_STR_MAX || n > len - at || memchr(buf + at, '\0', n) ||
		    (n && !(present & 1u << i)))
			return -1;
		if (present & 1u << i) {
			memcpy(store + used, buf + at, n);
			store[used + n] = '\0';
			*str[i] = store + used;
			used += n + 1;
		}
		at += n;
	}
	if (at != len || (out->line < 0) || (out->line && !out->file))
		return -1;
	return 0;
}

void ms_symmsg_answers_begin(unsigned char *buf, size_t *len)
{
	put32(buf, MS_SYMMSG_ANSWERS);
	put32(buf + 4, 0);
	*len = HEAD;
}

size_t ms_symmsg_answers_count(const unsigned char *buf)
{
	return get32(buf + 4);
}

bool ms_symmsg_answers_add(unsigned char *buf, size_t *len, const struct ms_symbol *s)
{
	/* One answer is at most ANSWER_FIXED + 4 strings: always fits an empty frame. */
	unsigned char one[ANSWER_FIXED + 4 * MS_SYMMSG_STR_MAX];
	size_t n = ms_symmsg_put_answer(one, s);

	if (*len + 4 + n > MS_CHILD_FRAME_MAX)
		return false;
	put32(buf + *len, (uint32_t)n);
	memcpy(buf + *len + 4, one, n);
	*len += 4 + n;
	put32(buf + 4, get32(buf + 4) + 1);
	return true;
}

int ms_symmsg_answers_next(const unsigned char *buf, size_t len, size_t *off, struct ms_symbol *out,
			   char *store, size_t store_len)
{
	uint32_t n;

	if (len < HEAD || ms_symmsg_type(buf, len) != MS_SYMMSG_ANSWERS || get32(buf + 4) > MS_SYMMSG_MANY_MAX)
		return -1;
	if (*off == 0)
		*off = HEAD;
	if (*off == len)
		return 0;
	if (len - *off < 4)
		return -1;
	n = get32(buf + *off);
	if (n > len - *off - 4 || ms_symmsg_get_answer(buf + *off + 4, n, out, store, store_len) < 0)
		return -1;
	*off += 4 + n;
	return 1;
}

/* ---- the child ------------------------------------------------------------- */

struct child_state {
	int sock;
	struct ms_dw *dw;
	unsigned char *frame;   /* requests, and the debug-file exchange */
	unsigned char *answers; /* the ANSWERS frame being packed */
};

/* The parent chooses and opens debug files: ask it, and wait for the answer. */
static int ask_debug(void *arg, uint32_t file, const unsigned char *id, size_t len,
		     const char *debuglink)
{
	struct child_state *st = arg;
	struct ms_symmsg_need_debug m = { .file = file, .id_len = len };
	size_t n;
	long got;
	bool found;
	int fd;

	memcpy(m.id, id, len);
	if (debuglink && strlen(debuglink) < sizeof(m.debuglink))
		strcpy(m.debuglink, debuglink);
	if (!(n = ms_symmsg_put_need_debug(st->frame, &m)) || ms_child_io_send(st->sock, st->frame, n, -1) < 0)
		_exit(2);
	got = ms_child_io_recv(st->sock, st->frame, MS_CHILD_FRAME_MAX, &fd);
	if (got <= 0 || ms_symmsg_get_debug(st->frame, (size_t)got, &found) < 0 || found != (fd >= 0)) {
		if (fd >= 0)
			close(fd);
		_exit(2);
	}
	return fd;
}

#if HAVE_DECL_ERROR_PRINT_PROGNAME
/*
 * libdw's answer to a failed allocation is error(EXIT_FAILURE, ENOMEM,
 * ...) (__libdw_oom, libdw/libdw_alloc.c), and error() calls this hook
 * first: exit with a status that says so.
 */
static void on_library_error(void)
{
	_exit(MS_CHILD_EXIT_NOMEM);
}
#endif

void ms_symchild_prepare(void *arg)
{
	(void)arg;
	/* libdw reaches debuginfod on its own from there; only the parent fetches. */
	unsetenv("DEBUGINFOD_URLS");
	ms_dw_available();
#if HAVE_DECL_ERROR_PRINT_PROGNAME
	error_print_progname = on_library_error;
#endif
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Each lookup's answer, packed into ANSWERS frames; -1 when the parent is gone. */
static int answer_all(struct child_state *st, const struct ms_symmsg_lookup *q, size_t count)
{
	uint64_t first = 0;
	size_t len;

	ms_symmsg_answers_begin(st->answers, &len);
	for (size_t i = 0; i < count; i++) {
		struct ms_symbol out = { 0 };

		if (ms_dw_lookup(st->dw, q[i].file, q[i].addr, q[i].what, &out) == MS_ERR_NOMEM)
			_exit(MS_CHILD_EXIT_NOMEM);
		if (!ms_symmsg_answers_add(st->answers, &len, &out)) {
			if (ms_child_io_send(st->sock, st->answers, len, -1) < 0)
				return -1;
			ms_symmsg_answers_begin(st->answers, &len);
			ms_symmsg_answers_add(st->answers, &len, &out);
		}
		if (!first)
			first = now_ms();
		if (now_ms() - first >= MS_SYMMSG_FLUSH_MS || i + 1 == count) {
			if (ms_child_io_send(st->sock, st->answers, len, -1) < 0)
				return -1;
			ms_symmsg_answers_begin(st->answers, &len);
			first = 0;
		}
	}
	return 0;
}

int ms_symchild_serve(int sock, void *arg)
{
	struct child_state st = { .sock = sock };
	int status = 0;

	(void)arg;
	if (!(st.frame = malloc(MS_CHILD_FRAME_MAX + 1)) || !(st.answers = malloc(MS_CHILD_FRAME_MAX)) ||
	    ms_dw_new(ask_debug, &st, &st.dw) < 0)
		return MS_CHILD_EXIT_NOMEM;
	for (;;) {
		struct ms_symmsg_lookup q[MS_SYMMSG_MANY_MAX];
		struct ms_symmsg_add a;
		size_t count;
		const char *why;
		int fd;
		long n = ms_child_io_recv(sock, st.frame, MS_CHILD_FRAME_MAX, &fd);

		if (n <= 0) {
			status = n == 0 ? 0 : 2;
			break;
		}
		if (ms_symmsg_get_add(st.frame, (size_t)n, &a) == 0 && fd >= 0) {
			if (ms_dw_add(st.dw, a.file, fd, a.trusted, a.path, a.low, a.high, &why) ==
			    MS_ERR_NOMEM)
				return MS_CHILD_EXIT_NOMEM;
			continue;
		}
		if (fd >= 0)
			close(fd);
		if (ms_symmsg_get_many(st.frame, (size_t)n, q, &count) < 0) {
			status = 2;
			break;
		}
		if (answer_all(&st, q, count) < 0)
			return 2;
	}
	/* The child ends with _exit: nothing to free for anyone. */
	return status;
}
