/*
 * ms-bench-gen: a process that holds about N memory mappings, for make bench.
 *
 * Usage: ms-bench-gen N DIR     (DIR must exist and be writable)
 *
 * The mix imitates a big real process: mostly anonymous mappings, a few
 * hundred of files in DIR (some executable), and a few anonymous executable
 * ones (as a JIT makes).  Every mapping differs in permissions or backing
 * from both neighbours, so the kernel cannot merge them (vma_merge in
 * mm/vma.c needs equal flags and, for files, contiguous offsets of one file).
 * A quarter of the writable pages are touched, so residency is not all zero.
 *
 * It prints "ready PID COUNT" (COUNT: the mappings /proc/self/maps shows)
 * and then waits for a signal.  It dies with its parent (PR_SET_PDEATHSIG),
 * so an interrupted make bench leaves nothing behind.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NFILES 30
#define FILE_PAGES 64
#define MAX_FILE_MAPS 300

static void die(const char *what)
{
	fprintf(stderr, "ms-bench-gen: %s: %s\n", what, strerror(errno));
	exit(3);
}

static long count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	long n = 0;
	int c;

	if (!f)
		die("/proc/self/maps");
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void make_files(const char *dir, long page, int fds[NFILES])
{
	char path[4096];

	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/libgen-%02d.so", dir, i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fds[i] < 0)
			die(path);
		if (ftruncate(fds[i], FILE_PAGES * page) < 0)
			die("ftruncate");
	}
}

int main(int argc, char **argv)
{
	int fds[NFILES];
	long page = sysconf(_SC_PAGESIZE), want, base, slots, nfile, stride, filemaps = 0, anon = 0;
	char *area;

	if (argc != 3 || (want = strtol(argv[1], NULL, 10)) < 100) {
		fprintf(stderr, "usage: ms-bench-gen N DIR   (N >= 100)\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	make_files(argv[2], page, fds);
	base = count_maps();
	slots = want - base;
	if (slots < 10)
		slots = 10;
	nfile = slots / 20 < MAX_FILE_MAPS ? slots / 20 : MAX_FILE_MAPS;
	stride = slots / (nfile ? nfile : 1);
	area = mmap(NULL, (size_t)slots * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		die("reserve");
	for (long i = 0; i < slots; i++) {
		char *at = area + i * page;
		void *got;

		if (nfile && i % stride == stride / 2 && filemaps < nfile) {
			int prot = filemaps % 2 ? PROT_READ | PROT_EXEC : PROT_READ;
			off_t off = (off_t)((filemaps / NFILES) % FILE_PAGES) * page;

			got = mmap(at, (size_t)page, prot, MAP_PRIVATE | MAP_FIXED,
				   fds[filemaps % NFILES], off);
			filemaps++;
		} else {
			/* Odd slots read-only, even ones writable or (1 in 40) executable. */
			int prot = i % 2 ? PROT_READ : anon % 40 == 0 ? PROT_READ | PROT_EXEC
								      : PROT_READ | PROT_WRITE;

			got = mmap(at, (size_t)page, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (got != MAP_FAILED && (prot & PROT_WRITE) && anon % 4 == 0)
				*(volatile char *)got = 1;
			anon++;
		}
		if (got == MAP_FAILED)
			die("mmap (is vm.max_map_count big enough?)");
	}
	for (int i = 0; i < NFILES; i++)
		close(fds[i]);
	printf("ready %d %ld\n", (int)getpid(), count_maps());
	fflush(stdout);
	for (;;)
		pause();
}
