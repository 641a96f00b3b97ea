/* openmetrics.c - bounded OpenMetrics families and the way out: see openmetrics.h. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/openmetrics.h"
#include "core/base/escape.h"
#include "core/base/safewrite.h"

int om_group_init(struct om_group *g)
{
	g->slots = 16;
	g->used = 0;
	g->slot = calloc(g->slots, sizeof(*g->slot));
	return g->slot ? 0 : -1;
}

void om_group_free(struct om_group *g)
{
	for (size_t i = 0; g->slot && i < g->slots; i++)
		free(g->slot[i].key);
	free(g->slot);
	g->slot = NULL;
	g->slots = g->used = 0;
}

static uint64_t hash_key(const char *s)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t find_slot(const struct om_series *slot, size_t slots, const char *key)
{
	size_t i = (size_t)hash_key(key) & (slots - 1);

	while (slot[i].key && strcmp(slot[i].key, key))
		i = (i + 1) & (slots - 1);
	return i;
}

/* Twice the slots: the table stays at most half full, so a probe ends soon. */
static int grow(struct om_group *g)
{
	size_t slots = g->slots * 2;
	struct om_series *slot = calloc(slots, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < g->slots; i++)
		if (g->slot[i].key)
			slot[find_slot(slot, slots, g->slot[i].key)] = g->slot[i];
	free(g->slot);
	g->slot = slot;
	g->slots = slots;
	return 0;
}

struct om_series *om_group_add(struct om_group *g, const char *key)
{
	size_t i;

	if (2 * (g->used + 1) > g->slots && grow(g) < 0)
		return NULL;
	i = find_slot(g->slot, g->slots, key);
	if (!g->slot[i].key) {
		g->slot[i].key = strdup(key);
		if (!g->slot[i].key)
			return NULL;
		g->slot[i].id = g->used++;
	}
	return &g->slot[i];
}

/* Largest value first, then by key, so the series kept do not flap. */
static int series_cmp(const void *a, const void *b)
{
	const struct om_series *x = a, *y = b;

	if (!x->key || !y->key)
		return !x->key - !y->key;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return strcmp(x->key, y->key);
}

size_t om_label_escape(const char *s, size_t len, char *out, size_t size)
{
	static const char repl[] = MS_TEXT_REPLACEMENT;
	size_t o = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		enum ms_text_kind kind;
		size_t run = ms_text_unit(s + i, len - i, &kind);
		const char *put = s + i;
		size_t n = run;
		const char pair[2] = { '\\', s[i] == '\n' ? 'n' : s[i] };

		if (s[i] == '\\' || s[i] == '"' || s[i] == '\n') {
			put = pair;
			n = 2;
		} else if (kind != MS_TEXT_PLAIN) {
			put = repl;
			n = sizeof(repl) - 1;
		}
		if (o + n >= size)
			break;
		memcpy(out + o, put, n);
		o += n;
		i += run;
	}
	out[o] = '\0';
	return o;
}

/* One series: each label with its part of key. */
static void put_series(FILE *out, const struct om_family *f, const char *key, size_t value)
{
	fprintf(out, "%s{", f->name);
	for (const char *const *l = f->labels; *l; l++) {
		const char *end = strchr(key, OM_LABEL_SEP);
		size_t len = end ? (size_t)(end - key) : strlen(key);

		fprintf(out, "%s%s=\"%.*s\"", l == f->labels ? "" : ",", *l, (int)len, key);
		key += end ? len + 1 : len;
	}
	fprintf(out, "} %zu\n", value);
}

struct om_dropped om_family_print(FILE *out, const struct om_family *f, struct om_group *g)
{
	struct om_dropped dropped = { 0, 0 };

	/* Sorting the table itself moves the empty slots to the end (the hash is no longer used). */
	qsort(g->slot, g->slots, sizeof(*g->slot), series_cmp);
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", f->name, f->help, f->name);
	for (size_t i = 0; i < g->used; i++) {
		if (i < OM_MAX_SERIES) {
			put_series(out, f, g->slot[i].key, g->slot[i].value);
		} else {
			dropped.series++;
			dropped.value += g->slot[i].value;
		}
	}
	return dropped;
}

void om_put_overflow(FILE *out, const struct om_family *f, size_t value)
{
	fprintf(out, "%s{", f->name);
	for (const char *const *l = f->labels; *l; l++)
		fprintf(out, "%s=\"\",", *l);
	fprintf(out, "overflow=\"true\"} %zu\n", value);
}

int om_put_scan_end(FILE *out, const struct procscan *ps, const char *processes, const char *timestamp)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(out, "# HELP %s Processes looked at, by outcome.\n"
		"# TYPE %s gauge\n", processes, processes);
	fprintf(out, "%s{outcome=\"scanned\"} %zu\n", processes, ps->fleet.scanned);
	fprintf(out, "%s{outcome=\"vanished\"} %zu\n", processes, ps->fleet.vanished);
	fprintf(out, "%s{outcome=\"denied\"} %zu\n", processes, ps->fleet.denied);
	fprintf(out, "%s{outcome=\"failed\"} %zu\n", processes, ps->fleet.failed);
	fprintf(out, "# HELP %s When this scan finished, in seconds since the epoch.\n"
		"# TYPE %s gauge\n"
		"%s %lld.%03ld\n"
		"# EOF\n", timestamp, timestamp, timestamp, (long long)now.tv_sec, now.tv_nsec / 1000000);
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

static int write_file(const char *cmd, const char *path, int (*write_doc)(FILE *out, const void *ctx),
		      const void *ctx)
{
	/* Readable by node_exporter: counts and names, no address, no path. */
	const struct ms_safewrite_opts so = { .atomic = true, .mode = 0644 };
	struct ms_error err;
	char *doc = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);
	int rc;

	if (!mem) {
		cli_error("%s: out of memory", cmd);
		return CLI_EXIT_USAGE;
	}
	rc = write_doc(mem, ctx);
	if (fclose(mem) != 0)
		rc = -1;
	if (rc < 0) {
		free(doc);
		cli_error("%s: out of memory", cmd);
		return CLI_EXIT_USAGE;
	}
	rc = ms_safewrite_file(path, &so, doc, len, NULL, &err);
	free(doc);
	if (rc < 0) {
		cli_error("--metrics-file: %s", err.msg);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int om_print(const char *cmd, const char *path, int (*write_doc)(FILE *out, const void *ctx),
	     const void *ctx)
{
	if (path)
		return write_file(cmd, path, write_doc, ctx);
	if (write_doc(stdout, ctx) < 0) {
		cli_error("write error");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}
