/* placeholder */
#include "config.h"
#include "cli/cli.h"
int cmd_diff(int argc, char **argv) { (void)argc; (void)argv; return CLI_EXIT_USAGE; }
