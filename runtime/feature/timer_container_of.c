/* HAVE_TIMER_CONTAINER_OF: timer_container_of() (6.16; before: from_timer()). */
#include <linux/timer.h>

struct tapir_holder {
	struct timer_list t;
};

struct tapir_holder *tapir_feature(struct timer_list *t);
struct tapir_holder *tapir_feature(struct timer_list *t)
{
	struct tapir_holder *h = timer_container_of(h, t, t);

	return h;
}
