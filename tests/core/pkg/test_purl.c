/*
 * Package URLs (purl.h) and the distribution they name (osrelease.h): each
 * type's shape, the pypi, npm and deb normalisations, rpm's epoch as a
 * qualifier, the distro qualifier (VERSION_ID, else VERSION_CODENAME, else
 * none), the upstream qualifier from the source package (deb SOURCE and
 * SOURCE@VERSION, rpm's source rpm, only for the installed version), the
 * qualifiers in key order, the spec's percent-encoding (once, from raw
 * bytes), hostile names and sources, the source rpm's file name split
 * (rpmlib.h), and os-release's quoting and its ID's allowed characters.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pkg/osrelease.h"
#include "pkg/purl.h"
#include "pkg/rpmlib.h"

static struct ms_pkg pkg(enum ms_pkg_source source, const char *name, const char *arch)
{
	struct ms_pkg p = { .found = true, .source = source };

	strcpy(p.name, name);
	strcpy(p.arch, arch);
	return p;
}

/* A distribution as os-release names it: ID, VERSION_ID, VERSION_CODENAME. */
static struct ms_osrelease os_of(const char *id, const char *version_id, const char *codename)
{
	struct ms_osrelease os = { .id = "" };

	strcpy(os.id, id);
	strcpy(os.version_id, version_id);
	strcpy(os.version_codename, codename);
	return os;
}

static const char *purl(const struct ms_pkg *p, const char *version, const struct ms_osrelease *os)
{
	static char out[MS_PURL_MAX];

	if (!ms_purl_of(p, version, os, out, sizeof(out)))
		return "(none)";
	return out;
}

static void test_deb(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_DPKG, "libssl3", "amd64"), bash = pkg(MS_PKG_SOURCE_DPKG, "Bash", "");
	struct ms_osrelease debian = os_of("debian", "12", "bookworm"), ubuntu = os_of("ubuntu", "24.04", "noble");
	struct ms_osrelease sid = os_of("debian", "", "trixie"), bare = os_of("debian", "", ""), none = os_of("", "12", "");

	(void)state;
	strcpy(p.version, "3.0.17-1~deb12u2");
	strcpy(p.src_name, "openssl");
	assert_string_equal(purl(&p, "3.0.17-1~deb12u2", &debian),
			    "pkg:deb/debian/libssl3@3.0.17-1~deb12u2?arch=amd64&distro=debian-12&upstream=openssl");
	/* Ubuntu under its own ID; an epoch's ':' stays, '+' is encoded. */
	assert_string_equal(purl(&p, "1:2.4.47-2+b1", &ubuntu),
			    "pkg:deb/ubuntu/libssl3@1:2.4.47-2+b1?arch=amd64&distro=ubuntu-24.04&upstream=openssl");
	/* No VERSION_ID (Debian testing): the codename; with neither, no distro. */
	assert_string_equal(purl(&p, "1", &sid), "pkg:deb/debian/libssl3@1?arch=amd64&distro=debian-trixie&upstream=openssl");
	assert_string_equal(purl(&p, "1", &bare), "pkg:deb/debian/libssl3@1?arch=amd64&upstream=openssl");
	/* No architecture named: no qualifier rather than a guess; a source of its own name says nothing. */
	strcpy(bash.version, "5.2.15-2+b8");
	strcpy(bash.src_name, "Bash");
	assert_string_equal(purl(&bash, "5.2.15-2+b8", &debian), "pkg:deb/debian/bash@5.2.15-2+b8?distro=debian-12");
	/* A binNMU: the source's own version, '@' encoded. */
	strcpy(bash.arch, "amd64");
	strcpy(bash.src_version, "5.2.15-2");
	assert_string_equal(purl(&bash, "5.2.15-2+b8", &debian),
			    "pkg:deb/debian/bash@5.2.15-2+b8?arch=amd64&distro=debian-12&upstream=Bash%405.2.15-2");
	/* A replaced copy of another version: its source's version is not known, the name is. */
	assert_string_equal(purl(&bash, "5.2.15-1", &debian), "pkg:deb/debian/bash@5.2.15-1?arch=amd64&distro=debian-12");
	strcpy(bash.src_name, "bash-src");
	assert_string_equal(purl(&bash, "5.2.15-1", &debian),
			    "pkg:deb/debian/bash@5.2.15-1?arch=amd64&distro=debian-12&upstream=bash-src");
	/* What runs cannot be known: no version. */
	assert_string_equal(purl(&p, NULL, &debian), "pkg:deb/debian/libssl3?arch=amd64&distro=debian-12&upstream=openssl");
	/* A deb purl needs its distribution. */
	assert_string_equal(purl(&p, "1", NULL), "(none)");
	assert_string_equal(purl(&p, "1", &none), "(none)");
}

/* The source package ms_rpmlib_source takes from a source rpm's file name. */
static void srpm(struct ms_pkg *p, const char *file, const char *name, const char *version)
{
	ms_rpmlib_source(file, p);
	assert_string_equal(p->src_name, name);
	assert_string_equal(p->src_version, version);
}

static void test_rpm(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_RPM, "CenterIM", "i686"), noarch = pkg(MS_PKG_SOURCE_RPM, "curl", "");
	struct ms_pkg ssl = pkg(MS_PKG_SOURCE_RPM, "openssl-libs", "x86_64");
	struct ms_osrelease fedora = os_of("fedora", "40", ""), rhel = os_of("rhel", "9.3", "Plow");

	(void)state;
	/* rpm names keep their case; the epoch becomes a qualifier, in key order. */
	assert_string_equal(purl(&p, "1:4.22.10-1.el6", &fedora),
			    "pkg:rpm/fedora/CenterIM@4.22.10-1.el6?arch=i686&distro=fedora-40&epoch=1");
	assert_string_equal(purl(&noarch, "2:7.50.3-1.fc25", &fedora), "pkg:rpm/fedora/curl@7.50.3-1.fc25?distro=fedora-40&epoch=2");
	assert_string_equal(purl(&noarch, "7.50.3-1.fc25", NULL), "(none)");
	/* The source rpm from its file name, rebuilt for the upstream qualifier. */
	strcpy(ssl.version, "1:3.0.7-27.el9");
	srpm(&ssl, "openssl-3.0.7-27.el9.src.rpm", "openssl", "");
	assert_string_equal(purl(&ssl, "1:3.0.7-27.el9", &rhel),
			    "pkg:rpm/rhel/openssl-libs@3.0.7-27.el9?arch=x86_64&distro=rhel-9.3&epoch=1"
			    "&upstream=openssl-3.0.7-27.el9.src.rpm");
	/* A replaced copy: its own version's source rpm. */
	assert_string_equal(purl(&ssl, "1:3.0.7-24.el9", &rhel),
			    "pkg:rpm/rhel/openssl-libs@3.0.7-24.el9?arch=x86_64&distro=rhel-9.3&epoch=1"
			    "&upstream=openssl-3.0.7-24.el9.src.rpm");
	assert_string_equal(purl(&ssl, NULL, &rhel), "pkg:rpm/rhel/openssl-libs?arch=x86_64&distro=rhel-9.3");
	/* A source rpm of another version: named for the installed version only; '+' and '~' in a qualifier as packageurl-js writes them (%2B, %7E). */
	srpm(&ssl, "gcc-toolset-12-12.2.1~rc+1-7.el9.src.rpm", "gcc-toolset-12", "12.2.1~rc+1-7.el9");
	assert_string_equal(purl(&ssl, "1:3.0.7-27.el9", &rhel),
			    "pkg:rpm/rhel/openssl-libs@3.0.7-27.el9?arch=x86_64&distro=rhel-9.3&epoch=1"
			    "&upstream=gcc-toolset-12-12.2.1%7Erc%2B1-7.el9.src.rpm");
	assert_string_equal(purl(&ssl, "3.0.7-26.el9", &rhel),
			    "pkg:rpm/rhel/openssl-libs@3.0.7-26.el9?arch=x86_64&distro=rhel-9.3");
	/* File names of another form name no source. */
	srpm(&ssl, "openssl-3.0.7-27.el9.nosrc.rpm", "", "");
	srpm(&ssl, "openssl-3.src.rpm", "", "");
	srpm(&ssl, "-1-2.src.rpm", "", "");
	srpm(&ssl, NULL, "", "");
	assert_string_equal(purl(&ssl, "1:3.0.7-27.el9", &rhel),
			    "pkg:rpm/rhel/openssl-libs@3.0.7-27.el9?arch=x86_64&distro=rhel-9.3&epoch=1");
}

/* pypi: lower-cased, each run of '-', '_' and '.' one '-'; no namespace, no qualifier. */
static void test_pypi(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_PYTHON, "Zope_Interface", ""), runs = pkg(MS_PKG_SOURCE_PYTHON, "a._-B..c", "");
	struct ms_osrelease debian = os_of("debian", "12", "");

	(void)state;
	assert_string_equal(purl(&p, "5.4.0+local", NULL), "pkg:pypi/zope-interface@5.4.0+local");
	assert_string_equal(purl(&p, "5.4.0", &debian), "pkg:pypi/zope-interface@5.4.0");
	assert_string_equal(purl(&runs, "1", NULL), "pkg:pypi/a-b-c@1");
}

/*
 * npm: "@SCOPE/NAME" is the namespace %40SCOPE and the name, both
 * lower-cased; the version kept as it is (case-sensitive); no vendor, no
 * qualifier.  A name with a slash but no scope is one name, its slash
 * encoded; a second slash after a scope stays in the name, encoded.
 */
static void test_npm(void **state)
{
	struct ms_pkg scoped = pkg(MS_PKG_SOURCE_NPM, "@img/sharp-libvips-linux-x64", "");
	struct ms_pkg upper = pkg(MS_PKG_SOURCE_NPM, "@My.Scope/JSONStream", "");
	struct ms_pkg plain = pkg(MS_PKG_SOURCE_NPM, "lodash", "");
	struct ms_pkg odd = pkg(MS_PKG_SOURCE_NPM, "a/b", ""), odd2 = pkg(MS_PKG_SOURCE_NPM, "@s/a/b", "");
	struct ms_osrelease debian = os_of("debian", "12", "");

	(void)state;
	assert_string_equal(purl(&scoped, "1.3.5", NULL), "pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5");
	assert_string_equal(purl(&scoped, "1.3.5", &debian), "pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5");
	assert_string_equal(purl(&upper, "1.0.0-RC.1+Build", NULL), "pkg:npm/%40my.scope/jsonstream@1.0.0-RC.1+Build");
	assert_string_equal(purl(&plain, "4.17.21", NULL), "pkg:npm/lodash@4.17.21");
	assert_string_equal(purl(&plain, "", NULL), "pkg:npm/lodash");
	assert_string_equal(purl(&odd, "1", NULL), "pkg:npm/a%2Fb@1");
	assert_string_equal(purl(&odd2, "1", NULL), "pkg:npm/%40s/a%2Fb@1");
}

/* A file its ELF package note owns: the note's type where we write it, else generic. */
static void test_note(void **state)
{
	struct ms_pkg deb = pkg(MS_PKG_SOURCE_NOTE, "OpenSSL", "amd64"), rpm = pkg(MS_PKG_SOURCE_NOTE, "curl", "x86_64");
	struct ms_pkg other = pkg(MS_PKG_SOURCE_NOTE, "Zlib", ""), none = pkg(MS_PKG_SOURCE_NOTE, "x", "");
	struct ms_osrelease debian = os_of("debian", "12", ""), fedora = os_of("fedora", "40", "");

	(void)state;
	strcpy(deb.note_type, "deb");
	strcpy(rpm.note_type, "rpm");
	strcpy(other.note_type, "alpm");
	assert_string_equal(purl(&deb, "3.0.11-1", &debian), "pkg:deb/debian/openssl@3.0.11-1?arch=amd64&distro=debian-12");
	assert_string_equal(purl(&rpm, "1:8.6.0-7.fc40", &fedora),
			    "pkg:rpm/fedora/curl@8.6.0-7.fc40?arch=x86_64&distro=fedora-40&epoch=1");
	assert_string_equal(purl(&other, "1.3+x", &debian), "pkg:generic/Zlib@1.3+x");
	/* No distribution to name: generic, never a deb purl without its namespace. */
	assert_string_equal(purl(&deb, "3.0.11-1", NULL), "pkg:generic/OpenSSL@3.0.11-1?arch=amd64");
	assert_string_equal(purl(&none, "1", NULL), "pkg:generic/x@1");
}

/*
 * Hostile bytes: encoded once, from the raw name, so no separator gets
 * through and a parser gives the name back; a byte that is not UTF-8 as
 * U+FFFD, which a component must decode to.  A source, architecture or
 * os-release field can add no qualifier either.
 */
static void test_hostile(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_PYTHON, "a/b@c?d#e f\n\xff", ""), none = pkg(MS_PKG_SOURCE_NONE, "x", "");
	struct ms_pkg evil = pkg(MS_PKG_SOURCE_PYTHON, "ev\"il}\\pkg", "");
	struct ms_pkg odd = pkg(MS_PKG_SOURCE_PYTHON, "a:b(c)!*'~", "");
	struct ms_pkg deb = pkg(MS_PKG_SOURCE_DPKG, "x", "amd64&epoch=9");
	struct ms_osrelease os = os_of("debian", "12&arch=evil", "");
	struct ms_pkg big = pkg(MS_PKG_SOURCE_DPKG, "", "");
	struct ms_osrelease huge = os_of("debian", "", "");
	static char out[MS_PURL_MAX];

	(void)state;
	assert_string_equal(purl(&p, "1@2", NULL), "pkg:pypi/a%2Fb%40c%3Fd%23e%20f%0A%EF%BF%BD@1%402");
	assert_string_equal(purl(&evil, "1\\0", NULL), "pkg:pypi/ev%22il%7D%5Cpkg@1%5C0");
	/* packageurl-js's canonical form: "!*'()~" kept everywhere but in qualifiers, ':' kept but in a name. */
	assert_string_equal(purl(&odd, "1:2(x)!*'~+", NULL), "pkg:pypi/a%3Ab(c)!*'~@1:2(x)!*'~+");
	assert_string_equal(purl(&none, "1", &os), "(none)");
	strcpy(deb.version, "1");
	strcpy(deb.src_name, "s?rc#x");
	strcpy(deb.src_version, "2=3&upstream=y");
	assert_string_equal(purl(&deb, "1", &os),
			    "pkg:deb/debian/x@1?arch=amd64%26epoch%3D9&distro=debian-12%26arch%3Devil"
			    "&upstream=s%3Frc%23x%402%3D3%26upstream%3Dy");
	/* Every field at its longest, every byte not UTF-8: it still fits MS_PURL_MAX, and a byte short is none. */
	memset(big.name, '\xff', sizeof(big.name) - 1);
	memset(big.arch, '\xff', sizeof(big.arch) - 1);
	memset(big.version, '\xff', sizeof(big.version) - 1);
	memset(big.src_name, '\xfe', sizeof(big.src_name) - 1);
	memset(big.src_version, '\xff', sizeof(big.src_version) - 1);
	memset(huge.version_id, '\xff', sizeof(huge.version_id) - 1);
	size_t len = ms_purl_of(&big, big.version, &huge, out, sizeof(out));
	assert_true(len > 5000);
	assert_int_equal(strlen(out), len);
	assert_int_equal(ms_purl_of(&big, big.version, &huge, out, len), 0);
	assert_string_equal(out, "");
	assert_int_equal(ms_purl_of(&big, big.version, &huge, out, len + 1), len);
}

static void test_osrelease(void **state)
{
	static const char text[] = "NAME=\"Debian GNU/Linux\"\n"
				   "PRETTY_NAME=\"Debian \\\"12\\\" (bookworm)\"\n"
				   "VERSION_ID='12'\n"
				   "VERSION_CODENAME=bookworm\n"
				   "ID=debian\n"
				   "ID_LIKE=ubuntu\n";
	struct ms_osrelease os;

	(void)state;
	ms_osrelease_parse(text, strlen(text), &os);
	assert_string_equal(os.id, "debian");
	assert_string_equal(os.version_id, "12");
	assert_string_equal(os.pretty_name, "Debian \"12\" (bookworm)");
	assert_string_equal(os.version_codename, "bookworm");
	/* An ID outside os-release's characters never reaches a URL. */
	ms_osrelease_parse("ID=\"de/bian\"\n", 13, &os);
	assert_string_equal(os.id, "");
	ms_osrelease_parse("ID=Debian\n", 10, &os);
	assert_string_equal(os.id, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deb),
		cmocka_unit_test(test_rpm),
		cmocka_unit_test(test_pypi),
		cmocka_unit_test(test_npm),
		cmocka_unit_test(test_note),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_osrelease),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
