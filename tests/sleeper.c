/*
 * ms-sleeper: a program to run from a test's FUSE mount
 * (tests/lib/fuse_server.h, fuse_exec_in_child).  It writes one byte to
 * stdout once it runs its own code, so the test knows exec and the dynamic
 * loader are done with the file, then waits to be killed.
 */
#include <unistd.h>

int main(void)
{
	if (write(STDOUT_FILENO, "r", 1) != 1)
		return 1;
	for (;;)
		pause();
}
