/*
 * HAVE_TIMER_DELETE_SYNC: timer_delete_sync() (6.2, backported to
 * Debian's 6.1; the del_timer_sync() wrapper went away later).
 * exports: timer_delete_sync
 */
#include <linux/timer.h>

int tapir_feature(struct timer_list *t);
int tapir_feature(struct timer_list *t)
{
	return timer_delete_sync(t);
}
