
#if IS_ENABLED(CONFIG_PROC_NS_KUNIT_TEST)
/**
 * ipc_ns_kunit_flush_free - wait until every ipc namespace put is freed
 *
 * For the proc_ns KUnit suite: the last put_ipc_ns() leaves the free to
 * free_ipc_work, as create_ipc_ns() knows when it waits for pending
 * frees; this returns once that work has run, the namespace's charge to
 * its owner (dec_ipc_namespaces()) included.
 */
void ipc_ns_kunit_flush_free(void)
{
	flush_work(&free_ipc_work);
}
#endif
