#!/usr/bin/env bash
# The layers and rooms of src/, kept by a test rather than by a reviewer
# (after Chromium's checkdeps and the kernel's header rules).  Every
# `#include "..."` in src/ is resolved to the file it names, and the test
# fails on:
#   - an include against the order: core < cli, tui < main; cli and tui
#     never include each other; inside core, a room includes only its own
#     room and the rooms below it in src/core/ROOMS (the one place the order
#     is written);
#   - a source file in src/core that is in no room, or in a room ROOMS does
#     not name;
#   - an include that names no file in src/;
#   - two files that include each other, and any longer circle of files.
# LAYERS_SRC points the test at another tree (tests of the test).
set -u
top=${LAYERS_SRC:-${srcdir:-.}}
src=$top/src
rooms_file=$src/core/ROOMS
[ -f "$rooms_file" ] || { echo "test_layers: no $rooms_file"; exit 1; }

declare -A rank
order=()
while read -r room _; do
	case $room in '' | '#'*) continue ;; esac
	rank[$room]=${#order[@]}
	order+=("$room")
done <"$rooms_file"
echo "rooms, lowest first: ${order[*]}"
echo "layers: core < cli, tui < main"

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The layer of a path under src/, its rank (core 0, cli and tui 1, main 2)
# and, in core, its room ("-" for none): in w_layer, w_rank and w_room.
where() {
	w_room=-
	case $1 in
	main.c) w_layer=main w_rank=2 ;;
	cli/*) w_layer=cli w_rank=1 ;;
	tui/*) w_layer=tui w_rank=1 ;;
	core/*/*)
		w_layer=core w_rank=0
		w_room=${1#core/}
		w_room=${w_room%%/*}
		;;
	core/*) w_layer=core w_rank=0 ;;
	*) w_layer=other w_rank=9 ;;
	esac
}

edges=$(mktemp "${TMPDIR:-/tmp}/ms-layers.XXXXXX")
trap 'rm -f "$edges"' EXIT

nfiles=0
nincl=0
while IFS= read -r path; do
	f=${path#"$src"/}
	nfiles=$((nfiles + 1))
	where "$f"
	layer=$w_layer lrank=$w_rank room=$w_room
	if [ "$layer" = core ]; then
		if [ "$room" = - ]; then
			fail "src/$f is in no room (move it into a folder named in src/core/ROOMS)"
		elif [ -z "${rank[$room]+x}" ]; then
			fail "src/$f is in room '$room', which src/core/ROOMS does not name"
		fi
	fi
	while IFS= read -r inc; do
		[ "$inc" = config.h ] && continue
		nincl=$((nincl + 1))
		dir=${f%/*}
		if [ -f "$src/$dir/$inc" ]; then
			t=$dir/$inc
		elif [ -f "$src/core/$inc" ]; then
			t=core/$inc
		elif [ -f "$src/$inc" ]; then
			t=$inc
		else
			fail "src/$f includes \"$inc\", which is no file in src/"
			continue
		fi
		case $t in */../* | */./*) t=$(realpath -m --relative-to="$src" "$src/$t") ;; esac
		echo "$f $t" >>"$edges"
		where "$t"
		tlayer=$w_layer trank=$w_rank troom=$w_room
		if [ "$tlayer" = main ]; then
			fail "src/$f includes src/$t: nothing includes main"
		elif [ "$lrank" -lt "$trank" ]; then
			fail "src/$f ($layer) includes src/$t ($tlayer): a lower layer includes a higher one"
		elif [ "$layer" != "$tlayer" ] && [ "$lrank" = "$trank" ]; then
			fail "src/$f ($layer) includes src/$t ($tlayer): cli and tui never include each other"
		elif [ "$layer" = core ] && [ "$tlayer" = core ] && [ -n "${rank[$room]+x}" ] &&
			[ -n "${rank[$troom]+x}" ] && [ "${rank[$room]}" -lt "${rank[$troom]}" ]; then
			fail "src/$f (room $room) includes src/$t (room $troom): against the order in src/core/ROOMS"
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$path")
done < <(find "$src" -name '*.[ch]' | LC_ALL=C sort)

# Two files that include each other.
while read -r a b; do
	[[ "$a" < "$b" ]] || continue
	grep -qxF "$b $a" "$edges" && fail "src/$a and src/$b include each other"
done <"$edges"
# Any longer circle of files (tsort names the files on one).
while IFS= read -r loop; do
	[ -n "$loop" ] && fail "a circle of includes:$loop"
done < <(tsort "$edges" 2>&1 >/dev/null | awk '
	/input contains a loop/ { if (l != "") print l; l = ""; next }
	{ sub(/^tsort: /, ""); l = l " src/" $0 }
	END { if (l != "") print l }')

echo "checked $nincl includes in $nfiles files under src/"
if [ "$fails" -gt 0 ]; then
	echo "test_layers: $fails violation(s)"
	exit 1
fi
echo "test_layers: every include follows the order, and no files include each other"
