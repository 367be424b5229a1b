# Sources of the translator front end; included by the top-level Makefile.am.
# libtapir.a holds every pass so that tapir, the fuzzers and the benches
# link the same code.
noinst_LIBRARIES += translator/libtapir.a
translator_libtapir_a_SOURCES = \
	translator/arena.c translator/arena.h \
	translator/xalloc.c translator/xalloc.h \
	translator/diag.c translator/diag.h \
	translator/session.c translator/session.h \
	translator/kconfig.c translator/kconfig.h \
	translator/token.h \
	translator/lexer.c translator/lexer.h \
	translator/preproc.c translator/preproc.h \
	translator/parser.c translator/parser.h \
	translator/feed.c translator/feed.h \
	translator/ast.c translator/ast.h \
	translator/print.c translator/print.h \
	translator/parse.c translator/parse.h \
	translator/strmap.c translator/strmap.h \
	translator/elab.h translator/elab-internal.h translator/provider.h \
	translator/tapset.c translator/resolve.c translator/types.c \
	translator/probes.c translator/ksyms.c translator/optimize.c \
	translator/dump.c translator/regex.c translator/regex-compile.h \
	translator/pp_core.c translator/pp_timer.c translator/pp_kprobe.c \
	translator/pp_kernel.c \
	translator/emit.c translator/emit.h translator/emit-internal.h \
	translator/emit-expr.c translator/emit-stmt.c translator/emit-global.c translator/emit-dwarf.c
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
BUILT_SOURCES += translator/lexer.c translator/parser.c translator/parser.h
CLEANFILES += translator/lexer.c translator/parser.c translator/parser.h translator/parser.output
EXTRA_DIST += translator/lexer.l translator/parser.y

translator/lexer.c: $(top_srcdir)/translator/lexer.l
	$(AM_V_GEN)$(MKDIR_P) translator && $(FLEX) -o $@ $<
translator/parser.c translator/parser.h: $(top_srcdir)/translator/parser.y
	$(AM_V_GEN)$(MKDIR_P) translator && $(BISON) -Werror -Wall -d -o translator/parser.c $<
