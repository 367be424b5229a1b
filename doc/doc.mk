# Manual pages, shell completion and the Debian packaging (debian/, its
# tier testsuite/package/run). Included by the top-level Makefile.am.
#
# tapir(1), tapir-run(8) and tapir-errors(7) are written by hand
# (doc/*.in: the version and the installed paths are filled in);
# tapir-functions(3) and tapir-probes(7) are generated from the tapsets'
# doc comments and tapir's own lists by doc/gen-tapset-man, so they follow
# every tapset file (any *.stp under tapsets/, however deep) and provider.
# The man tier of the testsuite (testsuite/man/run) checks them.
nodist_man1_MANS = doc/tapir.1
nodist_man3_MANS = doc/tapir-functions.3
nodist_man7_MANS = doc/tapir-probes.7 doc/tapir-errors.7
nodist_man8_MANS = doc/tapir-run.8
CLEANFILES += doc/tapir.1 doc/tapir-functions.3 doc/tapir-probes.7 \
	doc/tapir-errors.7 doc/tapir-run.8

doc_subst = sed -e 's|@VERSION[@]|$(PACKAGE_VERSION)|g' \
	-e 's|@PKGDATADIR[@]|$(pkgdatadir)|g' \
	-e 's|@PKGLIBEXECDIR[@]|$(pkglibexecdir)|g'

doc/tapir.1: $(srcdir)/doc/tapir.1.in
	$(AM_V_GEN)$(MKDIR_P) doc && $(doc_subst) $(srcdir)/doc/tapir.1.in >$@
doc/tapir-run.8: $(srcdir)/doc/tapir-run.8.in
	$(AM_V_GEN)$(MKDIR_P) doc && $(doc_subst) $(srcdir)/doc/tapir-run.8.in >$@
doc/tapir-errors.7: $(srcdir)/doc/tapir-errors.7.in
	$(AM_V_GEN)$(MKDIR_P) doc && $(doc_subst) $(srcdir)/doc/tapir-errors.7.in >$@

# Every tapset file, found the way the generator finds them.
doc_tapsets = $(shell find $(srcdir)/tapsets -name '*.stp' -type f 2>/dev/null)
doc_gen = $(srcdir)/doc/gen-tapset-man $(srcdir)/doc/tapset-man.awk

doc/tapir-functions.3: translator/tapir $(doc_gen) $(doc_tapsets) \
		$(srcdir)/doc/tapir-functions.head $(srcdir)/doc/tapir-functions.tail
	$(AM_V_GEN)$(MKDIR_P) doc && $(SHELL) $(srcdir)/doc/gen-tapset-man functions \
	  translator/tapir $(abs_top_srcdir) $(PACKAGE_VERSION) >$@.tmp && mv $@.tmp $@
doc/tapir-probes.7: translator/tapir $(doc_gen) $(doc_tapsets) $(srcdir)/doc/probe-points \
		$(srcdir)/doc/tapir-probes.head $(srcdir)/doc/tapir-probes.tail
	$(AM_V_GEN)$(MKDIR_P) doc && $(SHELL) $(srcdir)/doc/gen-tapset-man probes \
	  translator/tapir $(abs_top_srcdir) $(PACKAGE_VERSION) >$@.tmp && mv $@.tmp $@

# Bash completion, where bash-completion looks for it; tapir-run shares it.
bashcompdir = $(datadir)/bash-completion/completions
dist_bashcomp_DATA = doc/completion/tapir
install-data-hook: install-bashcomp-link
install-bashcomp-link:
	cd $(DESTDIR)$(bashcompdir) && rm -f tapir-run && ln -s tapir tapir-run
uninstall-hook: uninstall-bashcomp-link
uninstall-bashcomp-link:
	rm -f $(DESTDIR)$(bashcompdir)/tapir-run
.PHONY: install-bashcomp-link uninstall-bashcomp-link

EXTRA_DIST += doc/doc.mk doc/tapir.1.in doc/tapir-run.8.in doc/tapir-errors.7.in \
	doc/gen-tapset-man doc/tapset-man.awk doc/probe-points \
	doc/tapir-functions.head doc/tapir-functions.tail \
	doc/tapir-probes.head doc/tapir-probes.tail testsuite/man \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/tapir.docs debian/tapir.examples \
	debian/tapir.lintian-overrides testsuite/package

# make check-man: the man tier alone.
check-man: $(nodist_man1_MANS) $(nodist_man3_MANS) $(nodist_man7_MANS) $(nodist_man8_MANS)
	$(AM_V_at)TAPIR=$(abs_top_builddir)/translator/tapir MANDIR=$(abs_top_builddir)/doc \
	  $(SHELL) $(srcdir)/testsuite/man/run
.PHONY: check-man
check-local: $(nodist_man1_MANS) $(nodist_man3_MANS) $(nodist_man7_MANS) $(nodist_man8_MANS)
