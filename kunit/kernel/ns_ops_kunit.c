// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the proc_ns_operations instances behind /proc/<pid>/ns.
 *
 * Each case runs in a KUnit kthread, which shares init's nsproxy with every
 * other kthread. Reference counts are therefore only asserted on private
 * namespaces that the case installs on its own task and releases itself.
 */
#include <kunit/test.h>
#include <linux/nsproxy.h>
#include <linux/proc_ns.h>
#include <linux/sched.h>
#include <linux/utsname.h>

struct ns_ops_case {
	const struct proc_ns_operations *ops;
	const char *name;	/* entry in /proc/<pid>/ns */
	const char *real_name;	/* what readlink shows before ":[inode]" */
	int type;		/* the CLONE_NEW* flag setns(2) matches */
};

static const struct ns_ops_case ns_ops_cases[] = {
#ifdef CONFIG_NET_NS
	{ &netns_operations, "net", "net", CLONE_NEWNET },
#endif
#ifdef CONFIG_UTS_NS
	{ &utsns_operations, "uts", "uts", CLONE_NEWUTS },
#endif
#ifdef CONFIG_IPC_NS
	{ &ipcns_operations, "ipc", "ipc", CLONE_NEWIPC },
#endif
	{ &mntns_operations, "mnt", "mnt", CLONE_NEWNS },
#ifdef CONFIG_PID_NS
	{ &pidns_operations, "pid", "pid", CLONE_NEWPID },
	{ &pidns_for_children_operations, "pid_for_children", "pid", CLONE_NEWPID },
#endif
#ifdef CONFIG_USER_NS
	{ &userns_operations, "user", "user", CLONE_NEWUSER },
#endif
#ifdef CONFIG_CGROUPS
	{ &cgroupns_operations, "cgroup", "cgroup", CLONE_NEWCGROUP },
#endif
#ifdef CONFIG_TIME_NS
	{ &timens_operations, "time", "time", CLONE_NEWTIME },
	{ &timens_for_children_operations, "time_for_children", "time", CLONE_NEWTIME },
#endif
};

static void ns_ops_case_desc(const struct ns_ops_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ns_ops, ns_ops_cases, ns_ops_case_desc);

/* The name and type that /proc and setns(2) rely on. */
static void ns_ops_name_and_type_match_proc(struct kunit *test)
{
	const struct ns_ops_case *c = test->param_value;
	const char *real = c->ops->real_ns_name ?: c->ops->name;

	KUNIT_EXPECT_STREQ(test, c->ops->name, c->name);
	KUNIT_EXPECT_STREQ(test, real, c->real_name);
	KUNIT_EXPECT_EQ(test, c->ops->type, c->type);
}

/* Every instance provides the callbacks nsfs and setns call unconditionally. */
static void ns_ops_has_get_put_install_owner(struct kunit *test)
{
	const struct ns_ops_case *c = test->param_value;

	KUNIT_EXPECT_NOT_NULL(test, c->ops->get);
	KUNIT_EXPECT_NOT_NULL(test, c->ops->put);
	KUNIT_EXPECT_NOT_NULL(test, c->ops->install);
	KUNIT_EXPECT_NOT_NULL(test, c->ops->owner);
}

/*
 * Give the test task a private uts namespace, take and drop a reference
 * through utsns_operations, and check the count moves by exactly one.
 */
static void utsns_get_put_moves_count_by_one(struct kunit *test)
{
	struct nsproxy *old = current->nsproxy, *priv = NULL;
	struct uts_namespace *uts;
	struct ns_common *ns;
	unsigned int base;
	int err;

	if (!IS_ENABLED(CONFIG_UTS_NS))
		kunit_skip(test, "CONFIG_UTS_NS is not set");

	err = unshare_nsproxy_namespaces(CLONE_NEWUTS, &priv, NULL, NULL);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, priv);
	uts = priv->uts_ns;
	KUNIT_ASSERT_PTR_NE(test, uts, &init_uts_ns);

	get_nsproxy(old);
	switch_task_namespaces(current, priv);
	base = refcount_read(&uts->ns.count);

	ns = utsns_operations.get(current);
	KUNIT_EXPECT_PTR_EQ(test, ns, &uts->ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	if (ns)
		utsns_operations.put(ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base);

	/* Drops priv and with it the private uts namespace. */
	switch_task_namespaces(current, old);
}

static struct kunit_case ns_ops_test_cases[] = {
	KUNIT_CASE_PARAM(ns_ops_name_and_type_match_proc, ns_ops_gen_params),
	KUNIT_CASE_PARAM(ns_ops_has_get_put_install_owner, ns_ops_gen_params),
	KUNIT_CASE(utsns_get_put_moves_count_by_one),
	{}
};

static struct kunit_suite ns_ops_test_suite = {
	.name = "ns_ops",
	.test_cases = ns_ops_test_cases,
};

kunit_test_suite(ns_ops_test_suite);

MODULE_DESCRIPTION("KUnit tests for namespace operations");
MODULE_LICENSE("GPL");
