#!/bin/sh
# npm packages and egg-info distributions as owners, end to end (issue 33):
#   - node_modules/@img/sharp-libvips-linux-x64/package.json (name
#     @img/sharp-libvips-linux-x64, version 1.3.5) around a real library
#     (a copy of libstale-a.so) that a process of uid 65534 loads: `list
#     --by-file` says PACKAGE @img/sharp-libvips-linux-x64, VERSION 1.3.5,
#     PKGSRC npm, in its table and in JSON; `libs --format=cyclonedx`
#     carries pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5, valid against
#     the CycloneDX schema (tests/sbom_check.py);
#   - lib/python3.11/site-packages/foo-1.2.egg-info (PKG-INFO,
#     installed-files.txt naming ../foo/_x.so) around a copy of
#     libstale-b.so that another loads: PACKAGE foo, VERSION 1.2, PKGSRC
#     python, and pkg:pypi/foo@1.2;
#   - trees uid 65534 makes for itself, each around a file a process of
#     that uid maps: a symlinked package.json (to a real one naming the
#     package), a FIFO package.json, a sparse 100 MB package.json, a
#     package.json naming another package, and a folder and package.json
#     with terminal escapes in the name and version.  mapscope, as root,
#     ends (a hang fails the test at the timeout) with none of the first
#     four owned and the last shown escaped, no raw escape byte written.
# Without root, every process is ours (no uid change).  Skips, saying why,
# without python3 with jsonschema (for the SBOM's check).
set -u
NAME=test_npm_owner
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/shtest.sh"
. "$SRC/tests/cdx_validate.sh"
. "$SRC/tests/dlopen_hold.sh"

[ -x $PY ] && $PY -c 'import jsonschema' 2>/dev/null || skip "needs python3-jsonschema (setup.sh installs it)"
HOLD=$TDIR/ms-dlopen-hold
for f in "$HOLD" "$TDIR/libstale-a.so" "$TDIR/libstale-b.so"; do
	[ -f "$f" ] || fail "no $f (make check builds it)"
done
uid=$(id -u)
user=$uid
if [ "$uid" -eq 0 ]; then
	user=65534
	hold_need_tmpdir
fi
# as_user CMD...: run as the user who owns the trees.
as_user() {
	if [ "$uid" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ms-npm.XXXXXX") || exit 1
chmod 0755 "$tmp"
# The holders read their standard input from this FIFO until it ends: we
# keep it open, read and write, so opening it blocks no one.
mkfifo "$tmp/stdin" && exec 4<>"$tmp/stdin" || fail "mkfifo"
trap 'exec 4>&-; for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# ---- the trees -------------------------------------------------------------------------
app=$tmp/app
pkgdir=$app/node_modules/@img/sharp-libvips-linux-x64
mkdir -p "$pkgdir/lib" || exit 1
printf '{\n  "name": "@img/sharp-libvips-linux-x64",\n  "version": "1.3.5",\n  "os": ["linux"],\n  "cpu": ["x64"]\n}\n' \
	>"$pkgdir/package.json"
lib=$pkgdir/lib/libvips-cpp.so.8.18.8
cp "$TDIR/libstale-a.so" "$lib" || exit 1

site=$tmp/venv/lib/python3.11/site-packages
mkdir -p "$site/foo" "$site/foo-1.2.egg-info" || exit 1
printf 'Metadata-Version: 1.1\nName: foo\nVersion: 1.2\n\n' >"$site/foo-1.2.egg-info/PKG-INFO"
printf '../foo/__init__.py\n../foo/_x.so\nPKG-INFO\ninstalled-files.txt\n' >"$site/foo-1.2.egg-info/installed-files.txt"
egg=$site/foo/_x.so
cp "$TDIR/libstale-b.so" "$egg" || exit 1
: >"$site/foo/__init__.py"
chmod -R a+rX "$tmp/app" "$tmp/venv"
[ "$uid" -eq 0 ] && chown -R 65534:65534 "$tmp/app" "$tmp/venv"

# The hostile trees, made by their user: each package folder holds lib/x.so
# (a copy of the library above, which that user may read wherever the
# build tree is).
hostile=$tmp/hostile
mkdir "$hostile" && chmod 0755 "$hostile" || exit 1
[ "$uid" -eq 0 ] && chown 65534:65534 "$hostile"
esc=$(printf 'evil\033[31m')
as_user sh -c '
	set -e
	cd "$1"
	nm=node_modules
	for p in linked fifo huge liar "$2"; do mkdir -p "$nm/$p/lib"; cp "$3" "$nm/$p/lib/x.so"; done
	mkdir real
	printf "{\"name\": \"linked\", \"version\": \"6.6.6\"}" >real/package.json
	ln -s "$1/real/package.json" "$nm/linked/package.json"
	mkfifo "$nm/fifo/package.json"
	printf "{\"name\": \"huge\", \"version\": \"6.6.6\"}" >"$nm/huge/package.json"
	truncate -s 100M "$nm/huge/package.json"
	printf "{\"name\": \"openssl\", \"version\": \"3.0.0\"}" >"$nm/liar/package.json"
	printf "{\"name\": \"evil\\\\u001b[31m\", \"version\": \"1.0\\\\u001b]0;owned\\\\u0007\"}" >"$nm/$2/package.json"
' sh "$hostile" "$esc" "$lib" || fail "uid $user could not make its trees"
grep -q 'u001b' "$hostile/node_modules/$esc/package.json" || fail "the escapes' package.json is not as meant"

# ---- the processes ---------------------------------------------------------------------
# hold OUT ARGS...: ms-dlopen-hold ARGS, its standard input the FIFO (an
# asynchronous command's own is /dev/null), until it says ready.
hold() {
	_o=$1
	shift
	start "$_o" sh -c 'exec "$@" <&4' sh "$HOLD" "$user" "$@"
}
hold "$tmp/npm.out" "$lib" stale_lib_answer
npm_pid=$last
hold "$tmp/egg.out" "$egg" stale_lib_answer
egg_pid=$last
hpids=
i=0
for p in linked fifo huge liar "$esc"; do
	i=$((i + 1))
	hold "$tmp/h$i.out" --map "$hostile/node_modules/$p/lib"
	hpids="$hpids $last"
done

# ---- npm and egg-info: the table, JSON, the SBOM ----------------------------------------
out=$(timeout 120 "$BIN" list "$npm_pid" --by-file -o NAME,PACKAGE,VERSION,PKGSRC -r -n) ||
	fail "list --by-file: exit $?"
printf '%s\n' "$out" | grep -qxF "$lib @img/sharp-libvips-linux-x64 1.3.5 npm" ||
	fail "the library is not @img/sharp-libvips-linux-x64 1.3.5 from npm: $out"
ok "list --by-file: $lib is @img/sharp-libvips-linux-x64 1.3.5, npm"

out=$(timeout 120 "$BIN" list "$egg_pid" --by-file -o NAME,PACKAGE,VERSION,PKGSRC -r -n) ||
	fail "list --by-file: exit $?"
printf '%s\n' "$out" | grep -qxF "$egg foo 1.2 python" || fail "the egg's file is not foo 1.2 from python: $out"
ok "list --by-file: $egg is foo 1.2, python (egg-info)"

timeout 120 "$BIN" list "$npm_pid" --by-file -o NAME,PACKAGE,VERSION,PKGSRC -J >"$tmp/list.json" ||
	fail "list --by-file -J: exit $?"
$PY - "$tmp/list.json" "$lib" <<'EOF' || fail "the JSON does not say so (above)"
import json, sys
rows = [f for f in json.load(open(sys.argv[1]))["files"] if f["name"] == sys.argv[2]]
want = {"name": sys.argv[2], "package": "@img/sharp-libvips-linux-x64", "version": "1.3.5", "pkgsrc": "npm"}
if rows != [want]:
    print("rows %r, not [%r]" % (rows, want))
    sys.exit(1)
EOF
ok "list --by-file -J says the same"

timeout 120 "$BIN" libs --pid="$npm_pid,$egg_pid" --format=cyclonedx >"$tmp/sbom.json" 2>"$tmp/err" ||
	fail "libs --format=cyclonedx: exit $?: $(cat "$tmp/err")"
$PY "$SRC/tests/sbom_check.py" "$SRC/tests/data/cyclonedx" "$tmp/sbom.json" \
	npm @img/sharp-libvips-linux-x64 1.3.5 \
	purl 'pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5' installed - \
	pypi foo 1.2 ||
	fail "the SBOM does not hold (above): $(head -c 4000 "$tmp/sbom.json")"
cdx_validate "$tmp/sbom.json" || fail "the SBOM fails the CycloneDX clients (above)"
ok "the SBOM is valid and carries pkg:npm/%40img/sharp-libvips-linux-x64@1.3.5 and pkg:pypi/foo@1.2"

# ---- the hostile trees -----------------------------------------------------------------
for p in $hpids; do
	timeout 120 "$BIN" list "$p" --by-file -o PACKAGE,VERSION,PKGSRC,NAME -J >"$tmp/hostile.$p.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 124 ] && fail "mapscope hung on the hostile trees (PID $p)"
	[ $rc -eq 0 ] || fail "list --by-file on the hostile trees: exit $rc: $(cat "$tmp/err")"
done
ok "mapscope ended on every hostile tree"
$PY - "$hostile/node_modules" "$tmp"/hostile.*.json <<'EOF' || fail "the hostile trees are not answered as they should be (above)"
import json, sys
nm, failed, rows = sys.argv[1], [], {}
for path in sys.argv[2:]:
    raw = open(path, "rb").read()
    if b"\x1b" in raw or b"\x07" in raw:
        failed.append("a raw escape byte in " + path)
    for f in json.loads(raw)["files"]:
        rows[f["name"]] = f
for p in ("linked", "fifo", "huge", "liar"):
    f = rows.get("%s/%s/lib/x.so" % (nm, p))
    if not f or f["package"] != "not packaged" or f["pkgsrc"] != "none" or f["version"] is not None:
        failed.append("%s: %r" % (p, f))
evil = rows.get(nm + "/evil\\x1b[31m/lib/x.so")
want = {"package": "evil\\x1b[31m", "version": "1.0\\x1b]0;owned\\x07", "pkgsrc": "npm"}
if not evil or any(evil.get(k) != v for k, v in want.items()):
    failed.append("the escapes: %r, not %r (names: %r)" % (evil, want, sorted(rows)))
for f in failed:
    print("FAIL: " + f)
sys.exit(1 if failed else 0)
EOF
ok "a symlinked, a FIFO, a 100 MB and a lying package.json own nothing"
ok "escapes in the folder, name and version are shown escaped"
echo "$NAME: $n passed"
