/*
 * sbom_hash.c - the SHA-256 of a file no package owns, found again after
 * the walk through the mapping that named its row: see sbom.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/sbom.h"
#include "untrusted/lookup.h"
#include "untrusted/mapfiles.h"

#define HASH_CHUNK (64u << 10)

_Static_assert(MS_SBOM_HASH_FILE_MAX == 64u << 20 && MS_SBOM_HASH_TOTAL_MAX == 512u << 20 &&
	       MS_SBOM_HASH_FILES == 4096, "the reasons name the bounds");

/* Read fd whole (at most size bytes, as fstat said) into hex.  false with why. */
static bool hash_fd(int fd, uint64_t size, char hex[MS_SHA256_HEX_LEN + 1], char *why, size_t why_size)
{
	static unsigned char buf[HASH_CHUNK];
	unsigned char digest[MS_SHA256_LEN];
	struct ms_sha256 h;
	uint64_t done = 0;

	ms_sha256_init(&h);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_size, "reading the file failed: %s", strerror(errno));
			return false;
		}
		if (n == 0)
			break;
		done += (uint64_t)n;
		if (done > size) {
			snprintf(why, why_size, "the file grew while it was read");
			return false;
		}
		ms_sha256_update(&h, buf, (size_t)n);
	}
	if (done != size) {
		snprintf(why, why_size, "the file shrank while it was read");
		return false;
	}
	ms_sha256_final(&h, digest);
	ms_sha256_hex(digest, hex);
	return true;
}

bool ms_sbom_hash_row(struct ms_libtable *t, const struct ms_libtable_row *r, struct ms_sbom *s,
		      char hex[MS_SHA256_HEX_LEN + 1], char *why, size_t why_size)
{
	struct ms_mapping m = { .start = r->map_start, .end = r->map_end, .inode = r->inode,
				.dev_major = r->dev_major, .dev_minor = r->dev_minor, .name = r->name,
				.name_len = r->name_len, .name_ambiguous = r->name_ambiguous };
	struct ms_lookup_root root;
	struct ms_proc *proc;
	struct ms_error err;
	struct stat st;
	bool ok;
	int fd;

	if (s->hashed_files >= MS_SBOM_HASH_FILES) {
		snprintf(why, why_size, "too many files: hashes are computed for the first 4096");
		return false;
	}
	if (r->map_proc >= t->nprocs || ms_proc_open(t->procs[r->map_proc].pid, &proc, &err) < 0) {
		snprintf(why, why_size, "the process that mapped it went away");
		return false;
	}
	ms_lookup_root_of(t->lookups, proc, &root);
	if (root.fd < 0) {
		snprintf(why, why_size, "the process's root cannot be opened");
		ms_proc_close(proc);
		return false;
	}
	fd = ms_mapfiles_open_mapped(t->lookups, &root, proc, &m, NULL, why, why_size, NULL);
	ms_lookup_root_release(&root);
	ms_proc_close(proc);
	if (fd < 0) {
		if (fd == MS_ERR_NOMEM)
			snprintf(why, why_size, "out of memory");
		return false;
	}
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_ino == r->inode;
	if (!ok)
		snprintf(why, why_size, "the file changed under us");
	else if ((uint64_t)st.st_size > MS_SBOM_HASH_FILE_MAX)
		snprintf(why, why_size, "larger than 64 MiB: not hashed"), ok = false;
	else if (s->hashed_bytes + (uint64_t)st.st_size > MS_SBOM_HASH_TOTAL_MAX)
		snprintf(why, why_size, "past the 512 MiB hashed in one run: not hashed"), ok = false;
	if (ok) {
		s->hashed_files++;
		s->hashed_bytes += (uint64_t)st.st_size;
		ok = hash_fd(fd, (uint64_t)st.st_size, hex, why, why_size);
	}
	close(fd);
	return ok;
}
