#!/usr/bin/python3
"""Check a CycloneDX document from `mapscope libs --format=cyclonedx`.

    sbom_check.py SCHEMA_DIR DOC [EXPECTATION...]

It validates DOC against the CycloneDX 1.6 JSON schema in SCHEMA_DIR
(Draft 7, every $ref resolved to the files there: no network), checks every
package URL against the purl rules (docs/specification of package-url's
purl-spec: permitted characters, percent-encoding, type, namespace, name,
version, qualifiers, and the deb, rpm, pypi and npm type rules; every deb
purl has an arch, and every deb and rpm purl the distro os-release names), that the
metadata's mapscope:unhashed-files and mapscope:hash-budget-skipped count
the file components without a hash and those the hash budget left out, the
graph (every bom-ref unique, every dependency's ref and dependsOn defined,
the host depending on every process, each process depending on what its
pid is an occurrence of), that every library component has a version and
a purl with that version, that every library and file component has its
occurrences (but for a version installed that no process maps), and then
the expectations:
    deb NAME VERSION ARCH    a component pkg:deb/<os-release ID>/NAME@VERSION?arch=ARCH&distro=D&upstream=U,
                             D ID-VERSION_ID (else ID-VERSION_CODENAME; neither: none), U the source
                             dpkg-query names (${source:Package}, @${source:Version} when not VERSION;
                             none when it is NAME itself)
    pypi NAME VERSION        a component pkg:pypi/NAME@VERSION, NAME as pypi normalises it
    npm NAME VERSION         a component pkg:npm/NAME@VERSION, or pkg:npm/%40SCOPE/NAME@VERSION
                             for @SCOPE/NAME, lower-cased as the npm type says
    file NAME SHA256 PIDS    a file component named NAME (the raw name), its SHA-256, its PIDs ("1 2"):
                             its occurrence's "pids 1 2", and process-1 and process-2 depend on it
    nohash NAME WHY          a file component named NAME without a hash, mapscope:hash-skipped containing WHY
    budget PREFIX WHY HASHED HASHED file components have a hash; every one named PREFIX... has a hash
                             or mapscope:hash-skipped containing WHY, and at least one the latter
    purl PURL RUNNING INST   a component of exactly that purl, mapscope:running RUNNING, and
                             mapscope:installed-version INST ("-": none)
    occurs NAME VERSION LOCATION PIDS CONF
                             the one library NAME VERSION has an occurrence at LOCATION (the raw
                             name) whose context starts "pids PIDS", each process-PID depends on
                             it, and its evidence.identity is of field purl, its purl, confidence CONF
    notrunning NAME VERSION  the one library NAME VERSION is installed-not-running: no occurrence,
                             no process depends on it, the host does
    absent NAME VERSION      no library NAME VERSION
    unknown NAME PKG INST    a file component named NAME whose package PKG's version is unknown
                             (mapscope:running unknown, installed-version INST), with no library
                             component of PKG in that version's place
Each purl expected is built here, by this script's own encoder.  Exit 0
when everything holds, 1 otherwise (every failure printed).
"""
import json
import pathlib
import re
import subprocess
import sys

import jsonschema

failures = []


def fail(msg):
    failures.append(msg)
    print("sbom_check: FAIL: " + msg)


def validate_schema(schema_dir, doc):
    store = {}
    for path in pathlib.Path(schema_dir).glob("*.schema.json"):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    bom = store["http://cyclonedx.org/schema/bom-1.6.schema.json"]

    def offline(uri):
        raise RuntimeError("schema reference outside the local files: " + uri)

    resolver = jsonschema.RefResolver(bom["$id"], bom, store=store,
                                      handlers={"http": offline, "https": offline})
    validator = jsonschema.Draft7Validator(bom, resolver=resolver,
                                           format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    for err in validator.iter_errors(doc):
        fail("schema: %s at %s" % (err.message[:300], "/".join(str(p) for p in err.absolute_path)))


# ---- purl rules ---------------------------------------------------------------------------
PERMITTED = re.compile(r"^[A-Za-z0-9.\-_~%:/@?=&#+!*'()]*$")
# What each part keeps as it is, in the canonical form packageurl-js writes (purl.h).
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
KEEP = {"name": ALNUM + "-._~!*'()", "namespace": ALNUM + "-._~!*'():",
        "version": ALNUM + "-._~!*'():+", "qualifier": ALNUM + "-._*"}


def encode(s, part):
    return "".join(chr(b) if chr(b) in KEEP[part] else "%%%02X" % b for b in s.encode())


def decode(s, what, purl):
    if re.search(r"%(?![0-9A-Fa-f]{2})", s):
        fail("purl %s: %s has a bad percent-encoding" % (purl, what))
        return s
    raw = re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), s.encode())
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        fail("purl %s: %s is not UTF-8 once decoded" % (purl, what))
        return s


def os_release():
    """ID and the distro qualifier mapscope writes (purl.h), from /etc/os-release."""
    fields = {}
    for line in pathlib.Path("/etc/os-release").read_text().splitlines():
        key, eq, value = line.partition("=")
        if eq:
            fields[key] = value.strip("\"'")
    vid, release = fields.get("ID", ""), fields.get("VERSION_ID") or fields.get("VERSION_CODENAME", "")
    return vid, (vid + "-" + release if vid and release else None)


VENDOR, DISTRO = os_release()


def check_purl(purl):
    """Parse purl as the spec's how-to-parse says; fail on every rule it breaks."""
    if not PERMITTED.match(purl):
        fail("purl %s: characters outside the permitted set" % purl)
    if not purl.startswith("pkg:"):
        fail("purl %s: scheme is not pkg" % purl)
        return None
    rest = purl[4:]
    rest, _, subpath = rest.partition("#")
    if subpath:
        fail("purl %s: a subpath mapscope never writes" % purl)
    rest, _, qualifiers = rest.partition("?")
    ptype, _, path = rest.partition("/")
    if not re.match(r"^[a-z][a-z0-9.\-]*$", ptype):
        fail("purl %s: bad type %r" % (purl, ptype))
    version = None
    if "@" in path:
        path, _, version = path.rpartition("@")
        if not version:
            fail("purl %s: empty version after '@'" % purl)
        version = decode(version, "version", purl)
    segments = path.strip("/").split("/")
    name = decode(segments[-1], "name", purl)
    namespace = [decode(s, "namespace", purl) for s in segments[:-1]]
    if not name:
        fail("purl %s: no name" % purl)
    if any(not s for s in namespace):
        fail("purl %s: an empty namespace segment" % purl)
    quals = {}
    if qualifiers:
        pairs = qualifiers.split("&")
        if pairs != sorted(pairs):
            fail("purl %s: qualifiers not sorted" % purl)
        for pair in pairs:
            key, eq, value = pair.partition("=")
            if not eq or not value:
                fail("purl %s: qualifier %r without a value" % (purl, pair))
            if not re.match(r"^[a-z][a-z0-9.\-_]*$", key):
                fail("purl %s: bad qualifier key %r" % (purl, key))
            if key in quals:
                fail("purl %s: qualifier %r twice" % (purl, key))
            quals[key] = decode(value, "qualifier " + key, purl)
    if ptype in ("deb", "rpm"):
        if len(namespace) != 1 or namespace[0] != namespace[0].lower():
            fail("purl %s: %s needs one lower-case vendor namespace" % (purl, ptype))
    if ptype == "deb" and name != name.lower():
        fail("purl %s: deb names are lower-case" % purl)
    if ptype == "deb" and not quals.get("arch"):
        fail("purl %s: a deb purl without its architecture" % purl)
    if ptype in ("deb", "rpm") and quals.get("distro") != DISTRO:
        fail("purl %s: distro %r, not %r (os-release)" % (purl, quals.get("distro"), DISTRO))
    if ptype == "pypi":
        if namespace:
            fail("purl %s: pypi has no namespace" % purl)
        if name != name.lower() or "_" in name:
            fail("purl %s: pypi names are lower-case, '-' for '_'" % purl)
    if ptype == "npm":
        if len(namespace) > 1 or (namespace and not namespace[0].startswith("@")):
            fail("purl %s: an npm namespace is one @scope" % purl)
        if name != name.lower() or any(s != s.lower() for s in namespace):
            fail("purl %s: npm names and scopes are lower-case" % purl)
        if quals:
            fail("purl %s: a qualifier mapscope never writes for npm" % purl)
    return {"type": ptype, "namespace": namespace, "name": name, "version": version, "qualifiers": quals}


def props(component, name):
    return [p["value"] for p in component.get("properties", []) if p["name"] == name]


def check_counts(doc, components):
    meta = {p["name"]: p["value"] for p in doc.get("metadata", {}).get("properties", [])}
    unhashed = [c for c in components if c["type"] == "file" and "hashes" not in c]
    budget = [c for c in unhashed if any(w.startswith("hash budget:") for w in props(c, "mapscope:hash-skipped"))]
    for name, want in (("mapscope:unhashed-files", unhashed), ("mapscope:hash-budget-skipped", budget)):
        if meta.get(name) != str(len(want)):
            fail("metadata %s is %r, but %d components" % (name, meta.get(name), len(want)))


def check_budget(components, prefix, why, hashed):
    files = [c for c in components if c["type"] == "file"]
    n = sum(1 for c in files if "hashes" in c)
    if n != hashed:
        fail("%d file components hashed, not %d" % (n, hashed))
    mine = [c for c in files if c["name"].startswith(prefix)]
    left = [c for c in mine if "hashes" not in c]
    wrong = [(c["name"], props(c, "mapscope:hash-skipped")) for c in left
             if not any(why in w for w in props(c, "mapscope:hash-skipped"))]
    if wrong or not left:
        fail("files under %s: %d without a hash, these not because %r: %r" % (prefix, len(left), why, wrong[:5]))


def refs_of(doc):
    """Every bom-ref in the document, and fails on each one given twice."""
    seen = set()

    def walk(node):
        if isinstance(node, dict):
            ref = node.get("bom-ref")
            if ref is not None:
                if ref in seen:
                    fail("bom-ref %r twice" % ref)
                seen.add(ref)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(doc)
    return seen


def pids_of(occurrence):
    m = re.match(r"^pids((?: [0-9]+)+)(?:;|$)", occurrence.get("additionalContext", ""))
    return m.group(1).split() if m else None


def check_graph(doc, components):
    refs = refs_of(doc)
    deps = {}
    for d in doc.get("dependencies", []):
        if d["ref"] not in refs:
            fail("dependency of an undefined ref %r" % d["ref"])
        if d["ref"] in deps:
            fail("two dependency entries for %r" % d["ref"])
        deps[d["ref"]] = d.get("dependsOn", [])
        for r in deps[d["ref"]]:
            if r not in refs:
                fail("%r depends on an undefined ref %r" % (d["ref"], r))
    procs = [c for c in components if c["bom-ref"].startswith("process-")]
    host = set(deps.get("host", []))
    for p in procs:
        if p["type"] != "application" or p["bom-ref"] not in host:
            fail("process %r: type %r, in the host's dependencies: %r" % (p["bom-ref"], p["type"], p["bom-ref"] in host))
        if props(p, "mapscope:pid") != [p["bom-ref"][len("process-"):]]:
            fail("process %r: mapscope:pid %r" % (p["bom-ref"], props(p, "mapscope:pid")))
    for c in components:
        if c["type"] in ("library", "file") and not c.get("evidence", {}).get("occurrences") and \
                props(c, "mapscope:running") != ["installed-not-running"]:
            fail("component %r: no evidence.occurrences" % c.get("name"))
        if c["type"] == "library":
            if not c.get("version"):
                fail("library %r has no version" % c.get("name"))
            elif "purl" in c and (check_purl(c["purl"]) or {}).get("version") != c["version"]:
                fail("library %r %r: its purl %r is not of that version" % (c.get("name"), c["version"], c["purl"]))
        for o in c.get("evidence", {}).get("occurrences", []):
            pids = pids_of(o)
            if pids is None:
                fail("component %r: occurrence %r names no pids" % (c.get("name"), o))
                continue
            for pid in pids:
                if c["bom-ref"] not in deps.get("process-" + pid, []):
                    fail("component %r: process-%s maps %r but does not depend on it" % (c.get("name"), pid,
                                                                                     o["location"]))
    return deps


def libraries(components, name, version):
    return [c for c in components if c["type"] == "library" and c["name"] == name and c.get("version") == version]


def library(components, name, version):
    found = libraries(components, name, version)
    if len(found) != 1:
        fail("%d libraries %s %s (libraries: %r)" % (len(found), name, version, sorted(
            "%s %s" % (c["name"], c.get("version")) for c in components if c["type"] == "library")))
        return None
    return found[0]


def check_occurs(components, deps, name, version, location, pids, conf):
    c = library(components, name, version)
    purl = c.get("purl") if c else None
    if not c:
        return
    occ = [o for o in c.get("evidence", {}).get("occurrences", []) if o["location"] == location]
    if len(occ) != 1 or pids_of(occ[0]) != pids.split():
        fail("component %s: occurrences at %r: %r, want one with pids %s" % (purl, location, occ, pids))
    for pid in pids.split():
        if c["bom-ref"] not in deps.get("process-" + pid, []):
            fail("component %s: process-%s does not depend on it" % (purl, pid))
    ident = c.get("evidence", {}).get("identity", [])
    if len(ident) != 1 or ident[0].get("field") != "purl" or ident[0].get("concludedValue") != purl or \
            abs(ident[0].get("confidence", -1) - float(conf)) > 1e-9 or not ident[0].get("methods"):
        fail("component %s: evidence.identity %r, want field purl, confidence %s" % (purl, ident, conf))


def check_notrunning(components, deps, name, version):
    c = library(components, name, version)
    purl = "%s %s" % (name, version)
    if not c:
        return
    if props(c, "mapscope:running") != ["installed-not-running"] or c.get("evidence", {}).get("occurrences"):
        fail("component %s: not marked installed-not-running, or with occurrences: %r" % (purl, c))
    users = [r for r, on in deps.items() if c["bom-ref"] in on]
    if users != ["host"]:
        fail("component %s: depended on by %r, not the host alone" % (purl, users))


def check_unknown(components, name, pkg, installed):
    c = [c for c in components if c["type"] == "file" and c["name"] == name]
    if len(c) != 1 or props(c[0], "mapscope:package") != [pkg] or props(c[0], "mapscope:running") != ["unknown"] \
            or props(c[0], "mapscope:installed-version") != [installed]:
        fail("file %r: want one file component of package %s, running unknown, installed %s: %r" % (
            name, pkg, installed, c))
    for lib in components:
        for o in lib.get("evidence", {}).get("occurrences", []) if lib["type"] == "library" else []:
            if o["location"] == name:
                fail("library %r %r lists %r, whose version is unknown" % (lib["name"], lib.get("version"), name))


def main():
    schema_dir, doc_path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    doc = json.loads(pathlib.Path(doc_path).read_text())
    validate_schema(schema_dir, doc)
    components = doc.get("components", [])
    for c in components:
        if "purl" in c:
            check_purl(c["purl"])
    vendor = VENDOR
    purls = {c.get("purl") for c in components}
    files = {c["name"]: c for c in components if c["type"] == "file"}
    check_counts(doc, components)
    deps = check_graph(doc, components)
    while args:
        kind = args.pop(0)
        if kind == "deb":
            name, version, arch = args[:3]
            del args[:3]
            want = "pkg:deb/%s/%s@%s?arch=%s" % (encode(vendor, "namespace"), encode(name, "name"),
                                                 encode(version, "version"), encode(arch, "qualifier"))
            if DISTRO:
                want += "&distro=" + encode(DISTRO, "qualifier")
            src, srcv, binv = subprocess.run(
                ["dpkg-query", "-W", "-f=${source:Package}|${source:Version}|${Version}", name + ":" + arch],
                capture_output=True, text=True, check=False).stdout.split("|")
            upstream = src + ("@" + srcv if srcv != binv else "")
            if upstream != name:
                want += "&upstream=" + encode(upstream, "qualifier")
        elif kind == "pypi":
            name, version = args[:2]
            del args[:2]
            want = "pkg:pypi/%s@%s" % (encode(name.lower().replace("_", "-"), "name"), encode(version, "version"))
        elif kind == "npm":
            name, version = args[:2]
            del args[:2]
            scope, _, bare = name.lower().rpartition("/") if name.startswith("@") else ("", "", name.lower())
            want = "pkg:npm/%s%s@%s" % (encode(scope, "namespace") + "/" if scope else "", encode(bare, "name"),
                                         encode(version, "version"))
        elif kind == "file":
            name, sha, pids = args[:3]
            del args[:3]
            c = files.get(name)
            if not c:
                fail("no file component %r (files: %r)" % (name, sorted(files)))
                continue
            hashes = c.get("hashes", [])
            if hashes != [{"alg": "SHA-256", "content": sha}]:
                fail("file %r: hashes %r, not SHA-256 %s (%r)" % (name, hashes, sha, props(c, "mapscope:hash-skipped")))
            occ = c.get("evidence", {}).get("occurrences", [])
            if len(occ) != 1 or occ[0]["location"] != name or pids_of(occ[0]) != pids.split():
                fail("file %r: occurrences %r, not one at its name with pids %s" % (name, occ, pids))
            for pid in pids.split():
                if c["bom-ref"] not in deps.get("process-" + pid, []):
                    fail("file %r: process-%s does not depend on it" % (name, pid))
            continue
        elif kind == "purl":
            want, running, installed = args[:3]
            del args[:3]
            found = [c for c in components if c.get("purl") == want]
            if not found:
                fail("no component %s (purls: %r)" % (want, sorted(p for p in purls if p)))
            elif props(found[0], "mapscope:running") != [running] or \
                    props(found[0], "mapscope:installed-version") != ([] if installed == "-" else [installed]):
                fail("component %s: running %r, installed %r; want %r, %r" % (
                    want, props(found[0], "mapscope:running"), props(found[0], "mapscope:installed-version"),
                    running, installed))
            elif ("@" in want) != ("version" in found[0]):
                fail("component %s: its version and its purl's disagree" % want)
            continue
        elif kind == "occurs":
            check_occurs(components, deps, *args[:5])
            del args[:5]
            continue
        elif kind == "notrunning":
            check_notrunning(components, deps, *args[:2])
            del args[:2]
            continue
        elif kind == "absent":
            if libraries(components, *args[:2]):
                fail("a library %s %s, which should not be there" % tuple(args[:2]))
            del args[:2]
            continue
        elif kind == "unknown":
            check_unknown(components, *args[:3])
            del args[:3]
            continue
        elif kind == "nohash":
            name, why = args[:2]
            del args[:2]
            c = files.get(name)
            if not c or "hashes" in c or not any(why in w for w in props(c, "mapscope:hash-skipped")):
                fail("file %r: should have no hash, because %r: %r" % (name, why, c))
            continue
        elif kind == "budget":
            prefix, why, hashed = args[:3]
            del args[:3]
            check_budget(components, prefix, why, int(hashed))
            continue
        else:
            fail("unknown expectation " + kind)
            break
        if want not in purls:
            fail("no component %s (purls: %r)" % (want, sorted(p for p in purls if p)))
    if failures:
        print("sbom_check: %d failure(s)" % len(failures))
        return 1
    print("sbom_check: %d components, valid, purls well-formed, expectations hold" % len(components))
    return 0


if __name__ == "__main__":
    sys.exit(main())
