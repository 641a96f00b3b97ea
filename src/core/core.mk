# ---- src/core: libmapscope-core.a, the engine ----------------------------------
# Process handles, the PROCMAP_QUERY and text backends, the process list,
# stale verdicts, residency, snapshots and records, safe file I/O.  No
# curses and no printing: errors are values.  Everything else links it.
noinst_LIBRARIES += libmapscope-core.a
libmapscope_core_a_SOURCES = \
	src/core/compat.h \
	src/core/error.c src/core/error.h \
	src/core/escape.c src/core/escape.h \
	src/core/grow.c src/core/grow.h \
	src/core/units.c src/core/units.h \
	src/core/mapping.c src/core/mapping.h \
	src/core/mapdiff.c src/core/mapdiff.h \
	src/core/proc.c src/core/proc.h \
	src/core/fleet.c src/core/fleet.h \
	src/core/fstype.c src/core/fstype.h \
	src/core/maps.c src/core/maps.h src/core/maps_backend.h \
	src/core/maps_ioctl.c \
	src/core/maps_parse.c src/core/maps_parse.h \
	src/core/maps_text.c \
	src/core/proclist.c src/core/proclist.h src/core/proclist_backend.h \
	src/core/proclist_procfs.c src/core/proclist_libproc2.c \
	src/core/saferead.c src/core/saferead.h \
	src/core/safewrite.c src/core/safewrite.h \
	src/core/snapshot.c src/core/snapshot.h \
	src/core/snapshot_read.c \
	src/core/snapshot_write.c src/core/snapshot_write.h \
	src/core/snapshot_res.c \
	src/core/record.c src/core/record.h \
	src/core/residency.c src/core/residency.h src/core/residency_backend.h \
	src/core/residency_scan.c src/core/residency_smaps.c \
	src/core/buildid.c src/core/buildid.h \
	src/core/ignore.c src/core/ignore.h \
	src/core/stale.c src/core/stale.h \
	src/core/stale_group.c src/core/stale_group.h \
	src/core/hash.c src/core/hash.h \
	src/core/untrusted_walk.c src/core/untrusted_walk.h \
	src/core/stale_lookup.c src/core/stale_lookup.h \
	src/core/stale_report.c src/core/stale_report.h \
	src/core/unit.c src/core/unit.h \
	src/core/container.c src/core/container.h \
	src/core/pkgdb.c src/core/pkgdb.h \
	src/core/soname.c src/core/soname.h \
	src/core/filemap.c src/core/filemap.h \
	src/core/fileinfo.c src/core/fileinfo.h \
	src/core/dlload.c src/core/dlload.h \
	src/core/elfcheck.c src/core/elfcheck.h \
	src/core/untrusted_child.c src/core/untrusted_child.h \
	src/core/symbol_text.c src/core/symbol_text.h
if HAVE_LIBDW
libmapscope_core_a_SOURCES += \
	src/core/symbols.c src/core/symbols.h \
	src/core/symbols_child.c src/core/symbols_child.h \
	src/core/symbols_dw.c src/core/symbols_dw.h \
	src/core/dwload.c src/core/dwload.h \
	src/core/symindex.c src/core/symindex.h \
	src/core/symbols_fetch.c src/core/symbols_fetch.h
endif
nodist_libmapscope_core_a_SOURCES = src/core/stale_ignore_default.c
libmapscope_core_a_CFLAGS = $(AM_CFLAGS) $(LIBPROC2_CFLAGS) $(LIBDW_CFLAGS) $(DEBUGINFOD_CFLAGS)
# libproc2, libdw and libdebuginfod are not linked: they are loaded when
# first needed (dwload.c, symbols_fetch.c, proclist_libproc2.c).
CORE_LIBS = libmapscope-core.a $(JANSSON_LIBS)

# The default ignore list is data/stale-ignore.conf, compiled in as a C string.
src/core/stale_ignore_default.c: $(srcdir)/data/stale-ignore.conf
	$(AM_V_GEN)$(MKDIR_P) src/core && { \
	  echo '/* Generated from data/stale-ignore.conf by the build; do not edit. */'; \
	  echo '#include "config.h"'; \
	  echo '#include "core/ignore.h"'; \
	  echo 'const char ms_ignore_default_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/	"/' -e 's/$$/\\n"/' $(srcdir)/data/stale-ignore.conf; \
	  echo '	"";'; \
	} > $@.tmp && mv $@.tmp $@
CLEANFILES += src/core/stale_ignore_default.c

staleignoredir = $(pkgdatadir)
dist_staleignore_DATA = data/stale-ignore.conf
