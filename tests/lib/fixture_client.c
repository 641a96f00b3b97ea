#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture_client.h"
#include "mapping.h"

static int unhex(const char *hex, char **out, size_t *len)
{
	size_t n = strlen(hex);

	if (!strcmp(hex, "-")) {
		*out = NULL;
		*len = 0;
		return 0;
	}
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

/* Read lines until one that starts with a stop word; 0 if "ready"/"ok". */
static int read_until(struct fixture *fx, int want_ready)
{
	char line[8192];

	while (fgets(line, sizeof(line), fx->from)) {
		char kind[32], perms[8], hex[4096];
		unsigned long long start, end, off;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "map %31s %llx %llx %7s %llx %4095s", kind, &start, &end, perms, &off, hex) == 6) {
			struct fx_map *m;

			if (fx->count == FX_MAX_MAPS)
				return -1;
			m = &fx->maps[fx->count++];
			memset(m, 0, sizeof(*m));
			snprintf(m->kind, sizeof(m->kind), "%s", kind);
			m->start = start;
			m->end = end;
			memcpy(m->perms, perms, 4);
			m->offset = off;
			if (unhex(hex, &m->name, &m->name_len) < 0)
				return -1;
		} else if (!strncmp(line, "skip anon-named ", 16)) {
			fx->anon_named_skipped = true;
			snprintf(fx->skip_reason, sizeof(fx->skip_reason), "%.200s", line + 16);
		} else if (want_ready && !strncmp(line, "ready ", 6)) {
			return 0;
		} else if (!want_ready && !strcmp(line, "ok")) {
			return 0;
		} else if (!strncmp(line, "err", 3)) {
			fprintf(stderr, "fixture: %s\n", line);
			return -1;
		}
	}
	return -1;
}

int fixture_start(struct fixture *fx)
{
	const char *bin = getenv("MS_FIXTURE");
	int in[2], out[2];

	memset(fx, 0, sizeof(*fx));
	fx->to = -1;
	if (!bin) {
		fprintf(stderr, "MS_FIXTURE is not set (run through make check)\n");
		return -1;
	}
	snprintf(fx->dir, sizeof(fx->dir), "%s/ms-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(fx->dir) || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
		perror("fixture setup");
		return -1;
	}
	fx->pid = fork();
	if (fx->pid < 0)
		return -1;
	if (fx->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execl(bin, "ms-fixture", fx->dir, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	fx->to = in[1];
	fx->from = fdopen(out[0], "r");
	if (!fx->from || read_until(fx, 1) < 0) {
		fprintf(stderr, "fixture did not start\n");
		return -1;
	}
	return 0;
}

int fixture_command(struct fixture *fx, const char *cmd)
{
	if (dprintf(fx->to, "%s\n", cmd) < 0)
		return -1;
	return read_until(fx, 0);
}

int fixture_exec(struct fixture *fx)
{
	for (size_t i = 0; i < fx->count; i++)
		free(fx->maps[i].name);
	fx->count = 0;
	if (dprintf(fx->to, "exec\n") < 0)
		return -1;
	return read_until(fx, 1);
}

void fixture_kill(struct fixture *fx, bool reap)
{
	if (fx->pid <= 0)
		return;
	kill(fx->pid, SIGKILL);
	if (reap) {
		waitpid(fx->pid, NULL, 0);
		fx->pid = 0;
	} else {
		/* Wait until it is a zombie, without reaping it. */
		siginfo_t si;

		waitid(P_PID, (id_t)fx->pid, &si, WEXITED | WNOWAIT);
	}
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

void fixture_stop(struct fixture *fx)
{
	if (fx->pid > 0) {
		kill(fx->pid, SIGKILL);
		waitpid(fx->pid, NULL, 0);
		fx->pid = 0;
	}
	if (fx->from)
		fclose(fx->from);
	if (fx->to >= 0)
		close(fx->to);
	fx->from = NULL;
	fx->to = -1;
	if (fx->dir[0])
		nftw(fx->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	fx->dir[0] = '\0';
	for (size_t i = 0; i < fx->count; i++)
		free(fx->maps[i].name);
	fx->count = 0;
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
