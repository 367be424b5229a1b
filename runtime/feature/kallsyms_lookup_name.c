/*
 * HAVE_KALLSYMS_LOOKUP_NAME: kallsyms_lookup_name() is exported (it lost
 * its export in 5.7: then find it through a kprobe on its name, or take
 * addresses from user space).
 * exports: kallsyms_lookup_name
 */
#include <linux/kallsyms.h>

unsigned long tapir_feature(const char *name);
unsigned long tapir_feature(const char *name)
{
	return kallsyms_lookup_name(name);
}
