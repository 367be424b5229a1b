/*
 * HAVE_GET_KRETPROBE: get_kretprobe(ri) (5.11; ri->rp is gone).
 */
#include <linux/kprobes.h>

struct kretprobe *tapir_feature(struct kretprobe_instance *ri);
struct kretprobe *tapir_feature(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}
