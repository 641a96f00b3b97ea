#include "config.h"

#include <signal.h>
#include <string.h>

#include "tui/stopsig.h"

static volatile sig_atomic_t caught;

static const int stop_signals[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };

static void on_stop_signal(int sig)
{
	caught = sig;
}

void tui_stopsig_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

bool tui_stopsig_pending(void)
{
	return caught != 0;
}

void tui_stopsig_reraise(void)
{
	int sig = caught;
	sigset_t set;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}
