#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "units.h"

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

void ms_format_size(uint64_t bytes, bool in_bytes, char *buf, size_t size)
{
	static const char suffix[] = "KMGTPE";
	uint64_t unit = 1024;
	int exp = 0;

	if (in_bytes || bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 "%s", bytes, in_bytes ? "" : "B");
		return;
	}
	while (exp < 5 && bytes / unit >= 1024) {
		unit *= 1024;
		exp++;
	}
	/* One decimal, dropped when it is zero, as lsblk prints sizes. */
	{
		uint64_t whole = bytes / unit;
		uint64_t tenth = ((bytes % unit) * 10 + unit / 2) / unit;

		if (tenth == 10) {
			whole++;
			tenth = 0;
		}
		if (tenth)
			snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", whole, tenth, suffix[exp]);
		else
			snprintf(buf, size, "%" PRIu64 "%c", whole, suffix[exp]);
	}
}
