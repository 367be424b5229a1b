# The VM runner: translator/vm/vm.c (in libtapir.a, for tapir --vm), the guest
# agent that is the guest's /init, and the tapir-vm tool. Included by the
# top-level Makefile.am after translator/sources.mk.
translator_libtapir_a_SOURCES += translator/vm/vm.c translator/vm/vm.h \
	translator/vm/vm-initramfs.c translator/vm/vm-initramfs.h translator/vm/vm-proto.h
translator_libtapir_a_CPPFLAGS += -DTAPIR_PKGLIBEXECDIR='"$(pkglibexecdir)"'

pkglibexec_PROGRAMS = tools/tapir-vm
tools_tapir_vm_SOURCES = tools/tapir-vm.c
tools_tapir_vm_CPPFLAGS = $(translator_libtapir_a_CPPFLAGS)
tools_tapir_vm_CFLAGS = $(WARN_CFLAGS)
tools_tapir_vm_LDADD = translator/libtapir.a

# The agent runs in the guest: linked statically, and built with its own
# flags so that the host's (sanitizers cannot link -static) stay out.
pkglibexec_SCRIPTS = translator/tapir-vm-agent
CLEANFILES += translator/tapir-vm-agent
EXTRA_DIST += translator/vm/vm-agent.c translator/vm/vm.mk testsuite/vm
translator/tapir-vm-agent: $(srcdir)/translator/vm/vm-agent.c $(srcdir)/translator/vm/vm-proto.h
	$(AM_V_CCLD)$(MKDIR_P) translator && \
	  $(CC) -O2 $(WARN_CFLAGS) -static -o $@ $(srcdir)/translator/vm/vm-agent.c

# make check-vm: the VM tier alone (boots qemu; skips if it cannot).
check-vm: tools/tapir-vm translator/tapir-vm-agent
	$(AM_V_at)TAPIR_VM=$(abs_top_builddir)/tools/tapir-vm \
	  $(SHELL) $(srcdir)/testsuite/vm/run
.PHONY: check-vm
