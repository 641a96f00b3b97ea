#!/bin/sh
# SYMBOL and SOURCE of `mapscope at` against eu-addr2line and GNU addr2line,
# for 1,000 addresses sampled from the executable mappings of the fixture
# and of a python3 process (tests/symbols_ref.py says how they compare).
set -u
BIN=${MS_BIN:-./mapscope}
FIXTURE=${MS_FIXTURE:-./tests/ms-fixture}
HERE=$(dirname "$0")
for tool in eu-addr2line addr2line python3; do
	command -v $tool >/dev/null 2>&1 || { echo "symbols-ref: SKIP (no $tool)"; exit 77; }
done
# The build says whether libdw is in; then at must have the columns.
grep -q '^#define HAVE_LIBDW 1' "${MS_CONFIG_H:-config.h}" || { echo "symbols-ref: SKIP (built without libdw)"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ms-symref.XXXXXX") || exit 1
FPID= PPID_PY=
cleanup() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	[ -n "$PPID_PY" ] && kill "$PPID_PY" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
mkfifo "$TMP/ready"
"$FIXTURE" "$TMP" </dev/null >"$TMP/ready" &
FPID=$!
grep -q '^ready' "$TMP/ready" || { echo "symbols-ref: FAIL: the fixture did not start"; exit 1; }
python3 -c 'import sys, time; print("up", flush=True); time.sleep(600)' >"$TMP/py" &
PPID_PY=$!
i=0
until grep -q up "$TMP/py" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && { echo "symbols-ref: FAIL: python3 did not start"; exit 1; }
	sleep 0.1
done
seed=$(date +%s)
echo "seed $seed"
python3 "$HERE/symbols_ref.py" "$BIN" "$FPID" 1000 "$seed" || { echo "symbols-ref: FAIL (fixture)"; exit 1; }
python3 "$HERE/symbols_ref.py" "$BIN" "$PPID_PY" 1000 "$seed" || { echo "symbols-ref: FAIL (python3)"; exit 1; }
echo "symbols-ref: ok"
