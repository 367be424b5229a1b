// SPDX-License-Identifier: GPL-2.0-or-later
/* plain.c - nothing of the module's own: prebuilt. */
#include "api.h"

int tapir_test_plain(int x)
{
	return 2 * x;
}
