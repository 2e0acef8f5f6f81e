
#ifdef CONFIG_PROC_NS_KUNIT_TEST
#include "tests/proc_ns_kunit.c"
#endif
