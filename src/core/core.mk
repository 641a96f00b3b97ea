# ---- src/core: libmapscope-core.a, the engine ----------------------------------
# Process handles, the PROCMAP_QUERY and text backends, the process list,
# stale verdicts, residency, snapshots and records, safe file I/O.  No
# curses and no printing: errors are values.  Everything else links it.
# Each module lives in a room (src/core/ROOM/), and the rooms stand in the
# one order written in src/core/ROOMS, which tests/test_layers.sh keeps.
noinst_LIBRARIES += libmapscope-core.a
EXTRA_DIST += src/core/ROOMS
libmapscope_core_a_SOURCES = \
	src/core/base/compat.h \
	src/core/base/error.c src/core/base/error.h \
	src/core/base/escape.c src/core/base/escape.h \
	src/core/base/grow.c src/core/base/grow.h \
	src/core/base/units.c src/core/base/units.h \
	src/core/base/cpus.c src/core/base/cpus.h \
	src/core/base/hash.c src/core/base/hash.h \
	src/core/base/digest.c src/core/base/digest.h \
	src/core/base/dlload.c src/core/base/dlload.h \
	src/core/base/saferead.c src/core/base/saferead.h \
	src/core/base/json_scan.c src/core/base/json_scan.h \
	src/core/base/safewrite.c src/core/base/safewrite.h \
	src/core/proc/proc.c src/core/proc/proc.h \
	src/core/proc/access.c src/core/proc/access.h \
	src/core/proc/unit.c src/core/proc/unit.h \
	src/core/proc/container.c src/core/proc/container.h \
	src/core/proc/fstype.c src/core/proc/fstype.h \
	src/core/proc/fstype_shared.c src/core/proc/fstype_shared.h \
	src/core/maps/mapping.c src/core/maps/mapping.h \
	src/core/maps/mapdiff.c src/core/maps/mapdiff.h \
	src/core/maps/mapmatch.c src/core/maps/mapmatch.h \
	src/core/maps/maps.c src/core/maps/maps.h src/core/maps/maps_backend.h \
	src/core/maps/maps_ioctl.c \
	src/core/maps/maps_parse.c src/core/maps/maps_parse.h \
	src/core/maps/maps_text.c src/core/maps/text_reader.c src/core/maps/text_reader.h \
	src/core/maps/fleet.c src/core/maps/fleet.h \
	src/core/maps/ancestry.c src/core/maps/ancestry.h \
	src/core/untrusted/untrusted_walk.c src/core/untrusted/untrusted_walk.h \
	src/core/untrusted/walk_mounts.c src/core/untrusted/walk_mounts.h \
	src/core/untrusted/walk_dircache.c src/core/untrusted/walk_dircache.h \
	src/core/untrusted/untrusted_child.c src/core/untrusted/untrusted_child.h \
	src/core/untrusted/lookup.c src/core/untrusted/lookup.h \
	src/core/untrusted/mapfiles.c src/core/untrusted/mapfiles.h \
	src/core/untrusted/nameproof.c src/core/untrusted/nameproof.h \
	src/core/untrusted/confdir.c src/core/untrusted/confdir.h \
	src/core/untrusted/walk_read.c src/core/untrusted/walk_read.h \
	src/core/elf/buildid.c src/core/elf/buildid.h \
	src/core/elf/elfnote.c src/core/elf/elfnote.h \
	src/core/elf/pkgnote.c src/core/elf/pkgnote.h \
	src/core/elf/lookup_buildid.c src/core/elf/lookup_buildid.h \
	src/core/elf/elfdyn.c src/core/elf/elfdyn.h \
	src/core/elf/soname.c src/core/elf/soname.h \
	src/core/elf/verdef.c src/core/elf/verdef.h \
	src/core/elf/elfcheck.c src/core/elf/elfcheck.h \
	src/core/elf/symbol_text.c src/core/elf/symbol_text.h \
	src/core/resid/residency.c src/core/resid/residency.h src/core/resid/residency_backend.h \
	src/core/resid/residency_scan.c src/core/resid/residency_smaps.c \
	src/core/pkg/pkg.c src/core/pkg/pkg.h \
	src/core/pkg/pkgdb.c src/core/pkg/pkgdb.h \
	src/core/pkg/pkg_status.c src/core/pkg/pkg_status.h \
	src/core/pkg/status_index.c src/core/pkg/status_index.h \
	src/core/pkg/diversions.c src/core/pkg/diversions.h \
	src/core/pkg/candidates.c src/core/pkg/candidates.h \
	src/core/pkg/listlines.c src/core/pkg/listlines.h \
	src/core/pkg/pathtable.c src/core/pkg/pathtable.h \
	src/core/pkg/pkgindex.c src/core/pkg/pkgindex.h \
	src/core/pkg/owner.c src/core/pkg/owner.h src/core/pkg/owner_source.h \
	src/core/pkg/owner_sources.c \
	src/core/pkg/notepkg.c src/core/pkg/notepkg.h \
	src/core/pkg/rpmdb.c src/core/pkg/rpmdb.h \
	src/core/pkg/rpmlib.c src/core/pkg/rpmlib.h \
	src/core/pkg/pydist.c src/core/pkg/pydist.h \
	src/core/pkg/npmpkg.c src/core/pkg/npmpkg.h \
	src/core/pkg/purl.c src/core/pkg/purl.h \
	src/core/pkg/osrelease.c src/core/pkg/osrelease.h \
	src/core/pkg/pyrecord.c src/core/pkg/pyrecord.h \
	src/core/pkg/pymeta.c src/core/pkg/pymeta.h \
	src/core/pkg/dpkglog.c src/core/pkg/dpkglog.h \
	src/core/pkg/dpkglog_parse.c src/core/pkg/dpkglog_parse.h \
	src/core/pkg/dpkglog_gz.c src/core/pkg/dpkglog_gz.h \
	src/core/pkg/pkglog_read.c src/core/pkg/pkglog_read.h \
	src/core/pkg/rpmlog.c src/core/pkg/rpmlog.h \
	src/core/pkg/rpmlog_parse.c src/core/pkg/rpmlog_parse.h \
	src/core/stale/stale.c src/core/stale/stale.h \
	src/core/stale/stale_group.c src/core/stale/stale_group.h \
	src/core/stale/stale_memo.c src/core/stale/stale_memo.h \
	src/core/stale/stale_list.c src/core/stale/stale_list.h \
	src/core/stale/stale_report.c src/core/stale/stale_report.h \
	src/core/stale/stale_prefetch.c src/core/stale/stale_prefetch.h \
	src/core/stale/restart_plan.c src/core/stale/restart_plan.h \
	src/core/stale/ignore.c src/core/stale/ignore.h \
	src/core/procs/proclist.c src/core/procs/proclist.h src/core/procs/proclist_backend.h \
	src/core/procs/proclist_procfs.c src/core/procs/proclist_libproc2.c \
	src/core/files/filemap.c src/core/files/filemap.h \
	src/core/files/facts.c src/core/files/facts.h \
	src/core/files/fileinfo.c src/core/files/fileinfo.h \
	src/core/files/filepkg.c src/core/files/filepkg.h \
	src/core/files/filematch.c src/core/files/filematch.h \
	src/core/files/libtable.c src/core/files/libtable.h \
	src/core/files/libtable_res.c src/core/files/libtable_res.h \
	src/core/files/sbom.c src/core/files/sbom.h src/core/files/sbom_hash.c src/core/files/sbom_budget.c \
	src/core/snap/snapshot.c src/core/snap/snapshot.h \
	src/core/snap/snapshot_read.c \
	src/core/snap/snapshot_write.c src/core/snap/snapshot_write.h \
	src/core/snap/snapshot_res.c \
	src/core/snap/snapshot_pkg.c \
	src/core/snap/filediff.c src/core/snap/filediff.h \
	src/core/snap/record.c src/core/snap/record.h
libmapscope_core_a_SOURCES += src/core/elf/symindex_sort.c src/core/elf/symindex_sort.h
if HAVE_LIBDW
libmapscope_core_a_SOURCES += \
	src/core/elf/symbols.c src/core/elf/symbols.h \
	src/core/elf/symbols_child.c src/core/elf/symbols_child.h \
	src/core/elf/symbols_dw.c src/core/elf/symbols_dw.h \
	src/core/elf/dwload.c src/core/elf/dwload.h \
	src/core/elf/symindex.c src/core/elf/symindex.h \
	src/core/elf/symbols_fetch.c src/core/elf/symbols_fetch.h
endif
nodist_libmapscope_core_a_SOURCES = src/core/stale/stale_ignore_default.c
libmapscope_core_a_CFLAGS = $(AM_CFLAGS) $(LIBPROC2_CFLAGS) $(LIBDW_CFLAGS) $(DEBUGINFOD_CFLAGS) $(LIBRPM_CFLAGS)
# libproc2, libdw, libdebuginfod and librpm are not linked: they are loaded
# when first needed (dwload.c, symbols_fetch.c, proclist_libproc2.c, rpmlib.c).
CORE_LIBS = libmapscope-core.a $(JANSSON_LIBS)

# The default ignore list is data/stale-ignore.conf, compiled in as a C string.
src/core/stale/stale_ignore_default.c: $(srcdir)/data/stale-ignore.conf
	$(AM_V_GEN)$(MKDIR_P) src/core/stale && { \
	  echo '/* Generated from data/stale-ignore.conf by the build; do not edit. */'; \
	  echo '#include "config.h"'; \
	  echo '#include "core/stale/ignore.h"'; \
	  echo 'const char ms_ignore_default_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/	"/' -e 's/$$/\\n"/' $(srcdir)/data/stale-ignore.conf; \
	  echo '	"";'; \
	} > $@.tmp && mv $@.tmp $@
CLEANFILES += src/core/stale/stale_ignore_default.c

staleignoredir = $(pkgdatadir)
dist_staleignore_DATA = data/stale-ignore.conf
