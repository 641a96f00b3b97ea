/* notelib.c - shared libraries with or without a package note: see notelib.h. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notelib.h"
#include "testutil.h"

bool tu_have_cc(void)
{
	static int have = -1;

	if (have < 0)
		have = system("cc --version >/dev/null 2>&1") == 0;
	return have == 1;
}

char *tu_build_so(const char *dir, const char *name, const char *json)
{
	char *src = tu_join(dir, "f.c"), *out = tu_join(dir, name), *opt = NULL;
	int status = -1;
	pid_t pid;

	if (!src || !out || tu_spit(src, "int ms_pkgnote_test_f(void) { return 1; }\n") != 0 ||
	    (json && asprintf(&opt, "--package-metadata=%s", json) < 0)) {
		free(src);
		free(out);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 2);
		if (opt)
			execlp("cc", "cc", "-shared", "-fPIC", "-o", out, src, "-Xlinker", opt, (char *)NULL);
		else
			execlp("cc", "cc", "-shared", "-fPIC", "-o", out, src, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		out = NULL;
	}
	free(src);
	free(opt);
	return out;
}
