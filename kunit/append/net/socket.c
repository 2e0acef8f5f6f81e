
#ifdef CONFIG_SOCKETAT_KUNIT_TEST
#include "socketat_kunit.c"
#endif
