
#ifdef CONFIG_NSPROXY_KUNIT_TEST
#include "tests/nsproxy_kunit.c"
#endif
