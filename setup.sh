#!/bin/sh
# Install what mapscope needs to build and test, then generate, configure and
# build it.  Safe to run again: each step runs only when it is needed.
#   ./setup.sh            dependencies, configure, make
#   ./setup.sh --deps     dependencies only
set -eu

cd "$(dirname "$0")"

# Debian/Ubuntu package -> a file that shows it is installed.
PACKAGES="
build-essential:/usr/bin/cc
autoconf:/usr/bin/autoreconf
automake:/usr/bin/automake
pkg-config:/usr/bin/pkg-config
libncurses-dev:/usr/include/ncursesw/curses.h
libsmartcols-dev:/usr/include/libsmartcols/libsmartcols.h
libjansson-dev:/usr/include/jansson.h
libcmocka-dev:/usr/include/cmocka.h
libproc2-dev:/usr/include/libproc2/pids.h
mandoc:/usr/bin/mandoc
tmux:/usr/bin/tmux
clang:/usr/bin/clang
libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
valgrind:/usr/bin/valgrind
systemd:/usr/bin/systemd-analyze
prometheus:/usr/bin/promtool
prometheus-node-exporter:/usr/bin/prometheus-node-exporter
zsh:/bin/zsh
fish:/usr/bin/fish
strace:/usr/bin/strace
libdw-dev:/usr/include/elfutils/libdwfl.h
zlib1g-dev:/usr/include/zlib.h
libdebuginfod-dev:/usr/include/elfutils/debuginfod.h
elfutils:/usr/bin/eu-addr2line
binutils:/usr/bin/addr2line
python3:/usr/bin/python3
python3-jsonschema:/usr/lib/python3/dist-packages/jsonschema/__init__.py
rpm:/usr/bin/rpmbuild
librpm-dev:/usr/include/rpm/rpmts.h
libssl-dev:/usr/include/openssl/evp.h
nodejs:/usr/bin/node
npm:/usr/bin/npm
"

missing=""
for entry in $PACKAGES; do
	pkg=${entry%%:*}
	file=${entry#*:}
	[ -e "$file" ] || missing="$missing $pkg"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "setup: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		# Packages with a service (prometheus-node-exporter) start it only
		# where an init system runs and policy-rc.d allows it; in a chroot or
		# a container invoke-rc.d declines.  The tests never use such a
		# service: test_node_exporter.sh runs its own on a free port.
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing
	else
		echo "setup: missing packages:$missing" >&2
		echo "setup: install them first, for example:" >&2
		echo "  sudo apt-get install$missing" >&2
		exit 1
	fi
fi

# The CycloneDX clients make check validates every SBOM with (tests/js:
# @cyclonedx/cyclonedx-library and packageurl-js, the versions pinned in its
# package-lock.json, for node 18 and later).  Again when the lock file changes.
# No package's install script runs: the validator needs none.
if [ ! -f tests/js/node_modules/.package-lock.json ] ||
	[ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
	echo "setup: installing the SBOM validator in tests/js (npm ci)"
	(cd tests/js && npm ci --no-audit --no-fund --omit=optional --ignore-scripts)
fi

[ "${1:-}" = "--deps" ] && exit 0

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror
make -j"$(nproc 2>/dev/null || echo 2)"
