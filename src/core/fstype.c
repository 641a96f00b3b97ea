#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fstype.h"
#include "grow.h"

struct served {
	const char *type;   /* as mountinfo names it */
	unsigned long magic; /* f_type from statfs (include/uapi/linux/magic.h, fs sources); 0: none */
	const char *why;
};

static const struct served served[] = {
	{ "fuse", 0x65735546, "file on a fuse file system" },    /* FUSE_SUPER_MAGIC, also virtiofs */
	{ "fuseblk", 0, "file on a fuseblk file system" },       /* same magic as fuse */
	{ "virtiofs", 0, "file on a virtiofs file system" },
	{ "nfs", 0x6969, "file on an nfs file system" },         /* NFS_SUPER_MAGIC */
	{ "nfs4", 0, "file on an nfs file system" },
	{ "cifs", 0xff534d42, "file on a cifs file system" },    /* CIFS_SUPER_MAGIC */
	{ "smb3", 0xfe534d42, "file on an smb3 file system" },   /* SMB2_SUPER_MAGIC */
	{ "smbfs", 0x517b, "file on an smbfs file system" },     /* SMB_SUPER_MAGIC */
	{ "9p", 0x01021997, "file on a 9p file system" },        /* V9FS_MAGIC */
	{ "ceph", 0x00c36400, "file on a ceph file system" },    /* CEPH_SUPER_MAGIC */
	{ "afs", 0x5346414f, "file on an afs file system" },     /* AFS_SUPER_MAGIC */
	{ "coda", 0x73757245, "file on a coda file system" },    /* CODA_SUPER_MAGIC */
	{ "lustre", 0x0bd00bd0, "file on a lustre file system" },
	{ "orangefs", 0x20030528, "file on an orangefs file system" },
	{ "ncpfs", 0x564c, "file on an ncpfs file system" },      /* NCP_SUPER_MAGIC */
	{ "vboxsf", 0x786f4256, "file on a vboxsf file system" },
};

static const char unlisted[] = "file on a file system missing from the process's mount table";
static const char no_table[] = "the process's mount table could not be read";

struct dev_entry {
	uint32_t major;
	uint32_t minor;
	const char *why; /* NULL: read by the kernel itself */
};

struct ms_fstypes {
	struct dev_entry *items;
	size_t count;
	size_t capacity;
};

static const char *why_for_type(const char *type, size_t len)
{
	/* fuse.SUBTYPE: the subtype is the mounting user's choice. */
	if (len > 5 && !memcmp(type, "fuse.", 5))
		return served[0].why;
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++)
		if (strlen(served[i].type) == len && !memcmp(served[i].type, type, len))
			return served[i].why;
	return NULL;
}

const char *ms_fstypes_refuse_magic(unsigned long f_type)
{
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++)
		if (served[i].magic && served[i].magic == (f_type & 0xffffffffu))
			return served[i].why;
	return NULL;
}

/* The next space-separated field of [*p, end), or NULL. */
static const char *field(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *e;

	while (s < end && *s == ' ')
		s++;
	if (s >= end)
		return NULL;
	e = memchr(s, ' ', (size_t)(end - s));
	if (!e)
		e = end;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

static bool parse_dev(const char *s, size_t len, uint32_t *major, uint32_t *minor)
{
	uint64_t v[2] = { 0, 0 };
	size_t i = 0;
	int part = 0;

	for (; i < len; i++) {
		if (s[i] == ':' && part == 0 && i > 0) {
			part = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || v[part] > 0xffffffffu / 10)
			return false;
		v[part] = v[part] * 10 + (uint64_t)(s[i] - '0');
	}
	if (part != 1 || s[len - 1] == ':' || v[0] > 0xffffffffu || v[1] > 0xffffffffu)
		return false;
	*major = (uint32_t)v[0];
	*minor = (uint32_t)v[1];
	return true;
}

/*
 * One mountinfo line (Documentation/filesystems/proc.rst, 3.5): ID, parent
 * ID, major:minor, root, mount point, options, optional fields ended by a
 * lone "-", then the file system type.  Names are octal-escaped, so spaces
 * only separate fields.
 */
static int parse_line(struct ms_fstypes *t, const char *s, const char *end)
{
	const char *f, *dev = NULL, *type = NULL;
	size_t len, dev_len = 0, type_len = 0;
	struct dev_entry *e;
	int n = 0;

	while ((f = field(&s, end, &len))) {
		if (++n == 3) {
			dev = f;
			dev_len = len;
		} else if (n > 6 && len == 1 && *f == '-') {
			type = field(&s, end, &type_len);
			break;
		}
	}
	if (!dev || !type)
		return 0;
	if (ms_grow((void **)&t->items, &t->capacity, t->count, sizeof(*t->items), 64) < 0)
		return MS_ERR_NOMEM;
	e = &t->items[t->count];
	if (!parse_dev(dev, dev_len, &e->major, &e->minor))
		return 0;
	e->why = why_for_type(type, type_len);
	t->count++;
	return 0;
}

static int by_dev(const void *a, const void *b)
{
	const struct dev_entry *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	/* A device mounted twice: the refusing entry first, so it wins. */
	return (x->why == NULL) - (y->why == NULL);
}

static int add_text(struct ms_fstypes *t, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	size_t lines = 0;

	while (s < end && lines++ < MS_FSTYPES_LINES_MAX) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (parse_line(t, s, nl ? nl : end) < 0)
			return MS_ERR_NOMEM;
		s = nl ? nl + 1 : end;
	}
	return 0;
}

static int add_file(struct ms_fstypes *t, int dirfd, const char *name, struct ms_error *err)
{
	char *buf;
	size_t len;
	int rc = ms_read_file_at(dirfd, name, MS_FSTYPES_READ_MAX, &buf, &len, NULL);

	if (rc < 0)
		return ms_error_set(err, rc == -ENOMEM ? MS_ERR_NOMEM : MS_ERR_IO, -rc,
				    "cannot read mountinfo: %s", strerror(-rc));
	rc = add_text(t, buf, len);
	free(buf);
	return rc < 0 ? ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory") : 0;
}

static struct ms_fstypes *finish(struct ms_fstypes *t)
{
	if (t->count)
		qsort(t->items, t->count, sizeof(*t->items), by_dev);
	return t;
}

int ms_fstypes_parse(const char *text, size_t len, struct ms_fstypes **out, struct ms_error *err)
{
	struct ms_fstypes *t = calloc(1, sizeof(*t));

	if (!t || add_text(t, text, len) < 0) {
		ms_fstypes_free(t);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	*out = finish(t);
	return 0;
}

int ms_fstypes_load(const struct ms_proc *proc, struct ms_fstypes **out, struct ms_error *err)
{
	struct ms_fstypes *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	rc = add_file(t, ms_proc_dirfd(proc), "mountinfo", err);
	/*
	 * Device numbers name superblocks system-wide, so our own table fills
	 * in devices the process cannot see (an overlayfs's lower layer, whose
	 * files are what its mappings really hold: ovl_mmap).
	 */
	if (rc == 0)
		rc = add_file(t, AT_FDCWD, "/proc/self/mountinfo", err);
	if (rc < 0) {
		ms_fstypes_free(t);
		return rc;
	}
	*out = finish(t);
	return 0;
}

void ms_fstypes_free(struct ms_fstypes *t)
{
	if (!t)
		return;
	free(t->items);
	free(t);
}

const char *ms_fstypes_refuse(const struct ms_fstypes *t, uint32_t major, uint32_t minor)
{
	size_t lo = 0, hi;

	if (!t)
		return no_table;
	hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dev_entry *e = &t->items[mid];

		if (e->major < major || (e->major == major && e->minor < minor))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->count && t->items[lo].major == major && t->items[lo].minor == minor)
		return t->items[lo].why;
	/*
	 * Not listed: in a chroot, mountinfo leaves out every mount the root
	 * cannot reach (fs/proc_namespace.c, show_mountinfo skips what
	 * seq_path_root cannot print), the root file system included.  A file
	 * system with no block device of its own gets an anonymous device,
	 * major 0 (UNNAMED_MAJOR, set_anon_super in fs/super.c), and every
	 * network and FUSE one is such; a real block device's is read by the
	 * kernel (fuseblk aside, which is listed wherever it is reachable).
	 */
	return major != 0 ? NULL : unlisted;
}
