/* tag.h - a tree header whose macro puts the module's name in a string. */
#ifndef TAPIR_TEST_NAMED_TAG_H
#define TAPIR_TEST_NAMED_TAG_H

#define TAPIR_TEST_TAG(s) KBUILD_MODNAME ": " s

#endif
