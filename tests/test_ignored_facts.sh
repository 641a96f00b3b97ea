#!/bin/sh
# A file an ignore rule matches keeps the facts that rest on its name, on an
# anonymous device (major 0) as on a disk: tmpfs is one, and so are /tmp on
# many systems (and in containers, with overlayfs), /dev/shm and /run.  Its
# name is still proven a path, so PACKAGE says "not packaged" beside
# VERDICT "ignored", in `list --by-file` and in `libs`, while a memfd (the
# kernel's own memory file) is proven no path here and gets no PACKAGE.
#   - a library copied into /dev/shm (a tmpfs, ignored as POSIX shared memory);
#   - as root, where unshare can make a mount namespace: the same copy under
#     /tmp with a tmpfs mounted there, as a system with a tmpfs /tmp has it.
# Exit 77 (skip) when /dev/shm is not a writable folder on major 0.
set -u
NAME=test_ignored_facts
. "$(dirname "$0")/shtest.sh"
. "$(dirname "$0")/syslib.sh"
[ -x "$PY" ] || skip "needs python3"
# A system library python3 can load in a sanitizer build too (syslib.sh).
LIB=$(syslib libbz2.so.1.0 libstale-a.so)
[ -f "$LIB" ] || skip "no $LIB"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "/dev/shm is not a writable folder"
[ "$(stat -c %t /dev/shm)" = 0 ] || skip "/dev/shm is not on an anonymous device (major $(stat -c %t /dev/shm))"
dir=$(mktemp -d /dev/shm/ms-ignored-facts.XXXXXX) || exit 1
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
cp "$LIB" "$dir/libms-shm.so" || fail "cannot copy $LIB"

# hold LIB: a python3 that maps LIB and a memfd; its PID is $last.
hold() {
	start "$dir/py.$$.$(date +%s%N).out" "$PY" -c '
import ctypes, mmap, os, sys, time
ctypes.CDLL(sys.argv[1])
fd = os.memfd_create("ms-ignored-facts")
os.ftruncate(fd, 4096)
m = mmap.mmap(fd, 4096)
print("ready", flush=True)
time.sleep(600)' "$1"
}

# cells PID FILE: FILE's PACKAGE and VERDICT in list --by-file, raw ('\x20' for a space).
cells() { "$BIN" list "$1" --by-file -r -n -o NAME,PACKAGE,VERDICT | awk -v f="$2" '$1 == f { print $2, $3 }'; }

hold "$dir/libms-shm.so"
pid=$last
got=$(cells "$pid" "$dir/libms-shm.so")
[ "$got" = 'not\x20packaged ignored' ] || fail "the copy in /dev/shm: '$got', want 'not\\x20packaged ignored'"
memfd=$("$BIN" list "$pid" --by-file -r -n -o NAME,PACKAGE,VERDICT | grep -F '/memfd:ms-ignored-facts')
# An empty PACKAGE is an empty cell: two blanks in raw output.
[ "$memfd" = '/memfd:ms-ignored-facts\x20(deleted)  ignored' ] || fail "the memfd's line: '$memfd'"
ok "a library in /dev/shm (tmpfs): not packaged, ignored; the memfd beside it has no PACKAGE"
libs=$("$BIN" libs --pid="$pid" -r -n -o NAME,PACKAGE,VERDICT | awk -v f="$dir/libms-shm.so" '$1 == f { print $2, $3 }')
[ "$libs" = "$got" ] || fail "libs says '$libs', list --by-file '$got'"
ok "libs says the same"

# The same under a tmpfs /tmp, in a mount namespace of its own.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "$NAME: the tmpfs /tmp case needs root and unshare -m: not run"
	exit 0
fi
# The binary may live under /tmp (a build there, as .ci/run's copies are):
# the old /tmp stays reachable through a bind mount made before the tmpfs.
mkdir "$dir/oldtmp" || fail "mkdir"
bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
case $bin in
/tmp/*) bin=$dir/oldtmp/${bin#/tmp/} ;;
esac
unshare -m sh -c '
	mount --make-rprivate / && mount --bind /tmp "$4" && mount -t tmpfs tmpfs /tmp || exit 3
	mkdir /tmp/ms-facts && cp "$1" /tmp/ms-facts/libms-tmp.so || exit 3
	"$2" -c "
import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
print(\"ready\", flush=True)
time.sleep(600)" /tmp/ms-facts/libms-tmp.so > /tmp/ms-facts/out 2>&1 &
	i=0
	until grep -q ready /tmp/ms-facts/out; do
		i=$((i + 1)); [ $i -lt 200 ] || exit 4; sleep 0.05
	done
	"$3" list $! --by-file -r -n -o NAME,PACKAGE,VERDICT | awk "\$1 == \"/tmp/ms-facts/libms-tmp.so\" { print \$2, \$3 }"
	kill $!
' sh "$LIB" "$PY" "$bin" "$dir/oldtmp" > "$dir/tmpfs.out" 2>&1
rc=$?
[ $rc -ne 3 ] || { echo "$NAME: cannot mount a tmpfs on /tmp here: not run"; exit 0; }
[ $rc -eq 0 ] || fail "the tmpfs /tmp case failed ($rc): $(cat "$dir/tmpfs.out")"
[ "$(cat "$dir/tmpfs.out")" = 'not\x20packaged ignored' ] ||
	fail "the copy under a tmpfs /tmp: '$(cat "$dir/tmpfs.out")', want 'not\\x20packaged ignored'"
ok "a library under a tmpfs /tmp: not packaged, ignored"
