/*
 * libs_cdx_json.h - the pieces libs_cdx.c (the document) and
 * libs_cdx_evidence.c (one component) share.  Internal to the CycloneDX
 * writer (libs_cdx.h).
 *
 * Strings read from processes, files or databases go through
 * cdx_raw_string: JSON's escapes alone, so a reader gets the name itself,
 * and a byte that is not UTF-8 (which JSON cannot hold) as U+FFFD.  Every
 * function returns NULL or -1 when out of memory; a property's value is
 * taken, also on failure.
 */
#ifndef MAPSCOPE_CLI_LIBS_CDX_JSON_H
#define MAPSCOPE_CLI_LIBS_CDX_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "core/files/libtable.h"
#include "core/files/sbom.h"

json_t *cdx_raw_string(const char *s, size_t len);

/* properties += {name, value}: 0 or -1. */
int cdx_prop(json_t *props, const char *name, json_t *value);
int cdx_prop_text(json_t *props, const char *name, const char *text);
/* s is raw bytes, at most size of them (a fixed array's). */
int cdx_prop_raw(json_t *props, const char *name, const char *s, size_t size);

/* j with props as its properties when rc is 0 (props taken); else NULL, j freed. */
json_t *cdx_finish(json_t *j, json_t *props, int rc);

/* Component id of s (bom-ref "component-<id + 1>"), with its evidence and properties. */
json_t *cdx_component(const struct ms_libtable *t, const struct ms_sbom_component *c, size_t id);

#endif
