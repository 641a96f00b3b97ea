#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

int ms_parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT32_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int ms_parse_addr(const char *s, uint64_t *addr)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || end == s || *end)
		return -1;
	*addr = v;
	return 0;
}

size_t ms_format_hex(uint64_t v, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;

	for (size_t i = n; i-- > 0; v >>= 4)
		buf[i] = digits[v & 0xf];
	return n;
}

size_t ms_format_dec(uint64_t v, char *buf)
{
	char tmp[MS_NUM_MAX];
	size_t n = sizeof(tmp);

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(buf, tmp + n, sizeof(tmp) - n);
	return sizeof(tmp) - n;
}

size_t ms_format_size(uint64_t bytes, bool in_bytes, char *buf, size_t size)
{
	static const char suffix[] = "KMGTPE";
	char tmp[2 * MS_NUM_MAX + 4];
	uint64_t unit;
	size_t n;
	int exp = 0;

	if (size == 0)
		return 0;
	if (in_bytes || bytes < 1024) {
		n = ms_format_dec(bytes, tmp);
		if (!in_bytes)
			tmp[n++] = 'B';
	} else {
		uint64_t whole, tenth;

		unsigned shift = 10;

		/* unit is 1 << shift: shifts, not divisions, which cost a listing most of its size cells. */
		while (exp < 5 && bytes >> shift >= 1024) {
			shift += 10;
			exp++;
		}
		unit = UINT64_C(1) << shift;
		/* One decimal, dropped when it is zero, as lsblk prints sizes. */
		whole = bytes >> shift;
		tenth = (((bytes & (unit - 1)) * 10 + unit / 2) >> shift);
		if (tenth == 10) {
			whole++;
			tenth = 0;
		}
		n = ms_format_dec(whole, tmp);
		if (tenth) {
			tmp[n++] = '.';
			n += ms_format_dec(tenth, tmp + n);
		}
		tmp[n++] = suffix[exp];
	}
	if (n >= size)
		n = size - 1;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return n;
}

const char *ms_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
