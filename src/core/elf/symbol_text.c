#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "elf/symbol_text.h"

/* The decimal or hex number after a name: ":4294967295" or "+0x" and 16 digits. */
#define SUFFIX_MAX 24

static size_t escaped(const char *raw, unsigned flags, char *buf, size_t size)
{
	return ms_escape(raw, strlen(raw), buf, size, flags);
}

/* The callers kept SUFFIX_MAX bytes free after at. */
static size_t with_suffix(char *buf, size_t at, bool hex, uint64_t n)
{
	int w = hex ? snprintf(buf + at, SUFFIX_MAX, "+0x%" PRIx64, n) :
		      snprintf(buf + at, SUFFIX_MAX, ":%" PRIu64, n);

	return w < 0 ? at : at + (size_t)w;
}

size_t ms_symbol_text_name(const struct ms_symbol *s, unsigned flags, char *buf, size_t size)
{
	size_t at;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!s->name || size <= SUFFIX_MAX)
		return 0;
	at = escaped(s->name, flags, buf, size - SUFFIX_MAX);
	return with_suffix(buf, at, true, s->name_off);
}

size_t ms_symbol_text_source(const struct ms_symbol *s, unsigned flags, char *buf, size_t size)
{
	size_t at = 0, room, file_need, dir_room;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!s->file || size <= SUFFIX_MAX + 4)
		return 0;
	/* The directory yields to the file name when both do not fit. */
	room = size - SUFFIX_MAX - 1;
	file_need = ms_escape_bound(strlen(s->file));
	dir_room = room > file_need ? room - file_need : 0;
	if (dir_room < room / 2)
		dir_room = room / 2;
	if (s->comp_dir) {
		at = escaped(s->comp_dir, flags, buf, dir_room);
		buf[at++] = '/';
	}
	at += escaped(s->file, flags, buf + at, size - SUFFIX_MAX - at);
	return with_suffix(buf, at, false, (uint64_t)(s->line > 0 ? s->line : 0));
}

size_t ms_symbol_text_bound(const struct ms_symbol *s)
{
	size_t name = s->name ? ms_escape_bound(strlen(s->name)) : 1;
	size_t src = (s->comp_dir ? ms_escape_bound(strlen(s->comp_dir)) : 0) +
		     (s->file ? ms_escape_bound(strlen(s->file)) : 1);

	return (name > src ? name : src) + SUFFIX_MAX + 1;
}
