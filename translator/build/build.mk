# Pass 4 (translator/build.c: kbuild and the module cache; kfeature.c: the
# target kernel and its feature tests) in libtapir.a, and the tapir-build
# test tool. Included by the top-level Makefile.am after sources.mk.
translator_libtapir_a_SOURCES += translator/build/build.c translator/build/build.h \
	translator/build/cache-trim.c \
	translator/build/kfeature.c translator/build/kfeature.h \
	translator/build/replay.c translator/build/replay.h \
	translator/build/sha256.c translator/build/sha256.h

noinst_PROGRAMS += tools/tapir-build
tools_tapir_build_SOURCES = tools/tapir-build.c
tools_tapir_build_CPPFLAGS = $(translator_libtapir_a_CPPFLAGS)
tools_tapir_build_CFLAGS = $(WARN_CFLAGS)
tools_tapir_build_LDADD = translator/libtapir.a

EXTRA_DIST += translator/build/build.mk testsuite/build bench/build

# make check-build: the build tier alone (skips without kernel headers).
check-build: tools/tapir-build
	$(AM_V_at)TAPIR_BUILD=$(abs_top_builddir)/tools/tapir-build \
	  $(SHELL) $(srcdir)/testsuite/build/run
.PHONY: check-build
check-local: tools/tapir-build

# Passes 4 and 5 for the driver (translator/run.c): build through
# build_module(), run through the loader on the host or in a guest.
translator_libtapir_a_SOURCES += translator/run.c translator/run.h
translator_libtapir_a_CPPFLAGS += -DTAPIR_BINDIR='"$(bindir)"'
