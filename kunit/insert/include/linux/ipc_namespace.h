before: extern void put_ipc_ns(struct ipc_namespace *ns);
#if IS_ENABLED(CONFIG_PROC_NS_KUNIT_TEST)
void ipc_ns_kunit_flush_free(void);
#endif
