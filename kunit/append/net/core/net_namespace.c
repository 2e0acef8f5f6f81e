
#if IS_ENABLED(CONFIG_PROC_NS_KUNIT_TEST) && defined(CONFIG_NET_NS)
/**
 * net_ns_kunit_flush_cleanup - wait until every netns put so far is freed
 *
 * For the proc_ns KUnit suite: the last put_net() leaves the free to
 * cleanup_net() on netns_wq, an ordered workqueue; this returns once
 * every cleanup queued before the call has run, the namespace's charge
 * to its owner (dec_net_namespaces()) included.
 */
void net_ns_kunit_flush_cleanup(void)
{
	flush_workqueue(netns_wq);
}
#endif
