#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proc/fstype.h"
#include "base/grow.h"

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

/* A mount by its ID (mountinfo's first field; unique system-wide, fs/namespace.c mnt_alloc_id). */
struct mnt_entry {
	uint64_t id;
	const char *why;
	char *point;       /* unescaped, from the walk root's own table; NULL: not known */
	size_t point_len;
};

/* A mount point of a refused type, unescaped, as the reader's root sees it. */
struct point {
	char *path;
	size_t len;
	const char *why;
};

struct ms_fstypes {
	struct dev_entry *items;
	size_t count;
	size_t capacity;
	struct mnt_entry *mnts;
	size_t mnt_count;
	size_t mnt_capacity;
	struct point *points;
	size_t point_count;
	size_t point_capacity;
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

static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/*
 * mountinfo escapes space, tab, newline and backslash in paths as \ooo
 * (fs/proc_namespace.c, show_mountinfo: seq_path_root(..., " \t\n\\")).
 * Anything else stays as it is, so a malformed escape is kept verbatim.
 */
static char *unescape(const char *s, size_t len, size_t *out_len)
{
	char *d = malloc(len + 1);
	size_t n = 0;

	if (!d)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			d[n++] = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
			continue;
		}
		d[n++] = s[i];
	}
	d[n] = '\0';
	*out_len = n;
	return d;
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
 * only separate fields.  points: keep refused mount points (only from the
 * mountinfo of the root a walk starts at: its paths are relative to it).
 */
static int parse_line(struct ms_fstypes *t, const char *s, const char *end, bool points)
{
	const char *f, *id = NULL, *dev = NULL, *mnt = NULL, *type = NULL;
	size_t len, id_len = 0, dev_len = 0, mnt_len = 0, type_len = 0;
	struct dev_entry *e;
	uint64_t mnt_id;
	const char *why;
	int n = 0;

	while ((f = field(&s, end, &len))) {
		if (++n == 1) {
			id = f;
			id_len = len;
		} else if (n == 3) {
			dev = f;
			dev_len = len;
		} else if (n == 5) {
			mnt = f;
			mnt_len = len;
		} else if (n > 6 && len == 1 && *f == '-') {
			type = field(&s, end, &type_len);
			break;
		}
	}
	if (!dev || !type)
		return 0;
	why = why_for_type(type, type_len);
	if (parse_u64(id, id_len, &mnt_id)) {
		if (ms_grow((void **)&t->mnts, &t->mnt_capacity, t->mnt_count, sizeof(*t->mnts), 64) < 0)
			return MS_ERR_NOMEM;
		t->mnts[t->mnt_count] = (struct mnt_entry){ .id = mnt_id, .why = why };
		if (points && mnt_len > 0 && mnt[0] == '/' &&
		    !(t->mnts[t->mnt_count].point = unescape(mnt, mnt_len, &t->mnts[t->mnt_count].point_len)))
			return MS_ERR_NOMEM;
		t->mnt_count++;
	}
	if (points && why && mnt_len > 0 && mnt[0] == '/') {
		struct point *p;

		if (ms_grow((void **)&t->points, &t->point_capacity, t->point_count, sizeof(*t->points), 16) < 0)
			return MS_ERR_NOMEM;
		p = &t->points[t->point_count];
		if (!(p->path = unescape(mnt, mnt_len, &p->len)))
			return MS_ERR_NOMEM;
		p->why = why;
		t->point_count++;
	}
	if (ms_grow((void **)&t->items, &t->capacity, t->count, sizeof(*t->items), 64) < 0)
		return MS_ERR_NOMEM;
	e = &t->items[t->count];
	if (!parse_dev(dev, dev_len, &e->major, &e->minor))
		return 0;
	e->why = why;
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

static int by_id(const void *a, const void *b)
{
	const struct mnt_entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	/* Listed twice (the process's table, then ours): the one with its mount point first. */
	return (x->point == NULL) - (y->point == NULL);
}

/* One entry per mount ID (the first after sorting), so a search finds the one. */
static void unique_ids(struct ms_fstypes *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->mnt_count; i++) {
		if (n > 0 && t->mnts[n - 1].id == t->mnts[i].id) {
			if (t->mnts[i].why)
				t->mnts[n - 1].why = t->mnts[i].why;
			free(t->mnts[i].point);
			continue;
		}
		t->mnts[n++] = t->mnts[i];
	}
	t->mnt_count = n;
}

static int by_id_only(const void *a, const void *b)
{
	const struct mnt_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_path(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->path, y->path, x->len);
}

static int add_text(struct ms_fstypes *t, const char *text, size_t len, bool points)
{
	const char *s = text, *end = text + len;
	size_t lines = 0;

	while (s < end && lines++ < MS_FSTYPES_LINES_MAX) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (parse_line(t, s, nl ? nl : end, points) < 0)
			return MS_ERR_NOMEM;
		s = nl ? nl + 1 : end;
	}
	return 0;
}

static int add_file(struct ms_fstypes *t, int dirfd, const char *name, bool points,
		    struct ms_error *err)
{
	char *buf;
	size_t len;
	int rc = ms_read_file_at(dirfd, name, MS_FSTYPES_READ_MAX, &buf, &len, NULL);

	if (rc < 0)
		return ms_error_set(err, rc == -ENOMEM ? MS_ERR_NOMEM : MS_ERR_IO, -rc,
				    "cannot read mountinfo: %s", strerror(-rc));
	rc = add_text(t, buf, len, points);
	free(buf);
	return rc < 0 ? ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory") : 0;
}

static struct ms_fstypes *finish(struct ms_fstypes *t)
{
	if (t->count)
		qsort(t->items, t->count, sizeof(*t->items), by_dev);
	if (t->mnt_count)
		qsort(t->mnts, t->mnt_count, sizeof(*t->mnts), by_id);
	unique_ids(t);
	if (t->point_count)
		qsort(t->points, t->point_count, sizeof(*t->points), by_path);
	return t;
}

int ms_fstypes_parse(const char *text, size_t len, struct ms_fstypes **out, struct ms_error *err)
{
	struct ms_fstypes *t = calloc(1, sizeof(*t));

	if (!t || add_text(t, text, len, true) < 0) {
		ms_fstypes_free(t);
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	}
	*out = finish(t);
	return 0;
}

/* dirfd's mountinfo with its mount points, then ours for the rest (or ours alone). */
static int load_two(int dirfd, struct ms_fstypes **out, struct ms_error *err)
{
	struct ms_fstypes *t = calloc(1, sizeof(*t));
	int rc = 0;

	if (!t)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	if (dirfd >= 0)
		rc = add_file(t, dirfd, "mountinfo", true, err);
	/*
	 * Device numbers name superblocks system-wide, so our own table fills
	 * in devices the process cannot see (an overlayfs's lower layer, whose
	 * files are what its mappings really hold: ovl_mmap).  Mount IDs are
	 * system-wide too; a chroot's table leaves out the mount its root sits
	 * in (show_mountinfo skips what seq_path_root cannot print).  Mount
	 * points come only from the first table: ours are relative to our root.
	 */
	if (rc == 0)
		rc = add_file(t, AT_FDCWD, "/proc/self/mountinfo", dirfd < 0, err);
	if (rc < 0) {
		ms_fstypes_free(t);
		return rc;
	}
	*out = finish(t);
	return 0;
}

int ms_fstypes_load(const struct ms_proc *proc, struct ms_fstypes **out, struct ms_error *err)
{
	return load_two(ms_proc_dirfd(proc), out, err);
}

int ms_fstypes_load_root(int procdirfd, struct ms_fstypes **out, struct ms_error *err)
{
	return load_two(procdirfd, out, err);
}

size_t ms_fstypes_entries(const struct ms_fstypes *t)
{
	return t ? t->count + t->mnt_count + t->point_count : 0;
}

void ms_fstypes_free(struct ms_fstypes *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->point_count; i++)
		free(t->points[i].path);
	for (size_t i = 0; i < t->mnt_count; i++)
		free(t->mnts[i].point);
	free(t->points);
	free(t->mnts);
	free(t->items);
	free(t);
}

static const struct mnt_entry *find_mount(const struct ms_fstypes *t, uint64_t mnt_id)
{
	struct mnt_entry key = { .id = mnt_id };

	return t && t->mnt_count ? bsearch(&key, t->mnts, t->mnt_count, sizeof(*t->mnts), by_id_only) : NULL;
}

const char *ms_fstypes_refuse_mount(const struct ms_fstypes *t, uint64_t mnt_id, bool *known)
{
	const struct mnt_entry *e = find_mount(t, mnt_id);

	*known = e != NULL;
	return e ? e->why : NULL;
}

bool ms_fstypes_mount_is_at(const struct ms_fstypes *t, uint64_t mnt_id, const char *path, size_t len)
{
	const struct mnt_entry *e = find_mount(t, mnt_id);

	return e && (!e->point || (e->point_len == len && !memcmp(e->point, path, len)));
}

const char *ms_fstypes_refuse_point(const struct ms_fstypes *t, const char *path, size_t len)
{
	struct point key = { .path = (char *)path, .len = len };
	const struct point *p;

	if (!t || !t->point_count)
		return NULL;
	p = bsearch(&key, t->points, t->point_count, sizeof(*t->points), by_path);
	return p ? p->why : NULL;
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
