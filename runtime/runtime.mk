# The module runtime's unit tests: runtime/{format,stat,map,regex}.c (and
# the translator's regex compiler) built in user space with
# testsuite/unit/unit.c (compat.h maps the kernel bits to
# libc). make check builds testsuite/unit/unit; the `unit` tier of
# testsuite/run-tests runs it and testsuite/unit/kbuild-check (the same
# files as a kernel module, W=1). Included by the top-level Makefile.am.
check_PROGRAMS = testsuite/unit/unit
testsuite_unit_unit_SOURCES = testsuite/unit/unit.c \
	runtime/compat.h runtime/out.h runtime/format.c runtime/format.h \
	runtime/stat.c runtime/stat.h runtime/map.c runtime/map.h \
	runtime/regex.c runtime/regex.h translator/emit/regex.c translator/emit/regex-compile.h \
	translator/xalloc.c translator/xalloc.h
testsuite_unit_unit_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/translator
testsuite_unit_unit_CFLAGS = $(WARN_CFLAGS)
EXTRA_DIST += runtime/runtime.mk testsuite/unit/kbuild-check \
	testsuite/unit/rtcheck.c $(call srcglob,testsuite/unit/oracle/*)
# The runtime tier: a hand-written module for the runtime core
# (testsuite/runtime/run, run by testsuite/run-tests).
EXTRA_DIST += testsuite/runtime
