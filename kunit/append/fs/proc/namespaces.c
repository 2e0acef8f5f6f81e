
#ifdef CONFIG_NS_OPS_KUNIT_TEST
#include "namespaces_kunit.c"
#endif
