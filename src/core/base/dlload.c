#include "config.h"

#include <dlfcn.h>

#include "base/dlload.h"

bool ms_dl_load(struct ms_dl *dl, const char *soname, const struct ms_dl_sym *syms, size_t n)
{
	void *h;

	if (dl->tried)
		return dl->loaded;
	dl->tried = true;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	dl->loaded = true;
	for (size_t i = 0; i < n; i++)
		if (!(*syms[i].slot = dlsym(h, syms[i].name)))
			dl->loaded = false;
	if (!dl->loaded)
		dlclose(h);
	return dl->loaded;
}

void ms_dl_forget(struct ms_dl *dl)
{
	dl->tried = false;
	dl->loaded = false;
}
