
#ifdef CONFIG_PROC_NS_KUNIT_TEST
#include "namespaces_kunit.c"
#endif
