
#ifdef CONFIG_SOCKETAT_KUNIT_TEST
#include "tests/socketat_kunit.c"
#endif
