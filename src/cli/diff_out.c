#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/diff_out.h"
#include "core/base/units.h"

char *diff_size_delta(const struct cli_opts *o, uint64_t old, uint64_t new)
{
	char buf[48];

	ms_format_size(new >= old ? new - old : old - new, o->bytes, buf + 1, sizeof(buf) - 1);
	/* JSON numbers take no plus sign. */
	buf[0] = new >= old ? '+' : '-';
	return strdup(new == old || (o->bytes && new > old) ? buf + 1 : buf);
}

const char *diff_kind_name(enum ms_diff_kind kind)
{
	switch (kind) {
	case MS_DIFF_ADDED: return "added";
	case MS_DIFF_REMOVED: return "removed";
	case MS_DIFF_CHANGED: break;
	}
	return "changed";
}

/* -J: the table and a "summary" object in one document. */
static int print_json(struct libscols_table *tb, const struct ms_diff_summary *s, bool with_moved)
{
	json_t *root, *sum;
	char *text = NULL;
	int rc;

	if (scols_print_table_to_string(tb, &text) != 0 || !text) {
		cli_error("diff: cannot format the output");
		return DIFF_EXIT_TROUBLE;
	}
	root = json_loads(text, 0, NULL);
	free(text);
	sum = json_pack("{s:I, s:I, s:I, s:I}", "added", (json_int_t)s->added,
			"removed", (json_int_t)s->removed, "changed", (json_int_t)s->changed,
			"unchanged", (json_int_t)s->unchanged);
	if (sum && with_moved && json_object_set_new(sum, "moved", json_integer((json_int_t)s->moved)) < 0) {
		json_decref(sum);
		sum = NULL;
	}
	if (!root || !sum || json_object_set_new(root, "summary", sum) < 0) {
		json_decref(root);
		cli_error("diff: out of memory");
		return DIFF_EXIT_TROUBLE;
	}
	rc = json_dumpf(root, stdout, JSON_INDENT(3));
	json_decref(root);
	if (rc == 0)
		fputc('\n', stdout);
	if (fflush(stdout) != 0 || ferror(stdout) || rc != 0) {
		if (errno == EPIPE)
			return CLI_EXIT_OK;
		cli_error("write error: %s", strerror(errno ? errno : EIO));
		return DIFF_EXIT_TROUBLE;
	}
	return CLI_EXIT_OK;
}

int diff_print(const struct cli_opts *o, struct libscols_table *tb, const struct ms_diff_summary *s,
	       bool with_moved)
{
	int status;

	if (o->json) {
		status = print_json(tb, s, with_moved);
	} else {
		status = cli_table_print(tb);
		if (with_moved && s->moved)
			fprintf(stderr, "%zu added, %zu removed, %zu changed, %zu unchanged, %zu moved\n",
				s->added, s->removed, s->changed, s->unchanged, s->moved);
		else
			fprintf(stderr, "%zu added, %zu removed, %zu changed, %zu unchanged\n",
				s->added, s->removed, s->changed, s->unchanged);
	}
	if (status != CLI_EXIT_OK)
		return DIFF_EXIT_TROUBLE;
	return s->added || s->removed || s->changed ? DIFF_EXIT_DIFFERENT : DIFF_EXIT_SAME;
}
