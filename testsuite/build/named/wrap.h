/* wrap.h - reaches tag.h through a path with "..". */
#include "../named/tag.h"
