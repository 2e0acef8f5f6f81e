
#ifdef CONFIG_NSPROXY_SETNS_KUNIT_TEST
#include "nsproxy_kunit.c"
#endif
