/* HAVE_MODULE_MEM: struct module's mem[MOD_TEXT..] regions (6.4; before:
 * core_layout's size and text_size). */
#include <linux/module.h>

unsigned int tapir_feature(const struct module *m);
unsigned int tapir_feature(const struct module *m)
{
	return m->mem[MOD_TEXT].size;
}
