#include "config.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "elf/verdef.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The dotted number of NAME_N[.N...], or NULL when name is not of that form. */
static const char *number_of(const char *name)
{
	const char *us = strrchr(name, '_'), *p;
	bool letter = false;

	if (!us || us == name)
		return NULL;
	for (p = name; p < us; p++) {
		if (!is_letter(*p) && !is_digit(*p) && *p != '_')
			return NULL;
		letter |= is_letter(*p);
	}
	if (!letter)
		return NULL;
	for (p = us + 1;; p++) {
		if (!is_digit(*p))
			return NULL; /* a number starts each part */
		while (is_digit(*p))
			p++;
		if (!*p)
			return us + 1;
		if (*p != '.')
			return NULL;
	}
}

/* Two dotted numbers, part by part, each compared as a number of any length. */
static int cmp_numbers(const char *a, const char *b)
{
	for (;;) {
		size_t la, lb;
		int c;

		while (*a == '0' && is_digit(a[1]))
			a++;
		while (*b == '0' && is_digit(b[1]))
			b++;
		for (la = 0; is_digit(a[la]); la++)
			;
		for (lb = 0; is_digit(b[lb]); lb++)
			;
		if (la != lb)
			return la < lb ? -1 : 1;
		c = memcmp(a, b, la);
		if (c)
			return c < 0 ? -1 : 1;
		a += la;
		b += lb;
		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		a++; /* the dots */
		b++;
	}
}

int ms_verdef_cmp(const char *a, const char *b)
{
	const char *na = number_of(a), *nb = number_of(b);

	if (!na || !nb)
		return na ? 1 : nb ? -1 : 0;
	return cmp_numbers(na, nb);
}

#define VD_FIELD(f) offsetof(Elf64_Verdef, f), sizeof(((Elf64_Verdef *)0)->f)

_Static_assert(sizeof(Elf32_Verdef) == sizeof(Elf64_Verdef) &&
	       sizeof(Elf32_Verdaux) == sizeof(Elf64_Verdaux), "one layout for both classes");

int ms_verdef_of(struct ms_elfdyn *e, char out[MS_VERDEF_NAME_MAX + 1], struct ms_error *err)
{
	unsigned char vd[sizeof(Elf64_Verdef)], aux[sizeof(Elf64_Verdaux)];
	char name[MS_VERDEF_NAME_MAX + 1], best[MS_VERDEF_NAME_MAX + 1];
	uint64_t off, count;
	bool found = false;

	out[0] = '\0';
	if (!e->have_verdef)
		return ms_error_set(err, MS_END, 0, "no version definitions");
	if (e->have_verdefnum && e->verdefnum > MS_VERDEF_DEFS_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "over %u version definitions", MS_VERDEF_DEFS_MAX);
	count = e->have_verdefnum ? e->verdefnum : MS_VERDEF_DEFS_MAX;
	if (!ms_elfdyn_offset(e, e->verdef, &off))
		return ms_error_set(err, MS_ERR_LIMIT, 0, "version definitions outside the loaded segments");
	for (uint64_t i = 0; i < count; i++) {
		uint64_t version, flags, cnt, auxoff, next;

		if (!ms_elfdyn_read(e, off, sizeof(vd), vd))
			return ms_elfdyn_refuse(e, err, "version definition past the end of the file");
		version = ms_elfdyn_get(e, vd + VD_FIELD(vd_version));
		flags = ms_elfdyn_get(e, vd + VD_FIELD(vd_flags));
		cnt = ms_elfdyn_get(e, vd + VD_FIELD(vd_cnt));
		auxoff = ms_elfdyn_get(e, vd + VD_FIELD(vd_aux));
		next = ms_elfdyn_get(e, vd + VD_FIELD(vd_next));
		if (version != VER_DEF_CURRENT)
			return ms_error_set(err, MS_ERR_LIMIT, 0, "version definition of unknown revision %u",
					    (unsigned)version);
		if (!(flags & VER_FLG_BASE) && cnt > 0) {
			int rc;

			/* off is inside the file and auxoff 32-bit: the sum cannot wrap. */
			if (!ms_elfdyn_read(e, off + auxoff, sizeof(aux), aux))
				return ms_elfdyn_refuse(e, err, "version name entry past the end of the file");
			rc = ms_elfdyn_string(e, ms_elfdyn_get(e, aux + offsetof(Elf64_Verdaux, vda_name), 4),
					      "version name", name, MS_VERDEF_NAME_MAX, err);
			if (rc)
				return rc;
			if (number_of(name) && (!found || cmp_numbers(number_of(name), number_of(best)) > 0)) {
				memcpy(best, name, strlen(name) + 1);
				found = true;
			}
		}
		if (next == 0)
			break;
		off += next; /* forward only, by at most 4 GiB from inside the file */
	}
	if (!found)
		return ms_error_set(err, MS_END, 0, "no numbered version definition");
	memcpy(out, best, strlen(best) + 1);
	return 0;
}

int ms_verdef_read_fd(int fd, char out[MS_VERDEF_NAME_MAX + 1], struct ms_error *err)
{
	return ms_elfdyn_read_fd_with(fd, ms_verdef_of, out, err);
}

int ms_verdef_parse(const unsigned char *buf, size_t size, char out[MS_VERDEF_NAME_MAX + 1],
		    struct ms_error *err)
{
	return ms_elfdyn_parse_with(buf, size, ms_verdef_of, out, err);
}
