/* api.h - the functions of the build tier's "named" tree. */
#ifndef TAPIR_TEST_NAMED_API_H
#define TAPIR_TEST_NAMED_API_H

const char *tapir_test_named(void);
const char *tapir_test_via_header(void);
void tapir_test_dyn(void);
int tapir_test_plain(int x);

#endif
