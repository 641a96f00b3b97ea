# Sourced by the restart plan's tests (test_restart_plan.sh, e2e/stale_units.sh):
# four holders of copies of libstale-a.so, made stale in the four ways the
# plan tells apart, each in a systemd service the test makes, or none.
#
# Before sourcing, a script sets TMP (its temp dir), TDIR (absolute: where
# ms-dlopen-hold and the libraries are built), TAG (unique to the run),
# SLICE (system.slice in the name=systemd hierarchy), UNITS (yes: move the
# holders into units; else leave them where the test runs) and fail().
# stale_holders starts them and sets PID_del (its copy deleted, in
# TAG-a.service), PID_rep (replaced by another build, TAG-b), PID_same
# (replaced by the same build, TAG-c) and PID_loose (deleted, no unit), and
# PIDS with all four; holders_cleanup stops them and removes the units.

HOLDERS=

# holder WHO [UNIT]: ms-dlopen-hold on $TMP/WHO/libstale.so, its input a
# FIFO a sleep holds open (polled ready, with a deadline); into UNIT's cgroup
# when UNITS is yes.  Sets PID_WHO.
holder() {
	mkdir "$TMP/$1" && cp "$TDIR/libstale-a.so" "$TMP/$1/libstale.so" && mkfifo "$TMP/$1/in" ||
		fail "cannot prepare $1"
	"$TDIR/ms-dlopen-hold" "$(id -u)" "$TMP/$1/libstale.so" stale_lib_answer <"$TMP/$1/in" >"$TMP/$1/out" &
	pid=$!
	sleep 600 >"$TMP/$1/in" &
	HOLDERS="$HOLDERS $pid $!"
	i=0
	until grep -qs "^ready" "$TMP/$1/out"; do
		i=$((i + 1)); [ $i -lt 200 ] || fail "holder $1 did not start: $(cat "$TMP/$1/out")"; sleep 0.05
	done
	if [ $# -gt 1 ] && [ "$UNITS" = yes ]; then
		mkdir -p "$SLICE/$TAG-$2.service" && echo "$pid" >"$SLICE/$TAG-$2.service/cgroup.procs" ||
			fail "cannot move $pid into $TAG-$2.service"
	fi
	eval "PID_$1=$pid"
}

stale_holders() {
	holder del a
	holder rep b
	holder same c
	holder loose
	rm "$TMP/del/libstale.so" || fail rm
	cp "$TDIR/libstale-b.so" "$TMP/rep/new.so" && mv "$TMP/rep/new.so" "$TMP/rep/libstale.so" || fail "replace"
	cp "$TDIR/libstale-a.so" "$TMP/same/new.so" && mv "$TMP/same/new.so" "$TMP/same/libstale.so" || fail "reinstall"
	rm "$TMP/loose/libstale.so" || fail rm
	PIDS="$PID_del $PID_rep $PID_same $PID_loose"
}

# A cgroup can go once its processes have: wait for them, with a deadline.
holders_cleanup() {
	for p in $HOLDERS; do kill "$p" 2>/dev/null; done
	[ "$UNITS" = yes ] || return 0
	for p in $HOLDERS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	done
	for u in a b c; do rmdir "$SLICE/$TAG-$u.service" 2>/dev/null; done
}
