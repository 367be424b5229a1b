/*
 * HAVE_SECURITY_LOCKED_DOWN: security_locked_down() and LOCKDOWN_DEBUGFS
 * (5.4), so the transport can avoid debugfs files lockdown would refuse.
 * exports: security_locked_down
 */
#include <linux/security.h>

int tapir_feature(void);
int tapir_feature(void)
{
	return security_locked_down(LOCKDOWN_DEBUGFS);
}
