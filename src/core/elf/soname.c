#include "config.h"

#include <string.h>

#include "elf/soname.h"

int ms_soname_of(struct ms_elfdyn *e, char out[MS_SONAME_MAX + 1], struct ms_error *err)
{
	int rc;

	out[0] = '\0';
	if (!e->have_soname)
		return ms_error_set(err, MS_END, 0, "no SONAME");
	rc = ms_elfdyn_string(e, e->soname, "SONAME", out, MS_SONAME_MAX, err);
	if (rc == 0 && !out[0])
		return ms_error_set(err, MS_END, 0, "empty SONAME");
	return rc;
}

int ms_soname_read_fd(int fd, char out[MS_SONAME_MAX + 1], struct ms_error *err)
{
	return ms_elfdyn_read_fd_with(fd, ms_soname_of, out, err);
}

int ms_soname_parse(const unsigned char *buf, size_t size, char out[MS_SONAME_MAX + 1],
		    struct ms_error *err)
{
	return ms_elfdyn_parse_with(buf, size, ms_soname_of, out, err);
}

size_t ms_version_from_name(const char *name, size_t len, char out[MS_VERSION_MAX + 1])
{
	static const char deleted[] = " (deleted)";
	const char *base = name, *v = NULL;
	size_t n = 0;

	out[0] = '\0';
	if (!name)
		return 0;
	if (len >= sizeof(deleted) - 1 && !memcmp(name + len - (sizeof(deleted) - 1), deleted,
						   sizeof(deleted) - 1))
		len -= sizeof(deleted) - 1;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '/')
			base = name + i + 1;
	for (const char *p = base; p + 4 <= name + len; p++)
		if (!memcmp(p, ".so.", 4))
			v = p + 4;
	if (!v || v >= name + len || *v < '0' || *v > '9')
		return 0;
	for (const char *p = v; p < name + len; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			return 0;
	n = (size_t)(name + len - v);
	if (n > MS_VERSION_MAX || v[n - 1] == '.')
		return 0;
	memcpy(out, v, n);
	out[n] = '\0';
	return n;
}
