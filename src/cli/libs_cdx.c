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
#include "cli/libs_cdx_json.h"
#include "cli/libs_out.h"
#include "core/base/escape.h"
#include "core/files/sbom.h"
#include "core/pkg/owner.h"
#include "core/pkg/osrelease.h"

#define LIBS_CDX_EXIT_ERROR 2

json_t *cdx_raw_string(const char *s, size_t len)
{
	char *u = ms_text_utf8_dup(s, len);
	json_t *j = u ? json_string(u) : NULL;

	free(u);
	return j;
}

json_t *cdx_finish(json_t *j, json_t *props, int rc)
{
	rc = rc ?: json_object_set(j, "properties", props);
	json_decref(props);
	if (rc) {
		json_decref(j);
		return NULL;
	}
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

int cdx_prop(json_t *props, const char *name, json_t *value)
{
	json_t *p = value ? json_pack("{s:s, s:o}", "name", name, "value", value) : NULL;

	return p ? json_array_append_new(props, p) : -1;
}

int cdx_prop_text(json_t *props, const char *name, const char *text)
{
	return cdx_prop(props, name, json_string(text));
}

int cdx_prop_raw(json_t *props, const char *name, const char *s, size_t size)
{
	return cdx_prop(props, name, cdx_raw_string(s, strnlen(s, size)));
}

/* j as one line of the components array; takes j. */
static int put_component(json_t *j, bool first)
{
	char *text = j ? dump(j) : NULL;

	json_decref(j);
	if (!text)
		return -1;
	printf("%s\n    ", first ? "" : ",");
	put_json(text);
	free(text);
	return 0;
}

/* One process: "process-PID", named by its command (or "pid PID" without one). */
static json_t *process_component(const struct ms_libtable_proc *p)
{
	char ref[32], pid[24];
	json_t *j = json_object(), *props = json_array();
	int rc = j && props ? 0 : -1;

	snprintf(ref, sizeof(ref), "process-%d", (int)p->pid);
	snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	rc = rc ?: json_object_set_new(j, "type", json_string("application"));
	rc = rc ?: json_object_set_new(j, "bom-ref", json_string(ref));
	if (rc == 0 && p->comm[0])
		rc = json_object_set_new(j, "name", cdx_raw_string(p->comm, strnlen(p->comm, sizeof(p->comm))));
	else if (rc == 0)
		rc = json_object_set_new(j, "name", json_sprintf("pid %d", (int)p->pid));
	rc = rc ?: cdx_prop_text(props, "mapscope:pid", pid);
	if (rc == 0 && p->root_known && p->other_root) {
		char *w = libs_where_raw(p);

		rc = w ? cdx_prop(props, "mapscope:where", cdx_raw_string(w, strlen(w))) : -1;
		free(w);
	}
	return cdx_finish(j, props, rc);
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
		rc = json_object_set_new(j, "version", cdx_raw_string(os->version_id, strlen(os->version_id)));
	if (rc == 0 && s->os_known && os->pretty_name[0])
		rc = json_object_set_new(j, "description", cdx_raw_string(os->pretty_name, strlen(os->pretty_name)));
	if (rc == 0 && uname(&u) == 0)
		rc = cdx_prop_raw(props, "mapscope:hostname", u.nodename, sizeof(u.nodename)) ?:
		     cdx_prop_raw(props, "mapscope:kernel", u.release, sizeof(u.release));
	return cdx_finish(j, props, rc);
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

static bool proc_listed(const struct ms_sbom *s, size_t p)
{
	return s->proc_start && s->proc_start[p + 1] > s->proc_start[p];
}

/*
 * The host runs each process (and has each installed version no process
 * maps, --installed); each process maps its components.  One entry a line.
 */
static void print_dependencies(const struct ms_libtable *t, const struct ms_sbom *s)
{
	bool first = true;

	printf("\n  ],\n  \"dependencies\": [\n    {\"ref\": \"host\", \"dependsOn\": [");
	for (size_t p = 0; p < t->nprocs; p++)
		if (proc_listed(s, p)) {
			printf("%s\"process-%d\"", first ? "" : ", ", (int)t->procs[p].pid);
			first = false;
		}
	for (size_t i = 0; i < s->count; i++)
		if (s->items[i].pkg && s->items[i].running == MS_SBOM_NOT_RUNNING) {
			printf("%s\"component-%zu\"", first ? "" : ", ", i + 1);
			first = false;
		}
	printf("]}");
	for (size_t p = 0; p < t->nprocs; p++) {
		if (!proc_listed(s, p))
			continue;
		printf(",\n    {\"ref\": \"process-%d\", \"dependsOn\": [", (int)t->procs[p].pid);
		for (size_t k = s->proc_start[p]; k < s->proc_start[p + 1]; k++)
			printf("%s\"component-%zu\"", k > s->proc_start[p] ? ", " : "", s->proc_items[k] + 1);
		printf("]}");
	}
	printf("\n  ]\n}\n");
}

int libs_cdx_print(struct ms_libtable *t, const struct cli_opts *o, bool installed)
{
	struct ms_sbom_opts so = { .installed = installed };
	struct ms_osrelease os;
	struct ms_error err;
	struct ms_sbom s;
	bool os_known = ms_osrelease_read(NULL, &os, &err) == 0;
	size_t written = 0;
	int rc;

	(void)o;
	if (!os_known)
		cli_error("libs: %s: package URLs of deb and rpm packages need the distribution", err.msg);
	if (ms_sbom_build(t, os_known ? &os : NULL, &so, &s, &err) < 0) {
		cli_error("%s", err.msg);
		return LIBS_CDX_EXIT_ERROR;
	}
	rc = print_head(&s, t);
	for (size_t i = 0; rc == 0 && i < s.count; i++)
		rc = put_component(cdx_component(t, &s.items[i], i), written++ == 0);
	for (size_t p = 0; rc == 0 && p < t->nprocs; p++)
		if (proc_listed(&s, p))
			rc = put_component(process_component(&t->procs[p]), written++ == 0);
	if (rc == 0)
		print_dependencies(t, &s);
	ms_sbom_free(&s);
	if (rc < 0) {
		cli_error("libs: out of memory");
		return LIBS_CDX_EXIT_ERROR;
	}
	return cli_stdout_done(0);
}
