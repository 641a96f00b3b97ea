#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/buildid.h"
#include "elf/lookup_buildid.h"

void ms_lookup_build_id(const struct ms_lookup_root *root, const char *path, size_t len,
			struct ms_lookup *l)
{
	struct ms_error err = { 0 };
	const char *why = NULL;
	int fd, rc;

	if (l->bid_state != MS_LOOKUP_BID_UNREAD)
		return;
	l->bid_state = MS_LOOKUP_BID_FAILED;
	if (l->err || !S_ISREG(l->mode) || memchr(path, '\0', len))
		return;
	fd = ms_lookup_open_read(root, path, len, l, &why);
	if (fd < 0) {
		l->bid_state = MS_LOOKUP_BID_REFUSED;
		snprintf(l->bid_why, sizeof(l->bid_why), "%s", why);
		return;
	}
	rc = ms_buildid_read_fd(fd, l->bid, &l->bid_len, &err);
	close(fd);
	l->bid_state = rc == 0 ? MS_LOOKUP_BID_HAVE :
		       rc == MS_END ? MS_LOOKUP_BID_NONE :
		       rc == MS_ERR_LIMIT ? MS_LOOKUP_BID_REFUSED : MS_LOOKUP_BID_FAILED;
	if (rc != 0)
		snprintf(l->bid_why, sizeof(l->bid_why), "%.*s", (int)sizeof(l->bid_why) - 1, err.msg);
}
