#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture_client.h"
#include "maps/mapping.h"
#include "testutil.h"

/* A line holds a name of up to PATH_MAX bytes as hex, and then some. */
#define LINE_MAX_BYTES 16384

static int unhex(const char *hex, char **out, size_t *len)
{
	size_t n = strlen(hex);

	*out = NULL;
	*len = 0;
	if (!strcmp(hex, "-"))
		return 0;
	if (n % 2)
		return -1;
	*out = malloc(n / 2 + 1);
	if (!*out)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		(*out)[i] = (char)v;
	}
	(*out)[n / 2] = '\0';
	*len = n / 2;
	return 0;
}

static int add_map(struct fixture *fx, const char *line)
{
	char kind[40], perms[8];
	unsigned long long start, end, off;
	struct fx_map *m;
	int hexat = 0;

	if (sscanf(line, "map %39s %llx %llx %7s %llx %n", kind, &start, &end, perms, &off, &hexat) != 5 ||
	    !hexat)
		return -1;
	if (fx->count == fx->cap) {
		size_t cap = fx->cap ? fx->cap * 2 : 64;
		struct fx_map *grown = realloc(fx->maps, cap * sizeof(*grown));

		if (!grown)
			return -1;
		fx->maps = grown;
		fx->cap = cap;
	}
	m = &fx->maps[fx->count];
	memset(m, 0, sizeof(*m));
	snprintf(m->kind, sizeof(m->kind), "%s", kind);
	m->start = start;
	m->end = end;
	memcpy(m->perms, perms, 4);
	m->offset = off;
	if (unhex(line + hexat, &m->name, &m->name_len) < 0) {
		free(m->name);
		return -1;
	}
	fx->count++;
	return 0;
}

/* Read lines until "ready PID" (want_ready) or "ok"; -1 on "err", the end or the deadline. */
static int read_until(struct fixture *fx, bool want_ready)
{
	long long deadline = fx->timeout_ms ? tu_deadline_in(fx->timeout_ms) : tu_deadline();
	char *line = malloc(LINE_MAX_BYTES);
	int rc = -1;

	while (line && linechild_line(&fx->io, line, LINE_MAX_BYTES, deadline) == 0) {
		if (!strncmp(line, "map ", 4)) {
			if (add_map(fx, line) < 0) {
				fprintf(stderr, "fixture: unreadable line: %.200s\n", line);
				break;
			}
		} else if (!strncmp(line, "sym ", 4)) {
			unsigned long long addr;

			if (sscanf(line + 4, "%63s %llx", fx->sym_name, &addr) != 2) {
				fprintf(stderr, "fixture: unreadable line: %.200s\n", line);
				break;
			}
			fx->sym_addr = addr;
		} else if (!strncmp(line, "skip anon-named ", 16)) {
			fx->anon_named_skipped = true;
			snprintf(fx->skip_reason, sizeof(fx->skip_reason), "%.200s", line + 16);
		} else if (want_ready && !strncmp(line, "ready ", 6)) {
			rc = 0;
			break;
		} else if (!want_ready && !strcmp(line, "ok")) {
			rc = 0;
			break;
		} else if (!strncmp(line, "err", 3)) {
			fprintf(stderr, "fixture: %s\n", line);
			break;
		}
	}
	free(line);
	return rc;
}

int fixture_start(struct fixture *fx)
{
	return fixture_start_with(fx, &(struct fixture_opts){ 0 });
}

int fixture_start_with(struct fixture *fx, const struct fixture_opts *o)
{
	const char *name = o->prog ? o->prog : "ms-fixture";
	char *prog = tu_built(name);
	const char *argv[3] = { name, NULL, NULL };

	memset(fx, 0, sizeof(*fx));
	fx->pid = -1;
	fx->io.pid = -1;
	fx->io.to = fx->io.from = -1;
	fx->timeout_ms = o->timeout_ms;
	if (!getenv("MS_FIXTURE")) {
		fprintf(stderr, "MS_FIXTURE is not set (run through make check)\n");
		free(prog);
		return -1;
	}
	if (!o->no_dir) {
		fx->own_dir = !o->dir;
		fx->dir = o->dir ? strdup(o->dir) : tu_tmpdir();
		if (!fx->dir) {
			perror("fixture directory");
			free(prog);
			return -1;
		}
		argv[1] = fx->dir;
	}
	if (linechild_start(&fx->io, prog, argv, o->env) < 0 || read_until(fx, true) < 0) {
		fprintf(stderr, "%s did not start\n", name);
		free(prog);
		return -1;
	}
	free(prog);
	fx->pid = fx->io.pid;
	snprintf(fx->pidstr, sizeof(fx->pidstr), "%d", (int)fx->pid);
	return 0;
}

int fixture_setup_with(void **state, const struct fixture_opts *o)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	*state = fx;
	return fx && fixture_start_with(fx, o) == 0 ? 0 : -1;
}

int fixture_setup(void **state)
{
	return fixture_setup_with(state, &(struct fixture_opts){ 0 });
}

int fixture_teardown(void **state)
{
	if (*state)
		fixture_stop(*state);
	free(*state);
	*state = NULL;
	return 0;
}

int fixture_command(struct fixture *fx, const char *cmd)
{
	if (linechild_send(&fx->io, cmd) < 0)
		return -1;
	return read_until(fx, false);
}

int fixture_commandf(struct fixture *fx, const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	rc = fixture_command(fx, cmd);
	free(cmd);
	return rc;
}

static void forget_maps(struct fixture *fx)
{
	for (size_t i = 0; i < fx->count; i++)
		free(fx->maps[i].name);
	fx->count = 0;
}

int fixture_exec(struct fixture *fx)
{
	forget_maps(fx);
	if (linechild_send(&fx->io, "exec") < 0)
		return -1;
	return read_until(fx, true);
}

void fixture_kill(struct fixture *fx, bool reap)
{
	if (fx->pid <= 0)
		return;
	kill(fx->pid, SIGKILL);
	if (reap) {
		waitpid(fx->pid, NULL, 0);
		fx->pid = 0;
		fx->io.pid = -1;
	} else {
		/* Wait until it is a zombie, without reaping it. */
		siginfo_t si;

		waitid(P_PID, (id_t)fx->pid, &si, WEXITED | WNOWAIT);
	}
}

void fixture_stop(struct fixture *fx)
{
	linechild_stop(&fx->io);
	fx->pid = 0;
	if (fx->own_dir)
		tu_rmtree(fx->dir);
	free(fx->dir);
	fx->dir = NULL;
	forget_maps(fx);
	free(fx->maps);
	fx->maps = NULL;
	fx->cap = 0;
}

const struct fx_map *fixture_find(const struct fixture *fx, const char *kind)
{
	for (size_t i = 0; i < fx->count; i++)
		if (!strcmp(fx->maps[i].kind, kind))
			return &fx->maps[i];
	return NULL;
}

bool fixture_map_matches(const struct fx_map *m, unsigned filter)
{
	bool file_backed = m->name && m->name[0] == '/';

	if ((filter & MS_FILTER_READABLE) && m->perms[0] != 'r')
		return false;
	if ((filter & MS_FILTER_WRITABLE) && m->perms[1] != 'w')
		return false;
	if ((filter & MS_FILTER_EXECUTABLE) && m->perms[2] != 'x')
		return false;
	if ((filter & MS_FILTER_SHARED) && m->perms[3] != 's')
		return false;
	if ((filter & MS_FILTER_FILE_BACKED) && !file_backed)
		return false;
	return true;
}
