#!/bin/sh
# A mapping's name is a claim, not a path (DESIGN.md, attacker model): the
# verdict on a name that leads somewhere else in our root, or nowhere, is
# "unknown: not a path in our root".  Issue 32, attacks 3 and 4; uid 65534
# plays the user.
#  3. A mount that is gone.  The user's process (in our mount namespace)
#     maps, through /proc/NSPID/root, a file of a tmpfs that only the user's
#     namespace has; then the namespace's last process ends and the mount
#     is detached.  The kernel names what was the root of that mount "/"
#     (here a file bind-mounted over itself): stale --show=all -J says
#     unknown, "not a path in our root", and stale does not call it replaced.
#  3b. The same, for a file deeper in the detached tmpfs: the kernel names
#     it by its path from the mount's root, which the user chooses, here
#     the system's libz.so.1.2.13.  Unknown as in 3, and neither stale nor
#     libs (table, -J, CycloneDX) names zlib's package for it.
#  4. An existence oracle.  The user maps p/present.so and p/absent.so
#     (their copies, in a folder of theirs), removes them and p, and puts
#     the symlink p -> a root-only folder (0700, root's) that holds a
#     present.so and no absent.so.  Both get verdict unknown, "not a path in
#     our root", and nothing else in stale's output (-J, the table, and
#     --openmetrics of each process) tells the two apart.
# stale is run with an empty ignore list: the built-in one ignores names
# under /tmp, where the user's files may be.  Skips, saying why, without
# root or user namespaces (attack 3b: without a libz.so.1 that dpkg owns).
set -u
NA=test_names_attack_gone
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/tests/names_attack.sh"
na_setup
WHY="not a path in our root"
NOIGN=--ignore-file=$tmp/no-ignore.conf
SYM=ms_fixture_sym_target

LIBZ=$(na_syslib libz.so.1)
ZPKG=
[ -n "$LIBZ" ] && command -v dpkg-query >/dev/null 2>&1 && ZPKG=$(na_owner "$LIBZ")

# named PID ADDR NAME: wait (5 s at most) until the kernel names the mapping at ADDR NAME
named() {
	_i=0
	until [ "$(na_name "$1" "$2" | cut -f1)" = "$3" ]; do
		_i=$((_i + 1))
		[ $_i -le 100 ] || fail "the kernel names the mapping of $1 '$(na_name "$1" "$2" | cut -f1)', not '$3'"
		sleep 0.05
	done
}

# ---- attack 3 --------------------------------------------------------------
gone=$tmp/u/gone
na_user mkdir "$gone" || fail "mkdir $gone"
na_ns ns3 'mount -t tmpfs none "$1"; cp "$2" "$1/lib.so"; mount --bind "$1/lib.so" "$1/lib.so"
	if [ -n "$3" ]; then mkdir -p "$1${3%/*}"; cp "$2" "$1$3"; fi' "$gone" "$tmp/u/evil.so" "${ZPKG:+$LIBZ}"
na_hold u3 "/proc/$NSPID/root$gone/lib.so" $SYM
U3=$NP
S3=$NSYM
named "$U3" "$S3" "$gone/lib.so"
if [ -n "$ZPKG" ]; then
	na_hold u3b "/proc/$NSPID/root$gone$LIBZ" $SYM
	U3B=$NP
	S3B=$NSYM
	named "$U3B" "$S3B" "$gone$LIBZ"
fi
kill "$NSPID"
wait "$NSPID" 2>/dev/null
named "$U3" "$S3" /

ms s3.json stale "$NOIGN" --show=all -J "$U3"
check "attack 3, stale --show=all -J: / is unknown, $WHY" py stale-row s3.json / unknown "$WHY"
ms s3.txt stale "$NOIGN" "$U3"
check "attack 3, stale $U3: nothing replaced" none s3.txt replaced

if [ -n "$ZPKG" ]; then
	named "$U3B" "$S3B" "$LIBZ"
	ms s3b.json stale "$NOIGN" --show=all -J "$U3B"
	check "attack 3b, stale --show=all -J: $LIBZ of a gone mount is unknown, $WHY" \
		py stale-row s3b.json "$LIBZ" unknown "$WHY"
	ms s3b.txt stale "$NOIGN" "$U3B"
	check "attack 3b, stale $U3B: no $ZPKG, nothing replaced" none s3b.txt "$ZPKG" replaced
	ms l3b.txt libs --pid="$U3B"
	check "attack 3b, libs --pid=$U3B: no $ZPKG" none l3b.txt "$ZPKG"
	ms l3b.json libs --pid="$U3B" -J -o NAME,PACKAGE,VERSION,PKGSRC,VERDICT
	check "attack 3b, libs -J: $LIBZ neither $ZPKG nor replaced" py libs-name l3b.json "$LIBZ" "$ZPKG"
	ms l3b.cdx libs --pid="$U3B" --format=cyclonedx
	check "attack 3b, libs --format=cyclonedx: no $ZPKG, $LIBZ not replaced" py cdx l3b.cdx - "$ZPKG" "$LIBZ"
	check "attack 3b, libs --format=cyclonedx: the CycloneDX clients accept it" cdx_validate "$tmp/l3b.cdx"
else
	echo "# attack 3b skipped: no libz.so.1 that dpkg owns"
fi

# ---- attack 4 --------------------------------------------------------------
p=$tmp/u/p
hidden=$tmp/root-only
na_user mkdir "$p" && na_user cp "$tmp/u/evil.so" "$p/present.so" && na_user cp "$tmp/u/evil.so" "$p/absent.so" ||
	fail "cannot lay out the user's folder $p"
# Another file than the user's: the verdict today would read its inode and build ID.
mkdir -m 0700 "$hidden" && cp "$TDIR/libstale-a.so" "$hidden/present.so" || fail "cannot make $hidden"
na_hold u4p "$p/present.so" $SYM
UP=$NP
SP=$NSYM
na_hold u4a "$p/absent.so" $SYM
UA=$NP
SA=$NSYM
na_user rm -r "$p" && na_user ln -s "$hidden" "$p" || fail "the user cannot swap $p for a symlink"
na_user test -e "$p/present.so" && fail "uid $NOBODY can see into $hidden"
pname="$p/present.so (deleted)"
aname="$p/absent.so (deleted)"
named "$UP" "$SP" "$pname"
named "$UA" "$SA" "$aname"

# row OUT NAME: NAME's row of stale's table without the name, blanks squeezed
row() {
	awk -v n="$2" '(i = index($0, n)) { print substr($0, i + length(n)) }' "$tmp/$1" | tr -s ' '
}
# same_row OUT: present.so's and absent.so's rows of the table are the same but for the name
same_row() {
	ran "$1" || return 1
	_r1=$(row "$1" "$pname")
	_r2=$(row "$1" "$aname")
	[ -n "$_r1" ] && [ "$_r1" = "$_r2" ] && return 0
	echo "present.so:$_r1 | absent.so:$_r2"
	return 1
}
# same_metrics A B: the two runs of stale --openmetrics are the same but for their time stamps
same_metrics() {
	ran "$1" && ran "$2" || return 1
	grep -v '_timestamp_seconds ' "$tmp/$1" >"$tmp/$1.cmp"
	grep -v '_timestamp_seconds ' "$tmp/$2" >"$tmp/$2.cmp"
	diff "$tmp/$1.cmp" "$tmp/$2.cmp" | grep '^[<>]'
	cmp -s "$tmp/$1.cmp" "$tmp/$2.cmp"
}
ms s4.json stale "$NOIGN" --show=all -J "$UP" "$UA"
check "attack 4, stale --show=all -J: present.so is unknown, $WHY" py stale-row s4.json "$pname" unknown "$WHY"
check "attack 4, stale --show=all -J: absent.so is unknown, $WHY" py stale-row s4.json "$aname" unknown "$WHY"
check "attack 4, stale --show=all -J: present.so and absent.so differ only by name" \
	py stale-same s4.json "$pname" "$aname"
ms s4.txt stale "$NOIGN" --show=all "$UP" "$UA"
check "attack 4, stale --show=all: their rows differ only by name" same_row s4.txt
ms s4p.om stale "$NOIGN" --openmetrics "$UP"
ms s4a.om stale "$NOIGN" --openmetrics "$UA"
check "attack 4, stale --openmetrics: the same for present.so's process and absent.so's" same_metrics s4p.om s4a.om
na_done
