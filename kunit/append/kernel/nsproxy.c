
#ifdef CONFIG_NSPROXY_KUNIT_TEST
#include "nsproxy_kunit.c"
#endif
