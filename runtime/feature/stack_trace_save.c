/*
 * HAVE_STACK_TRACE_SAVE: stack_trace_save() (5.2) is there and exported.
 * exports: stack_trace_save
 */
#include <linux/stacktrace.h>

unsigned int tapir_feature(unsigned long *store, unsigned int size);
unsigned int tapir_feature(unsigned long *store, unsigned int size)
{
	return stack_trace_save(store, size, 0);
}
