/*
 * jsoncheck.h - what the tests of JSON output share: parse a command's
 * output with jansson, failing the running cmocka test (with the text)
 * when it is not JSON.
 */
#ifndef MAPSCOPE_TESTS_JSONCHECK_H
#define MAPSCOPE_TESTS_JSONCHECK_H

#include <jansson.h>

/* The parsed document (json_decref it), or the test fails. */
json_t *jc_parse(const char *text);

/* Run mapscope with args, its output in *out (freed first): msrun_capture's status. */
int jc_run(char **out, const char *const *args);

#endif
