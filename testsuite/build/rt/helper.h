/* helper.h - a stand-in for a runtime header (the build tier's tree). */
#ifndef TAPIR_TEST_HELPER_H
#define TAPIR_TEST_HELPER_H

const char *tapir_test_greeting(void);

#endif
