// SPDX-License-Identifier: GPL-2.0-or-later
/* named.c - uses KBUILD_MODNAME itself: compiled in each module. */
#include <linux/kernel.h>
#include "api.h"

const char *tapir_test_named(void)
{
	return KBUILD_MODNAME " named";
}
