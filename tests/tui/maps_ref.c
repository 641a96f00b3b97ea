/* maps_ref.c - the maps model test's reference, from /proc/PID/maps text: see maps_ref.h. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "core/maps/maps.h"
#include "maps_ref.h"
#include "tui/maps_model.h"

void refset_clear(struct refset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	s->n = 0;
}

void refset_free(struct refset *s)
{
	refset_clear(s);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void refset_copy(struct refset *dst, const struct refset *src)
{
	refset_clear(dst);
	for (size_t i = 0; i < src->n; i++) {
		if (dst->n == dst->cap) {
			dst->cap = dst->cap ? 2 * dst->cap : 64;
			dst->v = realloc(dst->v, dst->cap * sizeof(*dst->v));
			assert_non_null(dst->v);
		}
		dst->v[dst->n] = src->v[i];
		if (src->v[i].name) {
			dst->v[dst->n].name = malloc(src->v[i].name_len + 1);
			assert_non_null(dst->v[dst->n].name);
			memcpy(dst->v[dst->n].name, src->v[i].name, src->v[i].name_len + 1);
		}
		dst->n++;
	}
}

static unsigned perms_bits(const char *p)
{
	return (p[0] == 'r' ? MS_PERM_READ : 0) | (p[1] == 'w' ? MS_PERM_WRITE : 0) |
	       (p[2] == 'x' ? MS_PERM_EXEC : 0) | (p[3] == 's' ? MS_PERM_SHARED : 0);
}

/* The text escapes only a newline, as \012 (the fixture has one such name). */
static size_t unescape_name(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (!strncmp(r, "\\012", 4)) {
			*w++ = '\n';
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

void refset_read(pid_t pid, bool ioctl, struct refset *out)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	refset_clear(out);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	assert_non_null(f);
	while ((len = getline(&line, &cap, f)) > 0) {
		struct ref m = { 0 };
		unsigned long long s, e, off, ino;
		int at = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		assert_true(sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &s, &e, m.ptext, &off,
				   &m.major, &m.minor, &ino, &at) >= 7);
		m.start = s, m.end = e, m.offset = off, m.inode = ino;
		m.perms = perms_bits(m.ptext);
		m.file = m.major || m.minor || m.inode;
		if (at && line[at]) {
			m.name = strdup(line + at);
			assert_non_null(m.name);
			m.name_len = unescape_name(m.name);
		}
		/* [vsyscall] is in the text only, never from PROCMAP_QUERY. */
		if (ioctl && m.name && !strcmp(m.name, "[vsyscall]")) {
			free(m.name);
			continue;
		}
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 64;
			out->v = realloc(out->v, out->cap * sizeof(*out->v));
			assert_non_null(out->v);
		}
		out->v[out->n++] = m;
	}
	free(line);
	fclose(f);
}

bool ref_kernel_match(const struct ref *m, unsigned filter)
{
	unsigned need = filter & (MS_FILTER_READABLE | MS_FILTER_WRITABLE | MS_FILTER_EXECUTABLE |
				  MS_FILTER_SHARED);

	if ((m->perms & need) != need)
		return false;
	return !(filter & MS_FILTER_FILE_BACKED) || m->file;
}

bool ref_name_match(const struct tui_mapview *vm, const char *name, size_t len)
{
	size_t n = strlen(vm->name_filter);

	return !n || (name && memmem(name, len, vm->name_filter, n));
}

bool ref_same(const struct ref *a, const struct ref *b)
{
	return a->start == b->start && a->end == b->end && a->perms == b->perms &&
	       a->offset == b->offset && a->inode == b->inode && a->major == b->major &&
	       a->minor == b->minor;
}

bool ref_is_mapping(const struct ms_mapping *m, const struct ref *x)
{
	return m->start == x->start && m->end == x->end && m->perms == x->perms &&
	       m->offset == x->offset && m->inode == x->inode && m->dev_major == x->major &&
	       m->dev_minor == x->minor;
}

bool ref_same_name(const struct ms_mapping *m, const struct ref *x)
{
	if (!m->name || !x->name)
		return !m->name == !x->name;
	return m->name_len == x->name_len && !memcmp(m->name, x->name, x->name_len);
}

bool refset_has(const struct refset *s, const struct ref *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (ref_same(&s->v[i], x))
			return true;
	return false;
}

const struct ref *refset_find(const struct refset *s, const struct ms_mapping *m)
{
	for (size_t i = 0; i < s->n; i++)
		if (ref_is_mapping(m, &s->v[i]))
			return &s->v[i];
	return NULL;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

int ref_sort_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct tui_mapview *vm = ctx;
	const struct ref *x = *(const struct ref *const *)pa, *y = *(const struct ref *const *)pb;
	int c = 0;

	switch (vm->sort) {
	case TUI_MSORT_SIZE: c = CMP(x->end - x->start, y->end - y->start); break;
	case TUI_MSORT_PERMS: c = strcmp(x->ptext, y->ptext); break;
	case TUI_MSORT_INODE:
		c = CMP(x->inode, y->inode);
		if (!c)
			c = CMP(((uint64_t)x->major << 32) | x->minor, ((uint64_t)y->major << 32) | y->minor);
		break;
	case TUI_MSORT_NAME:
		if (!x->name || !y->name) {
			c = CMP(x->name != NULL, y->name != NULL);
		} else {
			c = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);
			c = c ? (c > 0) - (c < 0) : CMP(x->name_len, y->name_len);
		}
		break;
	default: break;
	}
	if (!c)
		c = CMP(x->start, y->start);
	return vm->sort_reverse ? -c : c;
}
