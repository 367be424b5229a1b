/*
 * HAVE_GET_KRETPROBE_RETADDR: get_kretprobe_retaddr(ri) (5.18, with
 * rethook; before: ri->ret_addr).
 */
#include <linux/kprobes.h>

unsigned long tapir_feature(struct kretprobe_instance *ri);
unsigned long tapir_feature(struct kretprobe_instance *ri)
{
	return get_kretprobe_retaddr(ri);
}
