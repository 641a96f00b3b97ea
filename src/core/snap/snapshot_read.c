/*
 * Reading a snapshot in bounded memory: the contract is in snapshot.h
 * ("Reading").  jansson builds a tree of everything it parses, about 77
 * times the text for a file of "{}" items, so it is never handed the whole
 * document: a small scanner finds the root's members and the items of its
 * "mappings" array, and jansson decodes one member or one mapping at a time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "snap/snapshot.h"

/* jansson's own nesting limit (JSON_PARSER_MAX_DEPTH). */
#define READ_DEPTH_MAX 2048
/* A mapping: 14 members; its text is at most a 8 KiB name escaped and quoted, and the rest. */
#define READ_ITEM_VALUES_MAX 64
#define READ_ITEM_BYTES_MAX (64u * 1024)
/* The root's other members together (the header: a command line of 128 KiB escaped). */
#define READ_MEMBERS_BYTES_MAX (2u * 1024 * 1024)
#define READ_MEMBERS_MAX 16
#define READ_MEMBER_VALUES_MAX 256

struct scan {
	const char *text;
	size_t len;
	size_t pos;
	const char *what;
	struct ms_error *err;
};

static int nomem(struct ms_error *err)
{
	return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
}

/* "WHAT:LINE:COLUMN: not valid JSON: why" at byte pos, columns as jansson counts them. */
static int syntax(const struct scan *sc, size_t pos, const char *why)
{
	size_t line = 1, col = 0;

	for (size_t i = 0; i < pos && i < sc->len; i++) {
		if (sc->text[i] == '\n') {
			line++;
			col = 0;
		} else {
			col++;
		}
	}
	/* Where, not what: no byte of a file that may not be ours goes in a message. */
	if (pos < sc->len)
		col++;
	return ms_error_set(sc->err, MS_ERR_INVAL, EINVAL, "%s:%zu:%zu: not valid JSON: %s", sc->what,
			    line, col, why);
}

static void skip_ws(struct scan *sc)
{
	while (sc->pos < sc->len && strchr(" \t\r\n", sc->text[sc->pos]) && sc->text[sc->pos])
		sc->pos++;
}

static bool at(struct scan *sc, char c)
{
	skip_ws(sc);
	return sc->pos < sc->len && sc->text[sc->pos] == c;
}

/* Past a string starting at sc->pos (on its quote). */
static int skip_string(struct scan *sc)
{
	for (sc->pos++; sc->pos < sc->len; sc->pos++) {
		if (sc->text[sc->pos] == '\\')
			sc->pos++;
		else if (sc->text[sc->pos] == '"')
			return sc->pos++, 0;
	}
	return syntax(sc, sc->len, "unterminated string");
}

/*
 * Past one value, counting the values in it (keys included).  Only the
 * shape is checked here (strings, nesting); jansson checks the rest when it
 * decodes the value.
 */
static int skip_value(struct scan *sc, size_t *values)
{
	size_t depth = 0;

	*values = 0;
	for (;;) {
		char c;

		skip_ws(sc);
		if (sc->pos >= sc->len)
			return syntax(sc, sc->len, "unexpected end of input");
		c = sc->text[sc->pos];
		(*values)++;
		if (c == '{' || c == '[') {
			if (++depth > READ_DEPTH_MAX)
				return syntax(sc, sc->pos, "maximum parsing depth reached");
			sc->pos++;
			if (at(sc, c == '{' ? '}' : ']')) {
				depth--;
				sc->pos++;
			} else {
				continue;
			}
		} else if (c == '"') {
			int rc = skip_string(sc);

			if (rc < 0)
				return rc;
		} else if (strchr("-0123456789tfn", c)) {
			while (sc->pos < sc->len && sc->text[sc->pos] &&
			       strchr("-+.0123456789eEtruefalsn", sc->text[sc->pos]))
				sc->pos++;
		} else {
			return syntax(sc, sc->pos, "invalid token");
		}
		for (;;) {
			if (depth == 0)
				return 0;
			skip_ws(sc);
			if (sc->pos >= sc->len)
				return syntax(sc, sc->len, "unexpected end of input");
			c = sc->text[sc->pos];
			if (c == '}' || c == ']') {
				depth--;
				sc->pos++;
			} else if (c == ',' || c == ':') {
				sc->pos++;
				break;
			} else {
				return syntax(sc, sc->pos, "',' or ':' or a closing bracket expected");
			}
		}
	}
}

/* jansson on text[start, end): one value, its errors placed in the document. */
static int decode(struct scan *sc, size_t start, size_t end, json_t **out)
{
	json_error_t jerr;
	char why[MS_JSON_WHY_MAX];

	*out = json_loadb(sc->text + start, end - start, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (*out)
		return 0;
	return syntax(sc, start + (size_t)(jerr.position > 0 ? jerr.position - 1 : 0),
		      ms_json_why(&jerr, why));
}

/* The root's members: all but "mappings" into *root, whose extent is noted. */
struct members {
	json_t *root;
	size_t maps_start, maps_end; /* maps_end 0: no "mappings" */
};

static int read_member(struct scan *sc, struct members *mb, size_t *bytes)
{
	size_t key_start, start, values;
	json_t *key, *value;
	int rc;

	skip_ws(sc);
	key_start = sc->pos;
	if (!at(sc, '"'))
		return syntax(sc, sc->pos, "string or '}' expected");
	rc = skip_string(sc);
	if (rc == 0)
		rc = decode(sc, key_start, sc->pos, &key);
	if (rc < 0)
		return rc;
	if (!at(sc, ':')) {
		json_decref(key);
		return syntax(sc, sc->pos, "':' expected");
	}
	sc->pos++;
	skip_ws(sc);
	start = sc->pos;
	rc = skip_value(sc, &values);
	if (rc == 0 && (json_object_get(mb->root, json_string_value(key)) ||
			(mb->maps_end && !strcmp(json_string_value(key), "mappings"))))
		rc = syntax(sc, key_start, "duplicate object key");
	if (rc == 0 && !strcmp(json_string_value(key), "mappings")) {
		mb->maps_start = start;
		mb->maps_end = sc->pos;
	} else if (rc == 0) {
		*bytes += sc->pos - start;
		if (values > READ_MEMBER_VALUES_MAX || *bytes > READ_MEMBERS_BYTES_MAX ||
		    json_object_size(mb->root) >= READ_MEMBERS_MAX)
			/* The key is the file's own text: said by where it is, not quoted. */
			rc = ms_error_set(sc->err, MS_ERR_LIMIT, EFBIG,
					  "%s: the member at byte %zu is larger than anything mapscope writes",
					  sc->what, key_start);
		if (rc == 0)
			rc = decode(sc, start, sc->pos, &value);
		if (rc == 0 && json_object_set_new(mb->root, json_string_value(key), value) < 0)
			rc = nomem(sc->err);
	}
	json_decref(key);
	return rc;
}

static int read_root(struct scan *sc, struct members *mb)
{
	size_t bytes = 0;

	skip_ws(sc);
	if (sc->pos >= sc->len)
		return syntax(sc, sc->len, "'[' or '{' expected near end of file");
	if (sc->text[sc->pos] != '{') {
		size_t values;

		/* Any other JSON is not a snapshot; anything else is not JSON. */
		if (!strchr("[\"-0123456789tfn", sc->text[sc->pos]) || sc->text[sc->pos] == '\0')
			return syntax(sc, sc->pos, "'[' or '{' expected");
		int rc = skip_value(sc, &values);

		return rc < 0 ? rc : ms_error_set(sc->err, MS_ERR_INVAL, EINVAL, "%s: not a mapscope snapshot",
						  sc->what);
	}
	sc->pos++;
	if (at(sc, '}'))
		sc->pos++;
	else
		for (;;) {
			int rc = read_member(sc, mb, &bytes);

			if (rc < 0)
				return rc;
			if (at(sc, ',')) {
				sc->pos++;
				continue;
			}
			if (!at(sc, '}'))
				return syntax(sc, sc->pos, "',' or '}' expected");
			sc->pos++;
			break;
		}
	skip_ws(sc);
	if (sc->pos < sc->len)
		return syntax(sc, sc->pos, "end of file expected");
	return 0;
}

/* Mapping index of the array, decoded alone into snap (and its residency into res). */
static int read_mapping(struct scan *sc, size_t index, struct ms_snapshot *snap,
			struct ms_resinfo *res, struct ms_error *res_err, bool *res_bad,
			struct ms_snapshot_pkg *pkg, size_t *names)
{
	struct ms_maplist *list = &snap->maps;
	size_t start, values;
	struct ms_mapping m;
	json_t *obj;
	int rc;

	skip_ws(sc);
	start = sc->pos;
	if (index >= MS_SNAPSHOT_MAPPINGS_MAX)
		return ms_error_set(sc->err, MS_ERR_LIMIT, EFBIG, "%s: more than %u mappings", sc->what,
				    MS_SNAPSHOT_MAPPINGS_MAX);
	rc = skip_value(sc, &values);
	if (rc < 0)
		return rc;
	if (values > READ_ITEM_VALUES_MAX || sc->pos - start > READ_ITEM_BYTES_MAX)
		return ms_error_set(sc->err, MS_ERR_LIMIT, EFBIG,
				    "%s: mapping %zu: larger than any mapping mapscope writes", sc->what,
				    index + 1);
	rc = decode(sc, start, sc->pos, &obj);
	if (rc < 0)
		return rc;
	rc = ms_mapping_from_json(obj, sc->what, index, &m, sc->err);
	if (rc == 0 && pkg && (rc = ms_snapshot_pkg_decode_one(obj, sc->what, index, pkg, sc->err)) < 0)
		ms_mapping_reset(&m);
	/* Residency is checked once the root says whether there is any. */
	if (rc == 0 && !*res_bad && ms_snapshot_res_decode_one(obj, sc->what, index, res, res_err) < 0)
		*res_bad = true;
	json_decref(obj);
	if (rc)
		return rc;
	if (list->count && m.start < list->items[list->count - 1].end)
		rc = ms_error_set(sc->err, MS_ERR_INVAL, EINVAL,
				  "%s: mapping %zu: out of address order or overlapping the one before",
				  sc->what, index + 1);
	else if (m.name_len > MS_SNAPSHOT_NAMES_MAX - *names)
		rc = ms_error_set(sc->err, MS_ERR_LIMIT, EFBIG, "%s: the mapping names take more than %u MiB",
				  sc->what, MS_SNAPSHOT_NAMES_MAX >> 20);
	else if (ms_maplist_push(list, &m) < 0)
		rc = nomem(sc->err);
	if (rc)
		ms_mapping_reset(&m);
	else
		*names += m.name_len;
	return rc;
}

/* One more slot in *arr (of n, room for *cap), zeroed; -1 when out of memory. */
static int grow_zeroed(void **arr, size_t n, size_t *cap, size_t size)
{
	if (n == *cap) {
		size_t more = *cap ? 2 * *cap : 256;
		void *grown = realloc(*arr, more * size);

		if (!grown)
			return -1;
		*arr = grown;
		*cap = more;
	}
	memset((char *)*arr + n * size, 0, size);
	return 0;
}

static int read_mappings(struct scan *sc, json_t *meta, int version, bool want_pkgs,
			 struct ms_snapshot *snap)
{
	struct ms_snapshot_pkg *pkgs = NULL;
	size_t pkgs_cap = 0;
	struct ms_resinfo *res = NULL;
	struct ms_error res_err;
	bool res_bad = false;
	size_t cap = 0, names = 0;
	int rc = 0;

	if (!at(sc, '['))
		return ms_error_set(sc->err, MS_ERR_INVAL, EINVAL, "%s: \"mappings\" must be an array",
				    sc->what);
	sc->pos++;
	if (at(sc, ']'))
		sc->pos++;
	else
		for (size_t i = 0;; i++) {
			if (grow_zeroed((void **)&res, i, &cap, sizeof(*res)) < 0 ||
			    (want_pkgs &&
			     grow_zeroed((void **)&pkgs, i, &pkgs_cap, sizeof(*pkgs)) < 0)) {
				rc = nomem(sc->err);
				break;
			}
			rc = read_mapping(sc, i, snap, &res[i], &res_err, &res_bad,
					  want_pkgs ? &pkgs[i] : NULL, &names);
			if (rc < 0)
				break;
			if (at(sc, ',')) {
				sc->pos++;
				continue;
			}
			if (!at(sc, ']'))
				rc = syntax(sc, sc->pos, "',' or ']' expected");
			else
				sc->pos++;
			break;
		}
	if (rc == 0 && meta) {
		rc = ms_snapshot_res_decode_meta(meta, version, sc->what, snap, sc->err);
		if (rc == 0 && res_bad)
			rc = ms_error_set(sc->err, res_err.code, res_err.sys_errno, "%s", res_err.msg);
		if (rc == 0 && !res)
			res = calloc(1, sizeof(*res));
		if (rc == 0 && !res)
			rc = nomem(sc->err);
		if (rc == 0) {
			snap->res = res;
			res = NULL;
		}
	}
	if (rc == 0 && want_pkgs) {
		snap->pkgs = pkgs ? pkgs : calloc(1, sizeof(*pkgs));
		pkgs = NULL;
		if (!snap->pkgs)
			rc = nomem(sc->err);
	}
	free(pkgs);
	free(res);
	return rc;
}

int ms_snapshot_parse(const char *text, size_t len, const char *name,
		      struct ms_snapshot *snap, struct ms_error *err)
{
	struct scan sc = { text, len, 0, name, err };
	struct members mb = { json_object(), 0, 0 };
	int rc, version = 0;

	memset(snap, 0, sizeof(*snap));
	if (!mb.root)
		return nomem(err);
	rc = read_root(&sc, &mb);
	if (!rc)
		rc = ms_snapshot_check_kind_upto(mb.root, "snapshot", name, MS_SNAPSHOT_VERSION_PACKAGES,
						 &version, err);
	if (!rc)
		rc = ms_snapshot_header_from_json(json_object_get(mb.root, "header"), name, &snap->hdr, err);
	if (!rc && json_object_get(mb.root, "packages"))
		rc = ms_snapshot_pkg_decode_meta(json_object_get(mb.root, "packages"), version, name, err);
	if (!rc && !mb.maps_end)
		rc = ms_error_set(err, MS_ERR_INVAL, EINVAL, "%s: \"mappings\" must be an array", name);
	if (!rc) {
		struct scan maps = { text, mb.maps_end, mb.maps_start, name, err };

		rc = read_mappings(&maps, json_object_get(mb.root, "residency"), version,
				   json_object_get(mb.root, "packages") != NULL, snap);
	}
	if (!rc)
		snap->hdr.version = version;
	json_decref(mb.root);
	if (rc)
		ms_snapshot_free(snap);
	return rc;
}

/* The whole file, read at its size (no doubling buffer), at most MS_SNAPSHOT_FILE_MAX. */
static int read_whole(const char *path, const char *name, char **text, size_t *len,
		      struct ms_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	size_t got = 0;
	int rc = 0;

	*text = NULL;
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = errno;
		if (fd >= 0)
			close(fd);
		return ms_error_set(err, rc == EACCES ? MS_ERR_NOACCESS : MS_ERR_IO, rc,
				    "%s: cannot read: %s", name, strerror(rc));
	}
	if (!S_ISREG(st.st_mode))
		rc = ms_error_set(err, MS_ERR_IO, EINVAL, "%s: cannot read: not a regular file", name);
	else if ((uint64_t)st.st_size > MS_SNAPSHOT_FILE_MAX)
		rc = ms_error_set(err, MS_ERR_LIMIT, EFBIG, "%s: larger than %u MiB", name,
				  MS_SNAPSHOT_FILE_MAX >> 20);
	else if (!(*text = malloc((size_t)st.st_size + 1)))
		rc = nomem(err);
	while (rc == 0 && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = ms_error_set(err, MS_ERR_IO, n < 0 ? errno : EIO, "%s: cannot read: %s", name,
					  n < 0 ? strerror(errno) : "the file shrank");
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (rc) {
		free(*text);
		*text = NULL;
		return rc;
	}
	*len = got;
	return 0;
}

int ms_snapshot_load(const char *path, struct ms_snapshot *snap, struct ms_error *err)
{
	char *name = ms_escape_dup(path, strlen(path), MS_ESC_ASCII);
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(snap, 0, sizeof(*snap));
	if (!name)
		return nomem(err);
	rc = read_whole(path, name, &text, &len, err);
	if (rc == 0)
		rc = ms_snapshot_parse(text, len, name, snap, err);
	free(text);
	free(name);
	return rc;
}
