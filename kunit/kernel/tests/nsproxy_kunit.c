// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for setns(2)'s internals in kernel/nsproxy.c, which includes
 * this file so that the static helpers are reachable: prepare_nsset(),
 * validate_ns(), commit_nsset(), put_nsset() and check_setns_flags().
 *
 * Every case works on namespaces it creates itself, so that reference
 * counts are exact: the init namespaces are shared with every kthread.
 * What a case takes is released by a KUnit action, so a failed assertion
 * leaks nothing into the next case; a task whose namespaces or creds a
 * case switched gets them back when the case's kthread exits.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/fs_struct.h>
#include <linux/mman.h>

struct nsproxy_kunit_case {
	const char *name;
	int type;
	int refs;	/* references install takes on the target */
	/* The /proc/<pid>/ns entry of what nsproxy_kunit_ns() returns. */
	const struct proc_ns_operations *ops;
};

static const struct nsproxy_kunit_case nsproxy_kunit_cases[] = {
#ifdef CONFIG_UTS_NS
	{ "uts", CLONE_NEWUTS, 1, &utsns_operations },
#endif
#ifdef CONFIG_IPC_NS
	{ "ipc", CLONE_NEWIPC, 1, &ipcns_operations },
#endif
#ifdef CONFIG_NET_NS
	{ "net", CLONE_NEWNET, 1, &netns_operations },
#endif
#ifdef CONFIG_CGROUPS
	{ "cgroup", CLONE_NEWCGROUP, 1, &cgroupns_operations },
#endif
#ifdef CONFIG_PID_NS
	{ "pid", CLONE_NEWPID, 1, &pidns_for_children_operations },
#endif
	{ "mnt", CLONE_NEWNS, 1, &mntns_operations },
#ifdef CONFIG_TIME_NS
	/* install sets both time and time_for_children */
	{ "time", CLONE_NEWTIME, 2, &timens_for_children_operations },
#endif
};

static void nsproxy_kunit_case_desc(const struct nsproxy_kunit_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nsproxy_kunit_type, nsproxy_kunit_cases,
		  nsproxy_kunit_case_desc);

/* The namespace of one type in an nsproxy; "for children" where it differs. */
static struct ns_common *nsproxy_kunit_ns(struct nsproxy *nsp, int type)
{
	switch (type) {
#ifdef CONFIG_UTS_NS
	case CLONE_NEWUTS:
		return &nsp->uts_ns->ns;
#endif
#ifdef CONFIG_IPC_NS
	case CLONE_NEWIPC:
		return &nsp->ipc_ns->ns;
#endif
#ifdef CONFIG_NET_NS
	case CLONE_NEWNET:
		return &nsp->net_ns->ns;
#endif
#ifdef CONFIG_CGROUPS
	case CLONE_NEWCGROUP:
		return &nsp->cgroup_ns->ns;
#endif
#ifdef CONFIG_PID_NS
	case CLONE_NEWPID:
		return &nsp->pid_ns_for_children->ns;
#endif
	case CLONE_NEWNS:
		return from_mnt_ns(nsp->mnt_ns);
#ifdef CONFIG_TIME_NS
	case CLONE_NEWTIME:
		return &nsp->time_ns_for_children->ns;
#endif
	}
	return NULL;
}

KUNIT_DEFINE_ACTION_WRAPPER(nsproxy_kunit_put, put_nsproxy, struct nsproxy *);
KUNIT_DEFINE_ACTION_WRAPPER(nsproxy_kunit_put_cred, put_cred,
			    const struct cred *);
KUNIT_DEFINE_ACTION_WRAPPER(nsproxy_kunit_put_nsset, put_nsset, struct nsset *);

/*
 * prepare_nsset() into @nsset as a caller with @as would (NULL: the test
 * task), undone by put_nsset() when the case ends.
 */
static void nsproxy_kunit_prepare_nsset(struct kunit *test, int flags,
					struct nsset *nsset,
					const struct cred *as)
{
	const struct cred *old = as ? override_creds(as) : NULL;
	int err = prepare_nsset(flags, nsset);

	if (as)
		revert_creds(old);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsproxy_kunit_put_nsset,
						  nsset));
}

/*
 * An nsproxy that holds a new namespace of @type and shares the others with
 * the test task. Released when the case ends.
 */
static struct nsproxy *nsproxy_kunit_private(struct kunit *test, int type)
{
	struct fs_struct *fs = copy_fs_struct(current->fs);
	struct nsproxy *nsp;

	KUNIT_ASSERT_NOT_NULL(test, fs);
	nsp = create_new_namespaces(type, current, current_user_ns(), fs);
	/* copy_mnt_ns() rerooted the copy, not the test task. */
	free_fs_struct(fs);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nsp);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsproxy_kunit_put,
						  nsp));
	KUNIT_ASSERT_PTR_NE(test, nsproxy_kunit_ns(nsp, type),
			    nsproxy_kunit_ns(current->nsproxy, type));
	return nsp;
}

/* Every namespace of @nsp but the one of @type is @ref's. */
static void nsproxy_kunit_expect_only_type_differs_from(struct kunit *test,
							struct nsproxy *nsp,
							struct nsproxy *ref,
							int type)
{
	const struct nsproxy_kunit_case *c;

	for (c = nsproxy_kunit_cases;
	     c < nsproxy_kunit_cases + ARRAY_SIZE(nsproxy_kunit_cases); c++) {
		if (c->type == type)
			continue;
		KUNIT_EXPECT_PTR_EQ_MSG(test, nsproxy_kunit_ns(nsp, c->type),
					nsproxy_kunit_ns(ref, c->type),
					"%s namespace changed", c->name);
	}
}

/* Every namespace of @nsp but the one of @type is the test task's. */
static void nsproxy_kunit_expect_only_type_differs(struct kunit *test,
						   struct nsproxy *nsp,
						   int type)
{
	nsproxy_kunit_expect_only_type_differs_from(test, nsp, current->nsproxy,
						    type);
}

static int nsproxy_kunit_init(struct kunit *test)
{
	unsigned long addr;
	int err;

	/*
	 * The case's kthread shares init's fs_struct and files with every
	 * kthread: mntns_install() refuses a shared fs, and fds must not land
	 * in init's table. timens_install() reads current->mm.
	 */
	err = unshare_fs_struct();
	if (!err)
		err = unshare_files();
	if (err)
		return err;
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
			     MAP_PRIVATE | MAP_ANONYMOUS, 0);
	/* 0 when the mapping could not be made at all. */
	if (!addr || IS_ERR_VALUE(addr))
		return -ENOMEM;
	return 0;
}

/*
 * ops->get on a task takes exactly one reference on its namespace and
 * ops->put drops exactly one. pid_for_children is the exception that
 * /proc shows as ENOENT: a pid namespace without its init yet is not
 * reachable, and get returns NULL having taken nothing.
 */
static void nsproxy_get_takes_one_reference_put_drops_one(struct kunit *test)
{
	const struct nsproxy_kunit_case *c = test->param_value;
	struct nsproxy *priv = nsproxy_kunit_private(test, c->type);
	struct ns_common *target = nsproxy_kunit_ns(priv, c->type);
	struct nsproxy *old = current->nsproxy;
	struct ns_common *ns;
	unsigned int base;

	get_nsproxy(old);
	get_nsproxy(priv);
	switch_task_namespaces(current, priv);
	base = refcount_read(&target->count);

	ns = c->ops->get(current);
	if (c->type == CLONE_NEWPID) {
		KUNIT_EXPECT_NULL(test, ns);
		KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, ns, target);
		KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base + 1);
	}
	if (ns)
		c->ops->put(ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);

	switch_task_namespaces(current, old);
}

/* install takes the target's references and switches only its type. */
static void nsproxy_install_switches_only_that_namespace(struct kunit *test)
{
	const struct nsproxy_kunit_case *c = test->param_value;
	struct nsproxy *priv = nsproxy_kunit_private(test, c->type);
	struct ns_common *target = nsproxy_kunit_ns(priv, c->type);
	struct nsset *nsset = kunit_kzalloc(test, sizeof(*nsset), GFP_KERNEL);
	unsigned int base;

	KUNIT_ASSERT_NOT_NULL(test, nsset);
	nsproxy_kunit_prepare_nsset(test, c->type, nsset, NULL);
	base = refcount_read(&target->count);

	KUNIT_EXPECT_EQ(test, validate_ns(nsset, target), 0);
	KUNIT_EXPECT_PTR_EQ(test, nsproxy_kunit_ns(nsset->nsproxy, c->type),
			    target);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base + c->refs);
	nsproxy_kunit_expect_only_type_differs(test, nsset->nsproxy, c->type);
	/* Nothing is committed before commit_nsset(). */
	KUNIT_EXPECT_PTR_NE(test, nsproxy_kunit_ns(current->nsproxy, c->type),
			    target);

	kunit_release_action(test, nsproxy_kunit_put_nsset, nsset);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);
}

/* Without CAP_SYS_ADMIN, install fails with EPERM and takes nothing. */
static void nsproxy_install_without_cap_sys_admin_is_eperm(struct kunit *test)
{
	const struct nsproxy_kunit_case *c = test->param_value;
	struct nsproxy *priv = nsproxy_kunit_private(test, c->type);
	struct ns_common *target = nsproxy_kunit_ns(priv, c->type);
	struct nsset *nsset = kunit_kzalloc(test, sizeof(*nsset), GFP_KERNEL);
	const struct cred *old;
	struct cred *cred;
	unsigned int base;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, nsset);
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_SYS_ADMIN);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsproxy_kunit_put_cred,
						  cred));
	/* The nsset takes the caller's cred, as setns(2) would. */
	nsproxy_kunit_prepare_nsset(test, c->type, nsset, cred);
	base = refcount_read(&target->count);
	old = override_creds(cred);
	err = validate_ns(nsset, target);
	revert_creds(old);

	KUNIT_EXPECT_EQ(test, err, -EPERM);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);
	KUNIT_EXPECT_PTR_NE(test, nsproxy_kunit_ns(nsset->nsproxy, c->type),
			    target);
	nsproxy_kunit_expect_only_type_differs(test, nsset->nsproxy, c->type);
	kunit_release_action(test, nsproxy_kunit_put_nsset, nsset);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);
}

/*
 * What setns(2) does for one namespace, prepare_nsset(), validate_ns() and
 * commit_nsset(), switches the task to the target for that type and
 * nothing else; the task's previous nsproxy is left as it was. time
 * included: timens_commit() zaps the vvar pages of the mm the suite's init
 * attached, which has none.
 */
static void
nsproxy_commit_nsset_switches_only_that_namespace(struct kunit *test)
{
	const struct nsproxy_kunit_case *c = test->param_value;
	struct nsproxy *priv = nsproxy_kunit_private(test, c->type);
	struct ns_common *target = nsproxy_kunit_ns(priv, c->type);
	struct nsset *nsset = kunit_kzalloc(test, sizeof(*nsset), GFP_KERNEL);
	struct nsproxy *old = current->nsproxy;
	struct ns_common *before = nsproxy_kunit_ns(old, c->type);
	unsigned int base;

	KUNIT_ASSERT_NOT_NULL(test, nsset);
	nsproxy_kunit_prepare_nsset(test, c->type, nsset, NULL);
	base = refcount_read(&target->count);
	KUNIT_ASSERT_EQ(test, validate_ns(nsset, target), 0);

	get_nsproxy(old);
	commit_nsset(nsset);
	KUNIT_EXPECT_NULL(test, nsset->nsproxy);
	KUNIT_EXPECT_PTR_NE(test, current->nsproxy, old);
	KUNIT_EXPECT_PTR_EQ(test, nsproxy_kunit_ns(current->nsproxy, c->type),
			    target);
	nsproxy_kunit_expect_only_type_differs_from(test, current->nsproxy, old,
						    c->type);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base + c->refs);
	KUNIT_EXPECT_PTR_EQ(test, nsproxy_kunit_ns(old, c->type), before);
	switch_task_namespaces(current, old);
	KUNIT_EXPECT_EQ(test, refcount_read(&target->count), base);
}

/*
 * A user namespace lives in the cred, not in the nsproxy: its install
 * moves the nsset's cred into it with every capability there, and the
 * commit makes that cred the task's; the task's namespaces stay (in the
 * nsset's copy of its nsproxy).
 */
static void
nsproxy_commit_nsset_of_a_userns_switches_only_the_cred(struct kunit *test)
{
	struct nsset *nsset = kunit_kzalloc(test, sizeof(*nsset), GFP_KERNEL);
	struct nsproxy *nsp = current->nsproxy;
	struct user_namespace *child;
	struct cred *cred;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is off");
	KUNIT_ASSERT_NOT_NULL(test, nsset);
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsproxy_kunit_put_cred,
						  cred));
	KUNIT_ASSERT_EQ(test, create_user_ns(cred), 0);
	child = cred->user_ns;

	/* The commit installs the nsset's copy of @nsp: keep it to compare. */
	get_nsproxy(nsp);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsproxy_kunit_put,
						  nsp));
	nsproxy_kunit_prepare_nsset(test, CLONE_NEWUSER, nsset, NULL);
	KUNIT_ASSERT_EQ(test, validate_ns(nsset, &child->ns), 0);
	KUNIT_EXPECT_PTR_EQ(test, nsset->cred->user_ns, child);
	KUNIT_EXPECT_TRUE(test, cap_raised(nsset->cred->cap_effective,
					   CAP_SYS_ADMIN));
	KUNIT_EXPECT_PTR_NE(test, current_user_ns(), child);

	commit_nsset(nsset);
	KUNIT_EXPECT_PTR_EQ(test, current_user_ns(), child);
	nsproxy_kunit_expect_only_type_differs_from(test, current->nsproxy, nsp,
						    0);
}

/* setns(2) with a pidfd and no flags, or unknown flags, is EINVAL. */
static void
nsproxy_check_setns_flags_rejects_zero_and_unknown_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_setns_flags(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, check_setns_flags(CLONE_VM), -EINVAL);
	KUNIT_EXPECT_EQ(test, check_setns_flags(CLONE_NEWUTS | CLONE_VM),
			-EINVAL);
	/* Without CONFIG_USER_NS there is no user namespace to join. */
	KUNIT_EXPECT_EQ(test, check_setns_flags(CLONE_NEWNS | CLONE_NEWUSER),
			IS_ENABLED(CONFIG_USER_NS) ? 0 : -EINVAL);
}

static struct kunit_case nsproxy_test_cases[] = {
	KUNIT_CASE_PARAM(nsproxy_get_takes_one_reference_put_drops_one,
			 nsproxy_kunit_type_gen_params),
	KUNIT_CASE_PARAM(nsproxy_install_switches_only_that_namespace,
			 nsproxy_kunit_type_gen_params),
	KUNIT_CASE_PARAM(nsproxy_install_without_cap_sys_admin_is_eperm,
			 nsproxy_kunit_type_gen_params),
	KUNIT_CASE_PARAM(nsproxy_commit_nsset_switches_only_that_namespace,
			 nsproxy_kunit_type_gen_params),
	KUNIT_CASE(nsproxy_commit_nsset_of_a_userns_switches_only_the_cred),
	KUNIT_CASE(nsproxy_check_setns_flags_rejects_zero_and_unknown_bits),
	{}
};

static struct kunit_suite nsproxy_test_suite = {
	.name = "nsproxy",
	.init = nsproxy_kunit_init,
	.test_cases = nsproxy_test_cases,
};

kunit_test_suite(nsproxy_test_suite);
