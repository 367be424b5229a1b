# DWARF probes (translator/dwarf*.c: kernel debuginfo through libdw, probe
# sites, target variables) in libtapir.a. Included by the top-level
# Makefile.am after sources.mk; libdw comes from configure.ac.
translator_libtapir_a_SOURCES += translator/dwarf.c translator/dwarf-api.h \
	translator/dwarf-internal.h translator/dwarf-types.c \
	translator/dwarf-vars.c translator/dwarf-walk.c translator/dwarf-print.c

EXTRA_DIST += translator/dwarf.mk bench/dwarf testsuite/dwarf
