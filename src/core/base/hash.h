/*
 * hash.h - one keyed hash for the tables whose keys another process
 * chooses (its mapped file names, its inode numbers).
 *
 * ms_hash_seed is drawn once per run from getrandom (a weak fallback of
 * time, PID and an address when that fails): a process cannot choose names
 * that collide in every run of mapscope.  ms_hash_bytes folds a byte
 * string into a hash eight bytes at a time, its length included, so
 * strings that differ only by trailing NULs differ; ms_hash_mix folds one
 * word.  Not cryptographic: it only spreads keys over buckets.  Thread
 * safe: racing first calls may each draw a seed, but the first one stored
 * is the one every call of the run answers, theirs included.
 */
#ifndef MAPSCOPE_HASH_H
#define MAPSCOPE_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t ms_hash_seed(void);
uint64_t ms_hash_mix(uint64_t h, uint64_t v);
uint64_t ms_hash_bytes(uint64_t h, const char *p, size_t len);

#endif
