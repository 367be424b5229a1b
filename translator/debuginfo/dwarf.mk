# DWARF probes (translator/debuginfo/dwarf*.c: kernel debuginfo through libdw, probe
# sites, target variables) in libtapir.a. Included by the top-level
# Makefile.am after sources.mk; libdw comes from configure.ac.
translator_libtapir_a_SOURCES += translator/debuginfo/dwarf.c translator/debuginfo/dwarf-api.h \
	translator/debuginfo/dwarf-internal.h translator/debuginfo/dwarf-types.c \
	translator/debuginfo/dwarf-vars.c translator/debuginfo/dwarf-walk.c translator/debuginfo/dwarf-print.c \
	translator/debuginfo/dwarf-trace.c translator/debuginfo/kmod.c translator/debuginfo/ko-events.c \
	translator/debuginfo/btf.c translator/debuginfo/btf-api.h \
	translator/debuginfo/tpsys.c

EXTRA_DIST += translator/debuginfo/dwarf.mk bench/dwarf testsuite/dwarf
