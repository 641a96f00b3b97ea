#!/bin/sh
# A user cannot make root's `mapscope at` read a debug file of the user's
# choosing.  uid 65534 maps a stripped library whose .gnu_debuglink names
# secret.debug, in a directory it owns, where it planted .debug as a
# symlink to a root-only directory holding a 0600 secret.debug with the
# library's build ID.  Root's `at` must not name the static function that
# only the secret file knows.  The control: the same library and debug
# file in directories only root can change, where the debug link is
# followed and the function is named (so the test cannot pass by never
# reading debug files).  Exit 77 (skip) only without libdw, root, a C
# compiler or objcopy.
set -u
NAME=symbols-debuglink
BIN=${MS_BIN:-./mapscope}
TDIR=$(dirname "${MS_FIXTURE:-./tests/ms-fixture}")
HOLD=$TDIR/ms-dlopen-hold
NOBODY=65534
SRCDIR=${srcdir:-.}
. "$SRCDIR/tests/dlopen_hold.sh"
skip() { echo "$NAME: SKIP ($*)"; exit 77; }
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || skip "built without libdw"
[ "$(id -u)" = 0 ] || skip "needs root: root's mapscope against uid $NOBODY"
CC=$(command -v gcc || command -v cc) || skip "no C compiler to build the test library"
command -v objcopy >/dev/null 2>&1 || skip "no objcopy to split the debug file"
hold_need_tmpdir

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-debuglink.XXXXXX") || exit 1
HPID=
cleanup() {
	[ -n "$HPID" ] && kill -KILL "$HPID" 2>/dev/null
	exec 3>&-
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "$NAME: FAIL: $*"; exit 1; }

chmod 0755 "$TMP"
cat >"$TMP/lib.c" <<'EOF'
__attribute__((noinline)) static int another_secret(int x)
{
	return x * 7 + 1;
}

int ms_debuglink_target(int x)
{
	return another_secret(x) + 1;
}
EOF
"$CC" -g -O1 -shared -fPIC -Wl,--build-id=sha1 -o "$TMP/full.so" "$TMP/lib.c" || fail "cannot build"
secret=$(nm "$TMP/full.so" | awk '$3 == "another_secret" { print $1 }')
target=$(nm "$TMP/full.so" | awk '$3 == "ms_debuglink_target" { print $1 }')
[ -n "$secret" ] && [ -n "$target" ] || fail "no symbols in the built library"

# The root-only secret, and a stripped library that links to it by name.
mkdir -m 0700 "$TMP/secretdir"
objcopy --only-keep-debug "$TMP/full.so" "$TMP/secretdir/secret.debug" || fail "objcopy"
chmod 0600 "$TMP/secretdir/secret.debug"
objcopy --strip-debug --strip-unneeded "$TMP/full.so" "$TMP/stripped.so" || fail "strip"
(cd "$TMP/secretdir" && objcopy --add-gnu-debuglink=secret.debug "$TMP/stripped.so" "$TMP/linked.so") ||
	fail "add-gnu-debuglink"
nm "$TMP/linked.so" 2>/dev/null | grep -q another_secret && fail "the stripped library still names the function"

# The user's directory, with the planted link.
mkdir -m 0755 "$TMP/user"
cp "$TMP/linked.so" "$TMP/user/lib.so"
ln -s "$TMP/secretdir" "$TMP/user/.debug"
chown -h "$NOBODY:$NOBODY" "$TMP/user" "$TMP/user/lib.so" "$TMP/user/.debug"
# Root's directory, the control.
mkdir -m 0755 "$TMP/root" "$TMP/root/.debug"
cp "$TMP/linked.so" "$TMP/root/lib.so"
cp "$TMP/secretdir/secret.debug" "$TMP/root/.debug/secret.debug"

# at DIR: the SYMBOL root's mapscope gives for another_secret+1 in DIR/lib.so,
# mapped by uid 65534.
at_secret() {
	hold_start "$TMP" "$HOLD" "$1/lib.so" ms_debuglink_target
	sym=$HSYM
	addr=$(printf '%x' $((0x$sym - 0x$target + 0x$secret + 1)))
	timeout -s KILL 20 "$BIN" at "$HPID" "$addr" -r -n -o SYMBOL 2>"$TMP/err" || fail "at exited $?: $(cat "$TMP/err")"
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	HPID=
}

got=$(at_secret "$TMP/root")
[ "$got" = another_secret+0x1 ] || fail "control: a debug link in root's directories gave '$got', not another_secret+0x1"
echo "ok 1 - a debug link in directories only root can change is followed: $got"
got=$(at_secret "$TMP/user")
case $got in
*another_secret*) fail "root read the secret through the user's .debug symlink: $got" ;;
esac
echo "ok 2 - a debug link through a user's .debug symlink is not followed: '$got'"
