/*
 * HAVE_FPROBE: fprobes are configured in (5.18+ with CONFIG_FPROBE;
 * without it register_fprobe() is a stub returning -EOPNOTSUPP).
 */
#include <linux/fprobe.h>

#if !IS_ENABLED(CONFIG_FPROBE)
#error "CONFIG_FPROBE is not set"
#endif

int tapir_feature(struct fprobe *fp);
int tapir_feature(struct fprobe *fp)
{
	return register_fprobe(fp, "tapir*", NULL);
}
