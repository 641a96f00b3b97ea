#!/bin/sh
# A refusal's reason names its cause, never a daemon-served mount that is
# not there.  This machine has no FUSE or network mount under these
# processes; the causes that were said to be one (issue 32):
#   - a memfd and shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS, the
#     kernel's "/dev/zero (deleted)"), mapped executable: no file on disk,
#     said before any lookup (the SBOM's mapscope:hash-skipped);
#   - a library on a tmpfs mounted in another mount namespace (unshare -m),
#     mapped by a process in ours through /proc/PID/root: the kernel names
#     it with a path that leads nowhere in our root, and its mount is in no
#     table we read (the SBOM's reason, and the SONAME notes of `libs` and
#     `who`, which read its SONAME for a pattern that is not its name, here
#     and over every process).
# Everything runs in a PID namespace of its own, with its own /proc, so the
# commands that look at every process (`libs` and `who` without --pid) see
# only this test's.  Needs root (map_files, mount namespaces); skips, saying
# why, without it or without unshare and python3.
set -u
NAME=test_reasons
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/cdx_validate.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (the running copy through map_files; mount and PID namespaces)"
[ -x $PY ] || skip "needs $PY"
command -v unshare >/dev/null 2>&1 || skip "needs unshare (util-linux)"
LIB=$TDIR/libstale-a.so
[ -f "$LIB" ] || fail "no $LIB (make check builds it)"

if [ -z "${MS_REASONS_INNER:-}" ]; then
	unshare -pf --mount-proc true 2>/dev/null || skip "cannot make a PID namespace with its own /proc here"
	MS_REASONS_INNER=1 exec unshare -pf --mount-proc sh "$0" "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-reasons.XXXXXX") || exit 1
# The namespace's processes all end with its first one (this shell); killed here first anyway.
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# A memfd holding a library's bytes and shared anonymous memory, both executable.
start "$tmp/memory.out" $PY -c 'import mmap, os, sys, time
fd = os.memfd_create("ms-reasons", 0)
os.write(fd, open(sys.argv[1], "rb").read())
size = os.fstat(fd).st_size
held = [mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_EXEC),
        mmap.mmap(-1, 4096, mmap.MAP_SHARED | mmap.MAP_ANONYMOUS, mmap.PROT_READ | mmap.PROT_EXEC)]
print("ready", flush=True)
time.sleep(600)' "$LIB"
memory=$last

# A library on a tmpfs only another mount namespace has, and a process of ours that maps it
# (the only one: a SONAME is read once per file, and another process could answer for it).
mkdir "$tmp/mnt" || exit 1
start "$tmp/other.out" unshare -m sh -c 'mount -t tmpfs ms-reasons "$1" && cp "$2" "$1/libmsreason.so" &&
	echo ready && exec sleep 600' sh "$tmp/mnt" "$LIB"
other=$last
# Mapped, not loaded: a sanitizer build's library cannot load into python3.
start "$tmp/ours.out" $PY -c 'import mmap, os, sys, time
held = mmap.mmap(os.open(sys.argv[1], os.O_RDONLY), 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC)
print("ready", flush=True)
time.sleep(600)' "/proc/$other/root$tmp/mnt/libmsreason.so"
ours=$last
grep -q " $tmp/mnt/libmsreason.so\$" "/proc/$ours/maps" ||
	fail "the kernel does not name the other namespace's library by its path there: $(grep libmsreason "/proc/$ours/maps")"

# ---- the SBOM: each file's mapscope:hash-skipped says its own cause
"$BIN" libs --pid=$memory,$ours --all-mappings --format=cyclonedx >"$tmp/sbom.json" 2>"$tmp/sbom.err" ||
	fail "libs --format=cyclonedx: exit $?: $(cat "$tmp/sbom.err")"
cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"
$PY - "$tmp/sbom.json" "$tmp/mnt/libmsreason.so" <<'EOF' || fail "the SBOM's reasons (above); it is in $tmp/sbom.json"
import json, sys

doc = json.load(open(sys.argv[1]))
files = {c["name"]: c for c in doc["components"] if c["type"] == "file"}
failed = False


def reason(name):
    for n, c in files.items():
        if n == name or n.startswith(name):
            return [p["value"] for p in c.get("properties", []) if p["name"] == "mapscope:hash-skipped"]
    return None


for name, want in (("/memfd:ms-reasons", "a memfd, by its name: not a file on disk"),
                   ("/dev/zero (deleted)", "shared anonymous memory, by its name: not a file on disk"),
                   (sys.argv[2], "the file is on a mount that is not in the mount table")):
    got = reason(name)
    if got is None:
        print("no file component %r (files: %r)" % (name, sorted(files)))
        failed = True
    elif len(got) != 1 or "daemon-served" in got[0] or want not in got[0]:
        print("%s: mapscope:hash-skipped %r, not %r" % (name, got, want))
        failed = True
    else:
        print("%s: %s" % (name, got[0]))
sys.exit(1 if failed else 0)
EOF
ok "SBOM: a memfd, shared anonymous memory and another namespace's file are not said to be on a daemon-served mount"

# ---- the notes: a pattern that is a SONAME reads the SONAME of every file it does not name
notes() {
	grep -q 'daemon-served' "$tmp/err" && fail "$1 says daemon-served on a machine without such a mount: $(cat "$tmp/err")"
	grep -q 'SONAME' "$tmp/err" || fail "$1 gave no SONAME note to check: $(cat "$tmp/err")"
	ok "$1: $(grep SONAME "$tmp/err")"
}
"$BIN" libs --pid=$memory,$ours --all-mappings libstale.so.1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && fail "libs --pid: exit 2: $(cat "$tmp/err")"
notes "libs --pid"
"$BIN" libs --all-mappings libstale.so.1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && fail "libs: exit 2: $(cat "$tmp/err")"
notes "libs"
"$BIN" who libstale.so.1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && fail "who: exit 2: $(cat "$tmp/err")"
notes "who"
echo "$NAME: $n passed"
