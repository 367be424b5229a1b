/*
 * HAVE_HRTIMER_SETUP: hrtimer_setup(timer, fn, clock, mode) (6.13;
 * hrtimer_init() was removed in 6.15).
 */
#include <linux/hrtimer.h>

static enum hrtimer_restart tapir_cb(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void tapir_feature(struct hrtimer *t);
void tapir_feature(struct hrtimer *t)
{
	hrtimer_setup(t, tapir_cb, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
