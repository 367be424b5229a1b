# Sources of the translator front end; included by the top-level Makefile.am.
# libtapir.a holds every pass so that tapir, the fuzzers and the benches
# link the same code.
noinst_LIBRARIES += translator/libtapir.a
translator_libtapir_a_SOURCES = \
	translator/arena.c translator/arena.h \
	translator/xalloc.c translator/xalloc.h \
	translator/diag.c translator/diag.h \
	translator/session.c translator/session.h \
	translator/strmap.c translator/strmap.h \
	translator/parse/token.h \
	translator/parse/lexer.c translator/parse/lexer.h \
	translator/parse/preproc.c translator/parse/preproc.h \
	translator/parse/parser.c translator/parse/parser.h \
	translator/parse/feed.c translator/parse/feed.h \
	translator/parse/ast.c translator/parse/ast.h \
	translator/parse/print.c translator/parse/print.h \
	translator/parse/parse.c translator/parse/parse.h \
	translator/elaborate/elab.h translator/elaborate/elab-internal.h \
	translator/elaborate/tapset.c translator/elaborate/resolve.c \
	translator/elaborate/types.c translator/elaborate/probes.c \
	translator/elaborate/autocast.c \
	translator/elaborate/optimize.c translator/elaborate/dump.c \
	translator/elaborate/entry.c \
	translator/providers/provider.h \
	translator/providers/core.c translator/providers/timer.c \
	translator/providers/kprobe.c translator/providers/kernel.c \
	translator/providers/process.c \
	translator/providers/cache-order.c translator/providers/cache-order.h \
	translator/providers/trace.c translator/providers/netfilter.c \
	translator/providers/perf.c \
	translator/providers/trace.c translator/providers/procfs.c \
	translator/providers/hwbkpt.c \
	translator/debuginfo/kconfig.c translator/debuginfo/kconfig.h \
	translator/debuginfo/ksyms.c \
	translator/emit/emit.c translator/emit/emit.h translator/emit/emit-internal.h \
	translator/emit/emit-expr.c translator/emit/emit-stmt.c \
	translator/emit/emit-global.c translator/emit/emit-dwarf.c translator/emit/emit-usym.c \
	translator/emit/emit-trace.c \
	translator/emit/regex.c translator/emit/regex-compile.h
translator_libtapir_a_CPPFLAGS = -I$(top_srcdir)/translator -I$(top_builddir)/translator \
	-DTAPIR_PKGDATADIR='"$(pkgdatadir)"' \
	-DTAPIR_SRCDIR='"$(abs_top_srcdir)"' -DTAPIR_BUILDDIR='"$(abs_top_builddir)"'
translator_libtapir_a_CFLAGS = $(WARN_CFLAGS)

bin_PROGRAMS += translator/tapir
translator_tapir_SOURCES = translator/tapir.c
translator_tapir_CPPFLAGS = $(translator_libtapir_a_CPPFLAGS)
translator_tapir_CFLAGS = $(WARN_CFLAGS)
translator_tapir_LDADD = translator/libtapir.a

# Generated scanner and parser. Bison 3.6+ is needed for parse.error custom.
BUILT_SOURCES += translator/parse/lexer.c translator/parse/parser.c translator/parse/parser.h
CLEANFILES += translator/parse/lexer.c translator/parse/parser.c translator/parse/parser.h \
	translator/parse/parser.output
EXTRA_DIST += translator/parse/lexer.l translator/parse/parser.y

translator/parse/lexer.c: $(top_srcdir)/translator/parse/lexer.l
	$(AM_V_GEN)$(MKDIR_P) translator/parse && $(FLEX) -o $@ $<
translator/parse/parser.c translator/parse/parser.h: $(top_srcdir)/translator/parse/parser.y
	$(AM_V_GEN)$(MKDIR_P) translator/parse && $(BISON) -Werror -Wall -d -o translator/parse/parser.c $<
