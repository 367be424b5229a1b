/*
 * HAVE_REGS_GET_KERNEL_ARGUMENT: regs_get_kernel_argument(regs, n)
 * reads the n-th argument at a function's entry.
 */
#include <linux/ptrace.h>

unsigned long tapir_feature(struct pt_regs *regs);
unsigned long tapir_feature(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 0);
}
