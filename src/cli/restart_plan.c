#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/restart_plan.h"
#include "core/base/escape.h"
#include "core/stale/restart_plan.h"

static char *unit_text(const struct ms_plan_group *g, unsigned esc)
{
	char text[4 * MS_UNIT_MAX + 32];

	if (!g->unit)
		return NULL;
	ms_unit_describe(g->unit, esc, text, sizeof(text));
	return strdup(text);
}

/* ---- text */

static void print_group(const struct ms_plan_group *g, unsigned esc)
{
	char *unit = unit_text(g, esc);
	const char *say = ms_plan_advice(g);

	if (unit && say)
		printf("%s: %s\n", unit, say);
	else
		printf("%s\n", unit ? unit : say ? say : "");
	free(unit);
	for (size_t i = 0; i < g->count; i++) {
		const struct ms_stale_proc *p = g->procs[i];
		char *comm = ms_escape_dup(p->comm, strnlen(p->comm, sizeof(p->comm)), esc);

		printf("  %d %s\n", (int)p->pid, comm ? comm : "");
		free(comm);
		for (size_t j = 0; j < p->files.count; j++) {
			const struct ms_stale_file *f = &p->files.items[j];
			char *name;

			if (!ms_stale_verdict_is_stale(f->result.verdict))
				continue;
			name = ms_escape_dup(f->name, f->name_len, esc);
			printf("    %s: %s\n", ms_stale_verdict_name(f->result.verdict), name ? name : "");
			free(name);
		}
	}
}

/* One line for every service: escaped names, which systemd's unit names never need. */
static char *command_line(const struct ms_restart_plan *plan, unsigned esc)
{
	char *line = NULL;
	size_t len = 0;
	FILE *mem;

	if (!plan->services)
		return NULL;
	mem = open_memstream(&line, &len);
	if (!mem)
		return NULL;
	fputs("systemctl restart", mem);
	for (size_t i = 0; i < plan->services; i++) {
		char *unit = unit_text(&plan->groups[i], esc);

		fprintf(mem, " %s", unit ? unit : "");
		free(unit);
	}
	if (fclose(mem) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

static int print_text(const struct ms_restart_plan *plan, const char *command, unsigned esc)
{
	if (!plan->count) {
		printf("Nothing to restart.\n");
		return cli_stdout_done(0);
	}
	if (plan->services)
		printf("Services to restart:\n");
	for (size_t i = 0; i < plan->services; i++)
		print_group(&plan->groups[i], esc);
	if (command)
		printf("\n%s\n", command);
	if (plan->count > plan->services)
		printf("%sNot fixed by restarting services:\n", plan->services ? "\n" : "");
	for (size_t i = plan->services; i < plan->count; i++)
		print_group(&plan->groups[i], esc);
	return cli_stdout_done(0);
}

/* ---- JSON: the text's escaping, so one name prints the same in both */

static json_t *escaped(const char *s, size_t len, unsigned esc)
{
	char *text = ms_escape_dup(s, len, esc);
	json_t *v = text ? json_string(text) : NULL;

	free(text);
	return v;
}

static json_t *proc_json(const struct ms_stale_proc *p, unsigned esc)
{
	json_t *files = json_array();
	json_t *o = json_pack("{s:I, s:o, s:o}", "pid", (json_int_t)p->pid, "name",
			      escaped(p->comm, strnlen(p->comm, sizeof(p->comm)), esc), "files", files);

	for (size_t j = 0; o && j < p->files.count; j++) {
		const struct ms_stale_file *f = &p->files.items[j];

		if (ms_stale_verdict_is_stale(f->result.verdict) &&
		    json_array_append_new(files, json_pack("{s:o, s:s}", "name", escaped(f->name, f->name_len, esc),
							   "verdict", ms_stale_verdict_name(f->result.verdict))) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *group_json(const struct ms_plan_group *g, unsigned esc)
{
	char *unit = unit_text(g, esc);
	const char *say = ms_plan_advice(g);
	json_t *procs = json_array();
	json_t *o = json_pack("{s:s?, s:s, s:s?, s:o}", "unit", unit, "kind", ms_plan_kind_name(g->kind),
			      "advice", say, "processes", procs);

	free(unit);
	for (size_t i = 0; o && i < g->count; i++)
		if (json_array_append_new(procs, proc_json(g->procs[i], esc)) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

static int print_json(const struct ms_restart_plan *plan, const char *command, unsigned esc)
{
	json_t *units = json_array(), *rest = json_array();
	json_t *root = json_pack("{s:o, s:s?, s:o}", "units", units, "command", command, "rest", rest);
	int rc = root ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < plan->count; i++)
		rc = json_array_append_new(i < plan->services ? units : rest, group_json(&plan->groups[i], esc));
	if (rc == 0)
		rc = json_dumpf(root, stdout, JSON_INDENT(3));
	json_decref(root);
	if (rc < 0) {
		cli_error("stale: out of memory");
		return CLI_EXIT_USAGE;
	}
	fputc('\n', stdout);
	return cli_stdout_done(0);
}

int restart_plan_print(const struct ms_stale_report *r, const struct cli_opts *o)
{
	struct ms_restart_plan plan;
	struct ms_error err;
	char *command;
	int status;

	if (ms_restart_plan_build(r, &plan, &err) < 0) {
		cli_error("%s", err.msg);
		return CLI_EXIT_USAGE;
	}
	command = command_line(&plan, o->escape_flags);
	if (plan.services && !command) {
		ms_restart_plan_free(&plan);
		cli_error("stale: out of memory");
		return CLI_EXIT_USAGE;
	}
	status = o->json ? print_json(&plan, command, o->escape_flags) : print_text(&plan, command, o->escape_flags);
	free(command);
	ms_restart_plan_free(&plan);
	return status == CLI_EXIT_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}
