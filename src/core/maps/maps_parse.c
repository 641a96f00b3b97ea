#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "maps/maps_parse.h"

/* Parse digits in base 16 or 10 up to a stop byte; advance *pos past it. */
static int parse_num(const char *s, size_t len, size_t *pos, int base, char stop,
		     uint64_t *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = *pos, first = i;
	uint64_t v = 0;

	if (base == 16) {
		/* Each hex digit's value plus one; 0 for every other byte (no stop is a digit). */
		static const unsigned char digit1[256] = {
			['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
			['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
			['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
			['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
		};
		unsigned d;

		for (; i < len && (d = digit1[u[i]]) != 0; i++) {
			if (v >> 60)
				return -1;
			v = v << 4 | (d - 1);
		}
		if (i < len && s[i] != stop)
			return -1;
	} else {
		for (; i < len && s[i] != stop; i++) {
			unsigned d = u[i] - (unsigned)'0';

			if (d >= 10 || __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
				return -1;
		}
	}
	if (i == first || (stop != '\0' && i >= len))
		return -1;
	*pos = i < len ? i + 1 : i;
	*out = v;
	return 0;
}

/* show_map_vma escapes only '\n' (seq_file_path with "\n"), as "\012". */
static size_t decode_name(const char *src, size_t len, char *dst, bool *ambiguous)
{
	const char *bs = memchr(src, '\\', len);
	size_t i, o;

	*ambiguous = false;
	/* Most names hold no backslash: one copy. */
	if (!bs) {
		memcpy(dst, src, len);
		return len;
	}
	i = o = (size_t)(bs - src);
	memcpy(dst, src, i);
	while (i < len) {
		if (src[i] == '\\' && len - i >= 4 && !memcmp(src + i, "\\012", 4)) {
			dst[o++] = '\n';
			i += 4;
			*ambiguous = true;
		} else {
			dst[o++] = src[i++];
		}
	}
	return o;
}

int ms_maps_parse_line(const char *s, size_t len, struct ms_mapping *out)
{
	uint64_t start, end, offset, major, minor, inode;
	size_t pos = 0;
	unsigned perms = 0;
	char *name = NULL;
	size_t name_len = 0;
	bool ambiguous = false;

	if (parse_num(s, len, &pos, 16, '-', &start) < 0 ||
	    parse_num(s, len, &pos, 16, ' ', &end) < 0 || end <= start)
		return -1;
	if (len - pos < 5 || s[pos + 4] != ' ')
		return -1;
	if (s[pos] == 'r') perms |= MS_PERM_READ; else if (s[pos] != '-') return -1;
	if (s[pos + 1] == 'w') perms |= MS_PERM_WRITE; else if (s[pos + 1] != '-') return -1;
	if (s[pos + 2] == 'x') perms |= MS_PERM_EXEC; else if (s[pos + 2] != '-') return -1;
	if (s[pos + 3] == 's') perms |= MS_PERM_SHARED; else if (s[pos + 3] != 'p') return -1;
	pos += 5;
	if (parse_num(s, len, &pos, 16, ' ', &offset) < 0 ||
	    parse_num(s, len, &pos, 16, ':', &major) < 0 ||
	    parse_num(s, len, &pos, 16, ' ', &minor) < 0 ||
	    major > UINT32_MAX || minor > UINT32_MAX)
		return -1;
	/* The inode is the last field when there is no name. */
	if (parse_num(s, len, &pos, 10, ' ', &inode) < 0 &&
	    parse_num(s, len, &pos, 10, '\0', &inode) < 0)
		return -1;
	while (pos < len && s[pos] == ' ')
		pos++;
	if (pos < len) {
		name = malloc(len - pos + 1);
		if (!name)
			return MS_ERR_NOMEM;
		name_len = decode_name(s + pos, len - pos, name, &ambiguous);
		name[name_len] = '\0';
	}

	free(out->name);
	out->start = start;
	out->end = end;
	out->perms = perms;
	out->offset = offset;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	out->inode = inode;
	out->name = name;
	out->name_cap = 0;
	out->name_len = name_len;
	out->name_truncated = false;
	out->name_ambiguous = ambiguous;
	out->build_id_len = 0;
	return 0;
}

void ms_text_parser_init(struct ms_text_parser *p, ms_text_emit_fn emit, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->emit = emit;
	p->ctx = ctx;
}

static int parse_and_emit(struct ms_text_parser *p, const char *line, size_t len)
{
	struct ms_mapping m = { 0 };
	int rc;

	p->lines++;
	rc = ms_maps_parse_line(line, len, &m);
	if (rc == MS_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		p->malformed++;
		return 0;
	}
	rc = p->emit(p->ctx, &m);
	ms_mapping_reset(&m);
	return rc;
}

static int append(struct ms_text_parser *p, const char *data, size_t n)
{
	if (p->overlong)
		return 0;
	if (p->len + n > MS_TEXT_LINE_MAX) {
		p->overlong = true;
		return 0;
	}
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		char *line;

		while (cap < p->len + n)
			cap *= 2;
		line = realloc(p->line, cap);
		if (!line)
			return MS_ERR_NOMEM;
		p->line = line;
		p->cap = cap;
	}
	memcpy(p->line + p->len, data, n);
	p->len += n;
	return 0;
}

static int end_line(struct ms_text_parser *p, const char *direct, size_t direct_len)
{
	int rc = 0;

	if (p->overlong) {
		p->lines++;
		p->malformed++;
	} else if (direct) {
		rc = parse_and_emit(p, direct, direct_len);
	} else {
		rc = parse_and_emit(p, p->line, p->len);
	}
	p->len = 0;
	p->overlong = false;
	return rc;
}

int ms_text_parser_feed(struct ms_text_parser *p, const char *data, size_t n)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		int rc;

		if (!nl)
			return append(p, data, chunk);
		if (p->len == 0 && !p->overlong) {
			/* The common case: a whole line inside the chunk, no copy. */
			rc = chunk > MS_TEXT_LINE_MAX ? (p->overlong = true, end_line(p, NULL, 0))
						      : end_line(p, data, chunk);
		} else {
			rc = append(p, data, chunk);
			if (rc == 0)
				rc = end_line(p, NULL, 0);
		}
		if (rc < 0)
			return rc;
		data += chunk + 1;
		n -= chunk + 1;
	}
	return 0;
}

int ms_text_parser_finish(struct ms_text_parser *p)
{
	if (p->len == 0 && !p->overlong)
		return 0;
	return end_line(p, NULL, 0);
}

void ms_text_parser_free(struct ms_text_parser *p)
{
	free(p->line);
	p->line = NULL;
	p->len = p->cap = 0;
}
