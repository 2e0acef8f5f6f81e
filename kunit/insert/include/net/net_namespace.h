before: void net_ns_barrier(void);
#if IS_ENABLED(CONFIG_PROC_NS_KUNIT_TEST)
void net_ns_kunit_flush_cleanup(void);
#endif

