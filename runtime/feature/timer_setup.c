/* HAVE_TIMER_SETUP: timer_setup() with a struct timer_list * callback (4.15). */
#include <linux/timer.h>

static void tapir_cb(struct timer_list *t)
{
}

void tapir_feature(struct timer_list *t);
void tapir_feature(struct timer_list *t)
{
	timer_setup(t, tapir_cb, 0);
}
