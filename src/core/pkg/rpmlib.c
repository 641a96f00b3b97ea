/* rpmlib.c - librpm through dlopen: see rpmlib.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pkg/pkg_status.h"
#include "pkg/rpmlib.h"

void ms_rpmlib_source(const char *srpm, struct ms_pkg *p)
{
	static const char suffix[] = ".src.rpm";
	size_t len = srpm ? strlen(srpm) : 0, vr_end, name_len, dashes = 0;
	const char *vr;

	p->src_name[0] = p->src_version[0] = '\0';
	if (len <= sizeof(suffix) - 1 || strcmp(srpm + len - (sizeof(suffix) - 1), suffix))
		return;
	vr_end = len - (sizeof(suffix) - 1);
	/* NAME-VERSION-RELEASE: the name ends at the second '-' from the end. */
	for (name_len = vr_end; name_len > 0 && dashes < 2; name_len--)
		dashes += srpm[name_len - 1] == '-';
	if (dashes < 2 || !name_len || name_len >= sizeof(p->src_name) || vr_end - name_len - 1 >= sizeof(p->src_version))
		return;
	vr = srpm + name_len + 1;
	ms_pkg_copy_field(p->src_name, sizeof(p->src_name), srpm, name_len);
	if (strlen(ms_pkg_without_epoch(p->version)) != (size_t)(vr_end - name_len - 1) ||
	    strncmp(ms_pkg_without_epoch(p->version), vr, vr_end - name_len - 1))
		ms_pkg_copy_field(p->src_version, sizeof(p->src_version), vr, vr_end - name_len - 1);
}

#ifdef HAVE_LIBRPM

#include <fcntl.h>
#include <stdio.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmts.h>

#include "base/dlload.h"

/* Every function used, as X(name); the pointers have librpm's types. */
#define RPM_FUNCS(X) \
	X(rpmPushMacro) X(rpmPopMacro) X(rpmlogSetCallback) X(rpmtsCreate) X(rpmtsFree) \
	X(rpmtsSetRootDir) X(rpmtsVSFlags) X(rpmtsSetVSFlags) X(rpmtsOpenDB) X(rpmtsInitIterator) \
	X(rpmdbNextIterator) X(rpmdbFreeIterator) X(headerGetString) X(headerGetNumber) X(headerIsEntry)

static struct {
	struct ms_dl dl;
	char soname[128]; /* the one dl was tried with */
#define X(f) __typeof__(&f) f;
	RPM_FUNCS(X)
#undef X
} rpm;

struct ms_rpmlib {
	rpmts ts;
	rpmlogCallback old_log; /* its data is lost: mapscope sets none */
};

static bool rpm_load(const char *soname)
{
	const struct ms_dl_sym syms[] = {
#define X(f) { #f, (void **)&rpm.f },
		RPM_FUNCS(X)
#undef X
	};

	if (strlen(soname) >= sizeof(rpm.soname))
		return false;
	if (strcmp(rpm.soname, soname) != 0) {
		ms_dl_forget(&rpm.dl);
		strcpy(rpm.soname, soname);
	}
	return ms_dl_load(&rpm.dl, soname, syms, sizeof(syms) / sizeof(syms[0]));
}

/* Keeps librpm's messages off the terminal: the database answers nothing instead. */
static int rpm_quiet(rpmlogRec rec, rpmlogCallbackData data)
{
	(void)rec;
	(void)data;
	return 0;
}

struct ms_rpmlib *ms_rpmlib_open(const char *root, const char *dbpath, const char *soname)
{
	struct ms_rpmlib *s;

	if (!rpm_load(soname ? soname : RPM_SONAME))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->old_log = rpm.rpmlogSetCallback(rpm_quiet, NULL);
	rpm.rpmPushMacro(NULL, "_dbpath", NULL, dbpath, RMIL_CMDLINE);
	s->ts = rpm.rpmtsCreate();
	if (s->ts && rpm.rpmtsSetRootDir(s->ts, root) == 0) {
		rpm.rpmtsSetVSFlags(s->ts, rpm.rpmtsVSFlags(s->ts) | RPMVSF_MASK_NODIGESTS |
						   RPMVSF_MASK_NOSIGNATURES);
		if (rpm.rpmtsOpenDB(s->ts, O_RDONLY) == 0)
			return s;
	}
	ms_rpmlib_close(s);
	return NULL;
}

static bool fits(const char *text, size_t size)
{
	return text && *text && strlen(text) < size;
}

/* Header h into *p when it fits; false otherwise. */
static bool take(Header h, struct ms_pkg *p)
{
	const char *name = rpm.headerGetString(h, RPMTAG_NAME);
	const char *version = rpm.headerGetString(h, RPMTAG_VERSION);
	const char *release = rpm.headerGetString(h, RPMTAG_RELEASE);
	const char *arch = rpm.headerGetString(h, RPMTAG_ARCH);
	int n;

	if (!fits(name, sizeof(p->name)) || !version || !release || (arch && strlen(arch) >= sizeof(p->arch)))
		return false;
	if (rpm.headerIsEntry(h, RPMTAG_EPOCH))
		n = snprintf(p->version, sizeof(p->version), "%llu:%s-%s",
			     (unsigned long long)rpm.headerGetNumber(h, RPMTAG_EPOCH), version, release);
	else
		n = snprintf(p->version, sizeof(p->version), "%s-%s", version, release);
	if (n < 0 || (size_t)n >= sizeof(p->version))
		return false;
	strcpy(p->name, name);
	strcpy(p->arch, arch ? arch : "");
	ms_rpmlib_source(rpm.headerGetString(h, RPMTAG_SOURCERPM), p);
	return true;
}

static bool sorts_before(const struct ms_pkg *a, const struct ms_pkg *b)
{
	int c = strcmp(a->name, b->name);

	return c < 0 || (c == 0 && strcmp(a->arch, b->arch) < 0);
}

bool ms_rpmlib_owner(struct ms_rpmlib *s, const char *path, struct ms_pkg *out)
{
	rpmdbMatchIterator mi = rpm.rpmtsInitIterator(s->ts, RPMDBI_INSTFILENAMES, path, 0);
	struct ms_pkg best = { .found = false }, one;
	Header h;

	for (size_t seen = 0; mi && seen < MS_RPMLIB_OWNERS_MAX && (h = rpm.rpmdbNextIterator(mi)); seen++) {
		one = (struct ms_pkg){ .found = true, .source = MS_PKG_SOURCE_RPM };
		if (take(h, &one) && (!best.found || sorts_before(&one, &best)))
			best = one;
	}
	rpm.rpmdbFreeIterator(mi);
	if (best.found)
		*out = best;
	return best.found;
}

void ms_rpmlib_close(struct ms_rpmlib *s)
{
	if (!s)
		return;
	if (s->ts)
		rpm.rpmtsFree(s->ts);
	rpm.rpmPopMacro(NULL, "_dbpath");
	rpm.rpmlogSetCallback(s->old_log, NULL);
	free(s);
}

#else /* !HAVE_LIBRPM */

struct ms_rpmlib *ms_rpmlib_open(const char *root, const char *dbpath, const char *soname)
{
	(void)root;
	(void)dbpath;
	(void)soname;
	return NULL;
}

bool ms_rpmlib_owner(struct ms_rpmlib *s, const char *path, struct ms_pkg *out)
{
	(void)s;
	(void)path;
	(void)out;
	return false;
}

void ms_rpmlib_close(struct ms_rpmlib *s)
{
	free(s);
}

#endif
