# Sourced by shell tests: syslib SONAME FALLBACK prints the path of a
# library of the system named SONAME (python3 links with libbz2, libz and
# liblzma), else $TDIR/FALLBACK, one we built.  The system's are not built
# with the sanitizers, so an uninstrumented python3 may load a copy of
# them where it could not load ours in a sanitizer build.
syslib() {
	for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
		[ -r "$d/$1" ] && { echo "$d/$1"; return; }
	done
	echo "$TDIR/$2"
}
