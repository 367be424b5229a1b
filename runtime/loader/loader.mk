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

# The transport tier (testsuite/transport/run) and bench/transport drive
# the loader with a hand-written module over runtime/transport.c alone.
EXTRA_DIST += testsuite/transport bench/transport
check-local: runtime/tapir-run

# make check-transport: the transport tier alone (boots qemu; skips if it
# cannot).
check-transport: runtime/tapir-run tools/tapir-build tools/tapir-vm
	$(AM_V_at)TAPIR_BUILD=$(abs_top_builddir)/tools/tapir-build \
	  TAPIR_VM=$(abs_top_builddir)/tools/tapir-vm \
	  TAPIR_RUN=$(abs_top_builddir)/runtime/tapir-run \
	  $(SHELL) $(srcdir)/testsuite/transport/run
.PHONY: check-transport
