/*
 * HAVE_TASK_WORK_CANCEL_FUNC: task_work_cancel_func() (6.11, backported
 * to Debian's 6.1: there task_work_cancel() takes a callback_head *).
 */
#include <linux/task_work.h>

struct callback_head *tapir_feature(struct task_struct *t, task_work_func_t f);
struct callback_head *tapir_feature(struct task_struct *t, task_work_func_t f)
{
	return task_work_cancel_func(t, f);
}
