
#ifdef CONFIG_NSFS_KUNIT_TEST
#include "tests/nsfs_kunit.c"
#endif
