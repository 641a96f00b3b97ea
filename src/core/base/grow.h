/*
 * grow.h - growing an array by doubling, with the size arithmetic checked.
 *
 * ms_grow makes room for one more element: when count has reached *cap, it
 * reallocates *items to twice the capacity (or `first` elements the first
 * time).  It refuses, with MS_ERR_NOMEM and *items untouched, when the new
 * size in bytes would not fit in size_t, so no caller multiplies unchecked.
 */
#ifndef MAPSCOPE_GROW_H
#define MAPSCOPE_GROW_H

#include <stddef.h>

int ms_grow(void **items, size_t *cap, size_t count, size_t elem, size_t first);

#endif
