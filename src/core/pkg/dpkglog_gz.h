/*
 * dpkglog_gz.h - a gzip file read through zlib, which is loaded with
 * dlopen the first time a rotated dpkg log (dpkg.log.N.gz) is read
 * (dlload.h): no command pays for it at start.  Built without zlib's
 * header (configure --with-zlib=no), or where libz.so.1 cannot be loaded,
 * ms_gz_open fails and the caller treats the file as unreadable.
 *
 * ms_gz_open reads a duplicate of fd, which the caller still owns and
 * closes.  ms_gz_read gives up to size bytes of the decompressed stream
 * (concatenated members included): a count, 0 at the end, -1 on any
 * error (a truncated or corrupt file).  It never gives more than asked, so
 * the caller bounds what a small file that inflates hugely can cost.
 */
#ifndef MAPSCOPE_DPKGLOG_GZ_H
#define MAPSCOPE_DPKGLOG_GZ_H

#include <stddef.h>

struct ms_gz;

/* 0, or -1 (no zlib, or out of memory). */
int ms_gz_open(int fd, struct ms_gz **out);
long long ms_gz_read(struct ms_gz *z, void *buf, size_t size);
void ms_gz_close(struct ms_gz *z);

#endif
