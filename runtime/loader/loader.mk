# The loader, tapir-run (runtime/loader/tapir-run.c): Tapir's staprun.
# Included by the top-level Makefile.am.
#
# It is copied into qemu guests as it is, so it is linked statically
# against libc alone and built with its own flags (as the VM agent): this
# build's CFLAGS, LDFLAGS and LIBS may carry the sanitizers (which cannot
# link -static) and libdw/libelf. It sits at runtime/tapir-run, where
# translator/run.c and bench/overhead look in a build tree, and installs
# as $(bindir)/tapir-run.
bin_SCRIPTS = runtime/tapir-run
CLEANFILES += runtime/tapir-run
EXTRA_DIST += runtime/loader/loader.mk
runtime/tapir-run: $(srcdir)/runtime/loader/tapir-run.c $(srcdir)/runtime/transport-proto.h
	$(AM_V_CCLD)$(MKDIR_P) runtime && \
	  $(CC) -std=gnu11 -O2 -g $(WARN_CFLAGS) -static -o $@ \
	  $(srcdir)/runtime/loader/tapir-run.c
