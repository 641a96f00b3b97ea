/*
 * Package URLs (purl.h) and the distribution they name (osrelease.h): each
 * type's shape, the pypi, npm and deb normalisations, rpm's epoch as a
 * qualifier, the spec's percent-encoding (once, from raw bytes), hostile names, and os-release's
 * quoting and its ID's allowed characters.
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

static struct ms_pkg pkg(enum ms_pkg_source source, const char *name, const char *arch)
{
	struct ms_pkg p = { .found = true, .source = source };

	strcpy(p.name, name);
	strcpy(p.arch, arch);
	return p;
}

static const char *purl(const struct ms_pkg *p, const char *version, const char *vendor)
{
	static char out[MS_PURL_MAX];

	if (!ms_purl_of(p, version, vendor, out, sizeof(out)))
		return "(none)";
	return out;
}

static void test_deb(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_DPKG, "libssl3", "amd64"), bash = pkg(MS_PKG_SOURCE_DPKG, "Bash", "");

	(void)state;
	assert_string_equal(purl(&p, "3.0.17-1~deb12u2", "debian"), "pkg:deb/debian/libssl3@3.0.17-1~deb12u2?arch=amd64");
	/* An epoch's ':' stays, '+' is encoded. */
	assert_string_equal(purl(&p, "1:2.4.47-2+b1", "Ubuntu"), "pkg:deb/ubuntu/libssl3@1:2.4.47-2%2Bb1?arch=amd64");
	/* No architecture in dpkg's list name: no qualifier rather than a guess. */
	assert_string_equal(purl(&bash, "5.2.15-2+b8", "debian"), "pkg:deb/debian/bash@5.2.15-2%2Bb8");
	/* What runs cannot be known: no version. */
	assert_string_equal(purl(&p, NULL, "debian"), "pkg:deb/debian/libssl3?arch=amd64");
	/* A deb purl needs its vendor. */
	assert_string_equal(purl(&p, "1", NULL), "(none)");
	assert_string_equal(purl(&p, "1", ""), "(none)");
}

static void test_rpm(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_RPM, "CenterIM", "i686"), noarch = pkg(MS_PKG_SOURCE_RPM, "curl", "");

	(void)state;
	/* rpm names keep their case; the epoch becomes a qualifier, after arch. */
	assert_string_equal(purl(&p, "1:4.22.10-1.el6", "fedora"), "pkg:rpm/fedora/CenterIM@4.22.10-1.el6?arch=i686&epoch=1");
	assert_string_equal(purl(&noarch, "2:7.50.3-1.fc25", "fedora"), "pkg:rpm/fedora/curl@7.50.3-1.fc25?epoch=2");
	assert_string_equal(purl(&noarch, "7.50.3-1.fc25", "fedora"), "pkg:rpm/fedora/curl@7.50.3-1.fc25");
}

static void test_pypi(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_PYTHON, "Zope_Interface", "");

	(void)state;
	assert_string_equal(purl(&p, "5.4.0+local", NULL), "pkg:pypi/zope-interface@5.4.0%2Blocal");
	assert_string_equal(purl(&p, "5.4.0", "debian"), "pkg:pypi/zope-interface@5.4.0");
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

	(void)state;
	assert_string_equal(purl(&scoped, "1.3.5", NULL), "pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5");
	assert_string_equal(purl(&scoped, "1.3.5", "debian"), "pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5");
	assert_string_equal(purl(&upper, "1.0.0-RC.1+Build", NULL), "pkg:npm/%40my.scope/jsonstream@1.0.0-RC.1%2BBuild");
	assert_string_equal(purl(&plain, "4.17.21", NULL), "pkg:npm/lodash@4.17.21");
	assert_string_equal(purl(&plain, "", NULL), "pkg:npm/lodash");
	assert_string_equal(purl(&odd, "1", NULL), "pkg:npm/a%2Fb@1");
	assert_string_equal(purl(&odd2, "1", NULL), "pkg:npm/%40s/a%2Fb@1");
}

/*
 * Hostile bytes: encoded once, from the raw name, so no separator gets
 * through and a parser gives the name back; a byte that is not UTF-8 as
 * U+FFFD, which a component must decode to.
 */
/* A file its ELF package note owns: the note's type where we write it, else generic. */
static void test_note(void **state)
{
	struct ms_pkg deb = pkg(MS_PKG_SOURCE_NOTE, "OpenSSL", "amd64"), rpm = pkg(MS_PKG_SOURCE_NOTE, "curl", "x86_64");
	struct ms_pkg other = pkg(MS_PKG_SOURCE_NOTE, "Zlib", ""), none = pkg(MS_PKG_SOURCE_NOTE, "x", "");

	(void)state;
	strcpy(deb.note_type, "deb");
	strcpy(rpm.note_type, "rpm");
	strcpy(other.note_type, "alpm");
	assert_string_equal(purl(&deb, "3.0.11-1", "debian"), "pkg:deb/debian/openssl@3.0.11-1?arch=amd64");
	assert_string_equal(purl(&rpm, "1:8.6.0-7.fc40", "fedora"), "pkg:rpm/fedora/curl@8.6.0-7.fc40?arch=x86_64&epoch=1");
	assert_string_equal(purl(&other, "1.3+x", "debian"), "pkg:generic/Zlib@1.3%2Bx");
	/* No distribution to name: generic, never a deb purl without its namespace. */
	assert_string_equal(purl(&deb, "3.0.11-1", NULL), "pkg:generic/OpenSSL@3.0.11-1?arch=amd64");
	assert_string_equal(purl(&none, "1", NULL), "pkg:generic/x@1");
}

static void test_hostile(void **state)
{
	struct ms_pkg p = pkg(MS_PKG_SOURCE_PYTHON, "a/b@c?d#e f\n\xff", ""), none = pkg(MS_PKG_SOURCE_NONE, "x", "");
	struct ms_pkg evil = pkg(MS_PKG_SOURCE_PYTHON, "ev\"il}\\pkg", "");

	(void)state;
	assert_string_equal(purl(&p, "1@2", NULL), "pkg:pypi/a%2Fb%40c%3Fd%23e%20f%0A%EF%BF%BD@1%402");
	assert_string_equal(purl(&evil, "1\\0", NULL), "pkg:pypi/ev%22il%7D%5Cpkg@1%5C0");
	assert_string_equal(purl(&none, "1", "debian"), "(none)");
}

static void test_osrelease(void **state)
{
	static const char text[] = "NAME=\"Debian GNU/Linux\"\n"
				   "PRETTY_NAME=\"Debian \\\"12\\\" (bookworm)\"\n"
				   "VERSION_ID='12'\n"
				   "ID=debian\n"
				   "ID_LIKE=ubuntu\n";
	struct ms_osrelease os;

	(void)state;
	ms_osrelease_parse(text, strlen(text), &os);
	assert_string_equal(os.id, "debian");
	assert_string_equal(os.version_id, "12");
	assert_string_equal(os.pretty_name, "Debian \"12\" (bookworm)");
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
