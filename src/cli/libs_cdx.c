/* libs_cdx.c - the mapped files as a CycloneDX 1.6 document: see libs_cdx.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/libs_cdx.h"
#include "cli/libs_out.h"
#include "core/base/escape.h"
#include "core/elf/buildid.h"
#include "core/files/sbom.h"
#include "core/pkg/owner.h"
#include "core/pkg/osrelease.h"
#include "core/stale/stale.h"

#define LIBS_CDX_EXIT_ERROR 2

/*
 * A JSON string of raw bytes, for JSON's escapes alone (NULL when out of
 * memory): a reader gets the name itself.  JSON holds only UTF-8, so a byte
 * that is not becomes U+FFFD.
 */
static json_t *raw_string(const char *s, size_t len)
{
	char *u = ms_text_utf8_dup(s, len);
	json_t *j = u ? json_string(u) : NULL;

	free(u);
	return j;
}

/* jansson's text for j: every character past ASCII as \uXXXX (NULL when out of memory). */
static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
}

/*
 * Dumped JSON to stdout, with DEL, the one control byte jansson leaves raw,
 * as \u007f: outside strings JSON text holds no DEL, so this is exact, and
 * the document is printable ASCII that a terminal shows as it is.
 */
static void put_json(const char *text)
{
	for (; *text; text++) {
		if (*text == '\x7f')
			fputs("\\u007f", stdout);
		else
			putchar(*text);
	}
}

/* properties += {name, value}; value is taken.  -1 when out of memory. */
static int prop(json_t *props, const char *name, json_t *value)
{
	json_t *p = value ? json_pack("{s:s, s:o}", "name", name, "value", value) : NULL;

	return p ? json_array_append_new(props, p) : -1;
}

static int prop_text(json_t *props, const char *name, const char *text)
{
	return prop(props, name, json_string(text));
}

static int prop_raw(json_t *props, const char *name, const char *s, size_t size)
{
	return prop(props, name, raw_string(s, strnlen(s, size)));
}

/* mapscope:file:N:... for each row of c. */
static int file_props(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *props)
{
	char name[64], hex[2 * MS_BUILD_ID_MAX + 1];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < c->nrows; i++) {
		const struct ms_libtable_row *r = &t->rows[c->rows[i]];

		snprintf(name, sizeof(name), "mapscope:file:%zu:path", i);
		rc = prop(props, name, raw_string(r->name, r->name_len));
		if (rc == 0 && r->build_id_len) {
			ms_buildid_hex(r->build_id, r->build_id_len, hex);
			snprintf(name, sizeof(name), "mapscope:file:%zu:build-id", i);
			rc = prop_text(props, name, hex);
		}
		snprintf(name, sizeof(name), "mapscope:file:%zu:verdict", i);
		rc = rc ?: prop_text(props, name, ms_stale_verdict_name(r->verdict));
		if (rc == 0 && r->pkg && r->pkg->found && r->pkg->vendored) {
			snprintf(name, sizeof(name), "mapscope:file:%zu:vendored", i);
			rc = prop_text(props, name, "true");
		}
		if (rc == 0 && !r->host) {
			char *w = libs_where_raw(&t->procs[r->where_proc]);

			snprintf(name, sizeof(name), "mapscope:file:%zu:where", i);
			rc = w ? prop(props, name, raw_string(w, strlen(w))) : -1;
			free(w);
		}
	}
	return rc;
}

/* mapscope:processes and mapscope:pids ("1 2 3", by PID). */
static int proc_props(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *props)
{
	char *pids = malloc(c->nprocs * 12 + 1), count[24];
	size_t at = 0;
	int rc;

	if (!pids)
		return -1;
	pids[0] = '\0';
	for (size_t i = 0; i < c->nprocs; i++)
		at += (size_t)sprintf(pids + at, "%s%d", i ? " " : "", (int)t->procs[c->procs[i]].pid);
	snprintf(count, sizeof(count), "%zu", c->nprocs);
	rc = prop_text(props, "mapscope:processes", count) ?: prop_text(props, "mapscope:pids", pids);
	free(pids);
	return rc;
}

static int package_fields(const struct ms_sbom_component *c, json_t *j, json_t *props)
{
	const struct ms_pkg *p = c->pkg;
	int rc = json_object_set_new(j, "name", raw_string(p->name, strnlen(p->name, sizeof(p->name))));

	if (rc == 0 && c->version)
		rc = json_object_set_new(j, "version", raw_string(c->version, strlen(c->version)));
	if (rc == 0 && c->purl)
		rc = json_object_set_new(j, "purl", json_string(c->purl));
	rc = rc ?: prop_text(props, "mapscope:package-source", ms_pkg_source_name(p->source));
	rc = rc ?: prop_text(props, "mapscope:running",
			     c->running_unknown ? "unknown" : c->replaced ? "replaced" : "installed");
	if (rc == 0 && (c->running_unknown || c->replaced) && p->version[0])
		rc = prop_raw(props, "mapscope:installed-version", p->version, sizeof(p->version));
	return rc;
}

static int file_fields(const struct ms_libtable *t, const struct ms_sbom_component *c, json_t *j, json_t *props)
{
	const struct ms_libtable_row *r = &t->rows[c->rows[0]];
	int rc = json_object_set_new(j, "name", raw_string(r->name, r->name_len));

	if (rc == 0 && c->hashed)
		rc = json_object_set_new(j, "hashes", json_pack("[{s:s, s:s}]", "alg", "SHA-256", "content", c->sha256));
	if (rc == 0 && !c->hashed)
		rc = prop_text(props, "mapscope:hash-skipped", c->hash_why ? c->hash_why : "out of memory");
	if (rc == 0)
		rc = prop_text(props, "mapscope:package", r->pkg_why ? r->pkg_why : "not packaged");
	return rc;
}

/* One component, on one line. */
static int print_component(const struct ms_libtable *t, const struct ms_sbom_component *c, size_t id)
{
	char ref[32];
	json_t *props = json_array();
	json_t *j = json_object();
	char *text = NULL;
	int rc = props && j ? 0 : -1;

	snprintf(ref, sizeof(ref), "component-%zu", id + 1);
	rc = rc ?: json_object_set_new(j, "type", json_string(c->pkg ? "library" : "file"));
	rc = rc ?: json_object_set_new(j, "bom-ref", json_string(ref));
	rc = rc ?: c->pkg ? package_fields(c, j, props) : file_fields(t, c, j, props);
	rc = rc ?: proc_props(t, c, props);
	rc = rc ?: file_props(t, c, props);
	if (rc == 0 && json_object_set(j, "properties", props) == 0 && (text = dump(j))) {
		printf("%s\n    ", id ? "," : "");
		put_json(text);
	} else {
		rc = -1;
	}
	free(text);
	json_decref(props);
	json_decref(j);
	return rc;
}

static void serial_number(char *out, size_t size)
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;

		for (size_t i = 0; i < sizeof(b); i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
			b[i] = (unsigned char)(x >> 56);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4: random */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* the RFC 4122 variant */
	snprintf(out, size, "urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The host as metadata.component. */
static json_t *host_component(const struct ms_sbom *s)
{
	const struct ms_osrelease *os = &s->os;
	json_t *j = json_object(), *props = json_array();
	struct utsname u;
	int rc = j && props ? 0 : -1;

	rc = rc ?: json_object_set_new(j, "type", json_string("operating-system"));
	rc = rc ?: json_object_set_new(j, "bom-ref", json_string("host"));
	rc = rc ?: json_object_set_new(j, "name", json_string(s->os_known && os->id[0] ? os->id : "linux"));
	if (rc == 0 && s->os_known && os->version_id[0])
		rc = json_object_set_new(j, "version", raw_string(os->version_id, strlen(os->version_id)));
	if (rc == 0 && s->os_known && os->pretty_name[0])
		rc = json_object_set_new(j, "description", raw_string(os->pretty_name, strlen(os->pretty_name)));
	if (rc == 0 && uname(&u) == 0)
		rc = prop_raw(props, "mapscope:hostname", u.nodename, sizeof(u.nodename)) ?:
		     prop_raw(props, "mapscope:kernel", u.release, sizeof(u.release));
	rc = rc ?: json_object_set(j, "properties", props);
	json_decref(props);
	if (rc) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static int print_head(const struct ms_sbom *s, const struct ms_libtable *t)
{
	char serial[64], when[32], nprocs[24], unhashed[24], budget[24];
	time_t now = time(NULL);
	struct tm tm;
	json_t *meta, *head, *host = host_component(s);
	char *text = NULL, *shead = NULL;
	int rc;

	serial_number(serial, sizeof(serial));
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	snprintf(nprocs, sizeof(nprocs), "%zu", t->nprocs);
	snprintf(unhashed, sizeof(unhashed), "%zu", s->unhashed_files);
	snprintf(budget, sizeof(budget), "%zu", s->budget_skipped);
	/* The file components without a hash, and of those the ones the budget left out (sbom.h). */
	meta = host ? json_pack("{s:s, s:[{s:s}], s:{s:[{s:s, s:s, s:s}]}, s:O, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]}",
				"timestamp", when, "lifecycles", "phase", "operations",
				"tools", "components", "type", "application", "name", "mapscope",
				"version", PACKAGE_VERSION, "component", host,
				"properties", "name", "mapscope:processes", "value", nprocs,
				"name", "mapscope:unhashed-files", "value", unhashed,
				"name", "mapscope:hash-budget-skipped", "value", budget) : NULL;
	head = json_pack("{s:s, s:s, s:s, s:s, s:i}", "$schema", "http://cyclonedx.org/schema/bom-1.6.schema.json",
			 "bomFormat", "CycloneDX", "specVersion", "1.6", "serialNumber", serial, "version", 1);
	shead = head ? dump(head) : NULL;
	json_decref(head);
	text = meta ? dump(meta) : NULL;
	rc = text && shead ? 0 : -1;
	if (rc == 0) {
		/* The head's closing brace gives way to metadata and components. */
		shead[strlen(shead) - 1] = '\0';
		printf("%s,\n  \"metadata\": ", shead);
		put_json(text);
		printf(",\n  \"components\": [");
	}
	free(text);
	free(shead);
	json_decref(meta);
	json_decref(host);
	return rc;
}

static void print_dependencies(const struct ms_sbom *s)
{
	printf("\n  ],\n  \"dependencies\": [{\"ref\": \"host\", \"dependsOn\": [");
	for (size_t i = 0; i < s->count; i++)
		printf("%s\"component-%zu\"", i ? ", " : "", i + 1);
	printf("]}]\n}\n");
}

int libs_cdx_print(struct ms_libtable *t, const struct cli_opts *o)
{
	struct ms_osrelease os;
	struct ms_error err;
	struct ms_sbom s;
	bool os_known = ms_osrelease_read(NULL, &os, &err) == 0;
	int rc;

	(void)o;
	if (!os_known)
		cli_error("libs: %s: package URLs of deb and rpm packages need the distribution", err.msg);
	if (ms_sbom_build(t, os_known ? &os : NULL, &s, &err) < 0) {
		cli_error("%s", err.msg);
		return LIBS_CDX_EXIT_ERROR;
	}
	rc = print_head(&s, t);
	for (size_t i = 0; rc == 0 && i < s.count; i++)
		rc = print_component(t, &s.items[i], i);
	if (rc == 0)
		print_dependencies(&s);
	ms_sbom_free(&s);
	if (rc < 0) {
		cli_error("libs: out of memory");
		return LIBS_CDX_EXIT_ERROR;
	}
	return cli_stdout_done(0);
}
