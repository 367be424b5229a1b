// SPDX-License-Identifier: GPL-2.0-or-later
/* helper.c - a stand-in for a runtime object linked into the module. */
#include <linux/kernel.h>
#include "helper.h"

#ifndef TAPIR_GREETING
#define TAPIR_GREETING "hello"
#endif

const char *tapir_test_greeting(void)
{
	return TAPIR_GREETING;
}
