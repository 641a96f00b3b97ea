# The files view and `list --by-file` (issue 13, part 5): mappings grouped
# into files, with build ID, verdict, SONAME and version.

libmapscope_core_a_SOURCES += \
	src/core/soname.c src/core/soname.h \
	src/core/filemap.c src/core/filemap.h \
	src/core/fileinfo.c src/core/fileinfo.h
