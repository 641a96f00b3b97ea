#!/usr/bin/python3
"""Judge mapscope's output for the hostile-name tests (test_names_attack*.sh).

    names_check.py CHECK ARG...

Each check reads one output of mapscope (JSON or /proc text) and exits 0
when the property holds; otherwise it prints one line saying what it saw
(the calling test puts it on its FAIL line) and exits 1.

    mapname PID ADDR          print the name /proc/PID/maps gives the mapping
                              holding ADDR (hex), and its DEV:INODE as
                              "NAME<TAB>MAJ:MIN:INODE" (decimal)
    libs-inode FILE PATH WANT BAD
                              libs -J (with PACKAGE, PKGSRC, DEV, INODE): of
                              the rows at PATH's device and inode, one says
                              WANT from dpkg, and none says BAD or python
    libs-name FILE NAME BAD   libs -J (with PACKAGE, VERDICT): no row named
                              NAME says package BAD or verdict replaced
    cdx FILE WANT BAD [NAME]  a CycloneDX document: a deb component WANT
                              ("-": none wanted), no component BAD (by name
                              or purl), and, with NAME, no component with
                              an occurrence at NAME says it is replaced
    stale-row FILE NAME VERDICT WHY
                              stale -J: every file row named NAME (one at
                              least) has VERDICT and a WHY containing WHY
    stale-same FILE NAME1 NAME2
                              stale -J: the file rows named NAME1 and NAME2
                              differ in nothing but their names
    who-pid FILE PID BAD      who -J (with COPY, VERDICT, PACKAGE): no mapping
                              of PID says package BAD or replaced
"""
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return json.load(f)


def stale_rows(doc):
    for proc in doc.get("processes", []):
        for row in proc.get("children", []) or []:
            yield row


def short(rows, keys):
    return "; ".join(", ".join("%s=%s" % (k, r.get(k)) for k in keys) for r in rows) or "no rows"


def mapname(pid, addr):
    want = int(addr, 16)
    with open("/proc/%s/maps" % pid, "rb") as f:
        for line in f:
            parts = line.rstrip(b"\n").split(None, 5)
            lo, hi = (int(x, 16) for x in parts[0].split(b"-"))
            if lo <= want < hi:
                major, minor = (int(x, 16) for x in parts[3].split(b":"))
                name = parts[5].decode("utf-8", "surrogateescape") if len(parts) > 5 else ""
                print("%s\t%d:%d:%s" % (name, major, minor, parts[4].decode()))
                return True
    print("no mapping of %s holds %s" % (pid, addr))
    return False


def libs_inode(path, lib, want, bad):
    st = os.stat(lib)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    rows = [r for r in load(path).get("libraries", [])
            if str(r.get("dev")) == dev and str(r.get("inode")) == str(st.st_ino)]
    seen = short(rows, ("name", "package", "pkgsrc"))
    if not any(r.get("package") == want and r.get("pkgsrc") == "dpkg" for r in rows):
        print("no row at %s inode %d says %s from dpkg (%s)" % (dev, st.st_ino, want, seen))
        return False
    if any(r.get("package") == bad or r.get("pkgsrc") == "python" for r in rows):
        print("a row at %s inode %d says %s or python (%s)" % (dev, st.st_ino, bad, seen))
        return False
    return True


def libs_name(path, name, bad):
    rows = [r for r in load(path).get("libraries", []) if r.get("name") == name]
    if any(r.get("package") == bad or r.get("verdict") == "replaced" for r in rows):
        print(short(rows, ("name", "package", "verdict")))
        return False
    return True


def components(doc):
    todo = list(doc.get("components", []))
    while todo:
        c = todo.pop()
        todo.extend(c.get("components", []))
        yield c


def cdx(path, want, bad, name=None):
    comps = list(components(load(path)))
    if want != "-" and not any(c.get("name") == want and c.get("purl", "").startswith("pkg:deb/")
                               for c in comps):
        print("no deb component %s (components: %s)" % (want, ", ".join(c.get("purl") or c.get("name", "?") for c in comps)))
        return False
    for c in comps:
        purl = c.get("purl", "")
        if c.get("name", "").lower() == bad.lower() or ("/" + bad + "@") in purl or purl.endswith("/" + bad) \
                or ("/" + bad + "?") in purl:
            print("component %s (%s)" % (c.get("name"), purl or "no purl"))
            return False
        if name is None:
            continue
        props = {p.get("name"): p.get("value") for p in c.get("properties", [])}
        for o in c.get("evidence", {}).get("occurrences", []):
            if o.get("location") == name and ("replaced" in o.get("additionalContext", "")
                                              or props.get("mapscope:running") == "replaced"):
                print("component %s lists %s as replaced" % (c.get("name"), name))
                return False
        if c.get("name") == name and props.get("mapscope:running") == "replaced":
            print("file component %s is replaced" % name)
            return False
    return True


def stale_row(path, name, verdict, why):
    rows = [r for r in stale_rows(load(path)) if r.get("name") == name]
    if not rows:
        print("no row named %s" % name)
        return False
    if all(r.get("verdict") == verdict and why in (r.get("why") or "") for r in rows):
        return True
    print(short(rows, ("verdict", "package", "why")))
    return False


def stale_same(path, name1, name2):
    doc = load(path)
    one = [dict(r, name=None) for r in stale_rows(doc) if r.get("name") == name1]
    two = [dict(r, name=None) for r in stale_rows(doc) if r.get("name") == name2]
    if not one or not two:
        print("rows: %d named %s, %d named %s" % (len(one), name1, len(two), name2))
        return False
    if one == two:
        return True
    keys = sorted({k for r in one + two for k in r if any(x.get(k) != one[0].get(k) for x in one + two)})
    print("they differ in %s: %s | %s" % (", ".join(keys), short(one, keys), short(two, keys)))
    return False


def who_pid(path, pid, bad):
    rows = [r for r in load(path).get("mappings", []) if str(r.get("pid")) == pid]
    said = [r for r in rows if r.get("package") == bad or "replaced" in (r.get("copy"), r.get("verdict"))]
    if said:
        print("%d of %d mappings of %s: %s" % (len(said), len(rows), pid, short(said[:1], ("copy", "verdict", "package"))))
        return False
    return True


CHECKS = {
    "mapname": (mapname, 2), "libs-inode": (libs_inode, 4), "libs-name": (libs_name, 3),
    "cdx": (cdx, 3, 4), "stale-row": (stale_row, 4), "stale-same": (stale_same, 3), "who-pid": (who_pid, 3),
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit("usage: names_check.py CHECK ARG... (see its docstring)")
    fn, *counts = CHECKS[sys.argv[1]]
    args = sys.argv[2:]
    if len(args) not in counts:
        sys.exit("names_check.py %s: %d arguments, not %s" % (sys.argv[1], len(args), counts))
    try:
        sys.exit(0 if fn(*args) else 1)
    except (OSError, ValueError) as e:
        print("%s: %s" % (sys.argv[1], e))
        sys.exit(1)
