// SPDX-License-Identifier: GPL-2.0-or-later
/* viahdr.c - the module's name through a tree header (wrap.h, tag.h). */
#include <linux/kernel.h>
#include "api.h"
#include "wrap.h"

const char *tapir_test_via_header(void)
{
	return TAPIR_TEST_TAG("via header");
}
