#!/bin/sh
# Issue 35's acceptance test: after a real upgrade, an 80x24 terminal shows
# the answer.  A library package built with dpkg-deb, libmstls3 at
# 3.0.19-1~deb12u2 (a Debian version, with its own '~'), is installed with
# dpkg; a process of uid 65534 maps its library; then 3.0.22-1~deb12u2 is
# installed over it, so the process runs a replaced copy that mapscope dates
# from dpkg's log.  A second process maps a copy of the library under a
# folder 160 characters long, which is then deleted.
#
# In tmux at 80x24, under TERM=xterm-256color and TERM=screen, with
# LANG=C.UTF-8 and LANG=C:
#  - the stale view (D, filtered with \ to this run's fixture): the process line
#    keeps PID, USER and FILES; the replaced copy's line shows its verdict,
#    the running version 3.0.19-1~deb12u2 and its file name with
#    " (deleted)"; the deep copy's line keeps "libmstls.so.3 (deleted)"
#    after a cut marked with the locale's ellipsis; Tab shows the versions
#    running and installed;
#  - the libraries view (L, / to the row): the replaced copy's row shows its
#    whole file name and VERSION 3.0.19-1~deb12u2; the deep copy's keeps its
#    file name and " (deleted)";
#  - no '~' on the fixture's lines and the headings but inside those
#    versions (the filter's "name~RUN" in the header aside; other tests' rows
#    in the libraries view may show versions of their own);
#  - each version agrees with the batch command that answers the same
#    question (`stale -o VERSION,NAME`, `libs -o VERSION,NAME`).
# Needs root, dpkg, dpkg-deb, cc and tmux (exit 77, saying which, without
# them).  The package is purged and the holders ended on every exit.
# Polls with a deadline; no fixed sleeps.
set -u

E2E_NAME="narrow e2e"
E2E_TAG=narrow
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../dlopen_hold.sh"

# This run's own names: another copy of the suite may run this test beside
# it, on the same dpkg database and the same screen of processes.  The
# package, its folder and the deep folder all hold RUN; the stale view is
# filtered to it.
RUN=narrow-$$-$(basename "$TMP" | sed 's/.*\.//' | tr -d '\n' | od -An -tx1 | tr -d ' \n')
PKG=libmstls3-$RUN
DIR=/usr/lib/mapscope-test-$RUN
LIB=$DIR/libmstls.so.3
OLD=3.0.19-1~deb12u2
NEW=3.0.22-1~deb12u2
BUILT=$(cd "$(dirname "$FIXTURE")" && pwd)
installed=
HOLDERS=

skip() {
	echo "$E2E_NAME: SKIP ($*)"
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root: dpkg installs, and the holders drop to uid 65534"
for tool in dpkg dpkg-deb cc setpriv; do
	command -v "$tool" >/dev/null 2>&1 || skip "needs $tool"
done
[ -d /var/lib/dpkg/info ] || skip "not a dpkg system"
dpkg -s "$PKG" >/dev/null 2>&1 && skip "a package $PKG is installed already: not touching it"
[ -e "$DIR" ] && skip "$DIR exists already: not touching it"
hold_need_tmpdir

# dpkg ARGS..., again each second for a minute while another test holds dpkg's lock.
dpkg_retry() {
	_tries=60
	until dpkg "$@" >"$TMP/dpkg.out" 2>&1; do
		_tries=$((_tries - 1))
		[ $_tries -gt 0 ] || return 1
		sleep 1
	done
}
narrow_cleanup() {
	exec 4>&- 5>&-
	for h in $HOLDERS; do kill "$h" 2>/dev/null; done
	wait 2>/dev/null
	[ -z "$installed" ] || dpkg_retry --purge "$PKG" || echo "$E2E_NAME: dpkg --purge $PKG failed: $(cat "$TMP/dpkg.out")"
	cleanup
}
trap narrow_cleanup EXIT INT TERM
chmod 0755 "$TMP" || fail "chmod $TMP"

# build VERSION N: the package at VERSION in $TMP/PKG-N.deb; its library returns N,
# so the two builds differ (and so do their build IDs).
build() {
	_tree=$TMP/deb-$1
	mkdir -p "$_tree/DEBIAN" "$_tree$DIR" || fail "mkdir $_tree"
	printf 'int ms_narrow_tls_f(void) { return %d; }\n' "$2" >"$TMP/tls$2.c"
	cc -shared -fPIC -Wl,-soname,libmstls.so.3 -Wl,--build-id=sha1 -o "$_tree$LIB" "$TMP/tls$2.c" 2>"$TMP/cc.err" ||
		fail "cc: $(cat "$TMP/cc.err")"
	chmod 0644 "$_tree$LIB"
	printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: mapscope tests <tests@invalid>\nDescription: a TLS-like library for the narrow-screen test\n' \
		"$PKG" "$1" >"$_tree/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$_tree" "$TMP/$PKG-$2.deb" >"$TMP/deb.out" 2>&1 ||
		fail "dpkg-deb --build: $(cat "$TMP/deb.out")"
}
install() {
	installed=1
	dpkg_retry -i "$1" || fail "dpkg -i $1: $(cat "$TMP/dpkg.out")"
}
# hold NAME FD LIB: ms-dlopen-hold as uid 65534 maps LIB while fd FD (its standard input) stays open; sets HP.
hold() {
	mkfifo "$TMP/$1.in" || fail "mkfifo"
	"$BUILT/ms-dlopen-hold" 65534 "$3" ms_narrow_tls_f <"$TMP/$1.in" >"$TMP/$1.out" 2>&1 &
	HP=$!
	HOLDERS="$HOLDERS $HP"
	eval "exec $2>\"\$TMP/\$1.in\""
	wait_for "$1 to map $3" grep -q '^ready' "$TMP/$1.out"
}

build "$OLD" 1
build "$NEW" 2
install "$TMP/$PKG-1.deb"
hold old 4 "$LIB"
HOLD_OLD=$HP
install "$TMP/$PKG-2.deb"
[ "$(dpkg-query -W -f '${Version}' "$PKG")" = "$NEW" ] || fail "dpkg did not upgrade $PKG to $NEW"

DEEP_NAME=releases-2026-12-01T10-00-00Z-build-$RUN-0123456789abcdef0123456789abcdef-a-folder-name-that-no-80-column-screen-shows-whole-0123456789abcdef0123456789abcdef
DEEP=$TMP/$DEEP_NAME
mkdir "$DEEP" && chmod 0755 "$DEEP" && cp "$TMP/deb-$OLD$LIB" "$DEEP/libmstls.so.3" || fail "cannot place the deep copy"
[ ${#DEEP} -ge 150 ] || fail "the deep folder is only ${#DEEP} characters"
hold deep 5 "$DEEP/libmstls.so.3"
HOLD_DEEP=$HP
rm "$DEEP/libmstls.so.3"
pass "$PKG $OLD mapped by $HOLD_OLD, upgraded to $NEW; a copy under a ${#DEEP}-character folder mapped by $HOLD_DEEP, deleted"

# The default ignore list skips temp files: this one ignores only memfds.
mkdir -p "$TMP/config/mapscope"
printf '# test list\n/memfd:* memory file\n' >"$TMP/config/mapscope/stale-ignore.conf"
IGNORE=$TMP/config/mapscope/stale-ignore.conf

# -- the batch commands' answers -----------------------------------------------------------
# The version on the line that names PATH, from `-r -o VERSION,NAME` (raw: NAME's spaces are \x20).
version_of() { grep -F "$1" | awk '{ print $1; exit }'; }
"$BIN" stale -r -n -o VERSION,NAME --ignore-file "$IGNORE" "$HOLD_OLD" >"$TMP/stale.out" 2>&1
[ $? -le 1 ] || fail "mapscope stale: $(cat "$TMP/stale.out")"
stale_v=$(version_of "$LIB" <"$TMP/stale.out")
[ "$stale_v" = "$OLD" ] || fail "mapscope stale says the replaced copy runs '$stale_v', not $OLD: $(cat "$TMP/stale.out")"
"$BIN" libs -r -n -o VERSION,NAME --pid="$HOLD_OLD" >"$TMP/libs.out" 2>&1 || fail "mapscope libs: $(cat "$TMP/libs.out")"
libs_v=$(version_of "$LIB" <"$TMP/libs.out")
[ "$libs_v" = "$OLD" ] || fail "mapscope libs says the replaced copy runs '$libs_v', not $OLD: $(cat "$TMP/libs.out")"
pass "stale -o VERSION and libs -o VERSION: the replaced copy runs $OLD"

ESC=$(printf '\033')
# The selected line (drawn reversed, below the header bar and the headings), without its attributes.
selected() { screen -e | sed 1,2d | grep -E "^($ESC\\[[0-9;]*m)*$ESC\\[([0-9]+;)*7m" | sed -n 1p | sed "s/$ESC\\[[0-9;]*m//g"; }
selected_has() { selected | grep -qF -e "$1"; }
# found TEXT: the search prompt has closed and the selected line holds TEXT.  A slow build
# searches as each key arrives, so the line selected mid-prompt may be another's.
found() { ! screen | grep -q '^search: ' && selected_has "$1"; }
# The detail pane's value for LABEL (one word).
pane_value() { screen | awk -v l="$1" '$1 == l { print $2; exit }'; }
# no_cut_tilde WHAT [ROWS]: no '~' on the screen's lines (those matching the awk
# pattern ROWS, and the heading lines) but inside the versions, and the
# header's filter "name~".  Other tests' rows may hold versions of their own.
# It waits: the lines below the ones just waited for may be the old ones yet.
cut_tilde() {
	screen | awk "NR <= 2 || $1" | sed -e "s/$OLD//g" -e "s/$NEW//g" -e '1s/| name~narrow-[^ ]*//' | grep -n '~'
}
no_cut_tilde_in() { ! cut_tilde "$1"; }
no_cut_tilde() {
	wait_for "$1: no '~' on screen outside a version" no_cut_tilde_in "${2:-1}"
}
# pane_is WANT: the detail pane's package, running and installed, as "P|R|I".
pane_is() { [ "$(pane_value package)|$(pane_value running)|$(pane_value installed)" = "$1" ]; }
# row_whole_with_old: the selected row ends in the whole file name and shows VERSION $OLD.
row_whole_with_old() {
	found "/libmstls.so.3 (deleted)" || return 1
	row=$(selected)
	case $row in *"/libmstls.so.3 (deleted)") ;; *) return 1 ;; esac
	case " $row " in *" $OLD "*) ;; *) return 1 ;; esac
}

# deep_row_whole: the search prompt is closed and the selected row is the deep copy's (no
# VERSION: it is not packaged), ending in its whole file name after the ellipsis.
deep_row_whole() {
	found "$ell/libmstls.so.3 (deleted)" || return 1
	row=$(selected)
	case $row in *"$ell/libmstls.so.3 (deleted)") ;; *) return 1 ;; esac
	case " $row " in *" $OLD "*) return 1 ;; esac
}

# check TERM LANG (each_terminal sets ctx and ell): the stale view and the libraries view at 80x24.
check() {
	tmux -S "$SOCK" -f /dev/null new-session -d -s ms -x 80 -y 24 \
		"cd '$TMP' && env TERM=$1 LANG=$2 LC_ALL= XDG_CONFIG_HOME='$TMP/config' '$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")'; sleep 60" ||
		fail "cannot start tmux"
	wait_for "the process list ($ctx)" shows "COMMAND"
	[ "$(tmux -S "$SOCK" display -p -t ms '#{window_width}x#{window_height}')" = 80x24 ] || fail "the window is not 80x24"

	# -- the stale view ------------------------------------------------------------------
	keys D
	wait_for "the stale view ($ctx)" shows "mapscope | stale:"
	keys '\'
	wait_for "the stale filter prompt ($ctx)" shows "name contains:"
	keys -l "$RUN"
	keys Enter
	# At 80 columns the header may cut the filter's end.
	wait_for "the stale view filtered ($ctx)" shows "| name~narrow-"
	wait_for "the replaced copy's line ($ctx)" shows_re "^ +replaced +$OLD +/.*/libmstls\\.so\\.3 \\(deleted\\)\$"
	wait_for "$ctx: the holder's line with PID, USER and FILES" shows_re "^ +$HOLD_OLD +nobody +1 "
	wait_for "$ctx: the deep copy's line keeping its file name and (deleted) after '$ell'" \
		shows_re "^ +deleted +- +/.*$ell/libmstls\\.so\\.3 \\(deleted\\)\$"
	no_cut_tilde "$ctx, stale view"
	pass "$ctx: the stale view shows replaced $OLD libmstls.so.3 (deleted), and the deep copy's file name after '$ell'"
	keys / "$LIB (deleted)"
	keys Enter
	wait_for "the replaced copy selected ($ctx)" found "replaced $OLD "
	keys Tab
	wait_for "the detail pane ($ctx)" shows_re "^running +"
	wait_for "$ctx: the pane to say '$PKG|$stale_v|$NEW' (package|running|installed)" pane_is "$PKG|$stale_v|$NEW"
	pass "$ctx: Tab shows running $OLD, installed $NEW, as mapscope stale says"
	keys Escape
	# Esc and q at once would read as Alt+q: q once the pane is closed.
	wait_for "the pane closed ($ctx)" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q '^- detail'"
	keys q
	wait_for "the process list again ($ctx)" sh -c "! tmux -S '$SOCK' capture-pane -p -t ms | grep -q 'mapscope | stale:'"

	# -- the libraries view ----------------------------------------------------------------
	keys L
	wait_for "the libraries view ($ctx)" shows "mapscope | libraries: "
	keys / "$DIR"
	keys Enter
	wait_for "the replaced copy's row selected ($ctx)" found "libmstls.so.3 (deleted)"
	# The row selected before the search may end so too: wait for the search's.
	wait_for "$ctx: the libraries view's row ending in the whole file name, with VERSION $OLD" row_whole_with_old
	pass "$ctx: the libraries view's row: libmstls.so.3 (deleted), VERSION $OLD (as mapscope libs)"
	keys / "$DEEP_NAME"
	keys Enter
	# The replaced copy's row, selected before, also ends in "$ell/libmstls.so.3 (deleted)", and
	# a slow build searches as each key arrives: wait for the prompt to close on the deep row.
	wait_for "$ctx: the deep copy's row selected, keeping '$ell/libmstls.so.3 (deleted)'" deep_row_whole
	no_cut_tilde "$ctx, libraries view" '/libmstls\.so\.3/'
	pass "$ctx: the libraries view keeps the deep copy's file name and (deleted); no '~' but the versions'"
	tmux -S "$SOCK" kill-session -t ms 2>/dev/null
}

each_terminal check
exit 0
