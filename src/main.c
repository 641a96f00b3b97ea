/* mapscope: argv -> command. */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/tui.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "list", cmd_list, "list PID        the mappings of a process" },
	{ "at", cmd_at, "at PID ADDR...  the mapping, file offset (and symbol) at addresses" },
	{ "stale", cmd_stale, "stale [PID...]  processes that map deleted or replaced files" },
	{ "who", cmd_who, "who FILE        the processes that map FILE" },
	{ "libs", cmd_libs, "libs [PATTERN]  every mapped file, one line each: package, version, processes" },
	{ "snapshot", cmd_snapshot, "snapshot PID    save a process's map as a JSON document" },
	{ "record", cmd_record, "record PID      append each change of a process's map to a JSON-lines file" },
	{ "diff", cmd_diff, "diff A B        compare two snapshots or live processes" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: mapscope COMMAND [options]\n"
#ifdef HAVE_LIBDW
		     "       mapscope [-p] [PID] [-d SECONDS] [--backend=WHICH] [--debuginfod]\n"
		     "                                                  (the explorer)\n\n"
#else
		     "       mapscope [-p] [PID] [-d SECONDS] [--backend=WHICH]   (the explorer)\n\n"
#endif
		     "Explore the memory mappings of Linux processes, read through the\n"
		     "PROCMAP_QUERY ioctl (Linux 6.11) with a /proc text fallback.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %s\n", commands[i].summary);
	fprintf(out, "\nOptions:\n"
		     "  -h, --help      this help; 'mapscope COMMAND --help' for a command's options\n"
		     "  -V, --version   the version\n\n"
		     "Exit status: 0 success, 1 the process is missing, unreadable or has no\n"
		     "such mapping, 2 usage error.  See mapscope(1).\n");
#ifndef HAVE_LIBDW
	fprintf(out, "\nBuilt without libdw: 'at' has no SYMBOL or SOURCE column, and the\n"
		     "explorer's g shows no symbol.\n");
#endif
}

int main(int argc, char **argv)
{
	/*
	 * The character set (widths, what is printable: escaping, the
	 * explorer) and the language of system error messages come from the
	 * environment.  Numbers do not: options and settings are read with
	 * strtod and always use '.'.  The other categories are not used, and
	 * loading each costs a file at every start.
	 */
	setlocale(LC_CTYPE, "");
	setlocale(LC_MESSAGES, "");
	/* A closed pipe (| head) should end us quietly through EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);

	/* No command, a PID or an explorer option: the interactive explorer. */
	if (argc < 2 || (argv[1][0] >= '0' && argv[1][0] <= '9') ||
	    (argv[1][0] == '-' && strcmp(argv[1], "-h") && strcmp(argv[1], "--help") &&
	     strcmp(argv[1], "-V") && strcmp(argv[1], "--version")))
		return tui_main(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return cli_stdout_done(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("mapscope %s\n", PACKAGE_VERSION);
		return cli_stdout_done(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error("unknown command '%.64s'", argv[1]);
	fprintf(stderr, "Try 'mapscope --help'.\n");
	return CLI_EXIT_USAGE;
}
