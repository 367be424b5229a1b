# kernel-core/: the probe core linked into every generated module. Its
# sources are installed with the top-level Makefile.am's data files; its
# self-test (kernel-core/selftest/run: kcore_selftest.ko in a qemu guest)
# is the kcore tier of testsuite/run-tests. Included by the top-level
# Makefile.am.
EXTRA_DIST += kernel-core/kcore.mk kernel-core/selftest/run
