/*
 * HAVE_RELAY_SUBBUF_START_PADDING: the relay subbuf_start callback takes
 * prev_padding as its fourth argument (dropped in 6.17).
 */
#include <linux/relay.h>

static int tapir_subbuf_start(struct rchan_buf *buf, void *subbuf,
			      void *prev_subbuf, size_t prev_padding)
{
	return 1;
}

static const struct rchan_callbacks tapir_cb __attribute__((used)) = {
	.subbuf_start = tapir_subbuf_start,
};
