/* HAVE_KPROBE_SYMBOL_NAME: struct kprobe names its target by symbol_name. */
#include <linux/kprobes.h>

static struct kprobe tapir_kp __attribute__((used)) = {
	.symbol_name = "tapir_feature",
	.offset = 0,
};
