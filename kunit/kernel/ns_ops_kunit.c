// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the proc_ns_operations instances behind /proc/<pid>/ns.
 *
 * Each case runs in a KUnit kthread, which shares init's nsproxy with every
 * other kthread. Reference counts are therefore only asserted on private
 * namespaces that the case installs on its own task and releases itself.
 */
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/mount.h>
#include <linux/net.h>
#include <linux/nsfs.h>
#include <linux/nsproxy.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/proc_ns.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <asm/unistd.h>

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

/* The owner of each init namespace is init_user_ns, which itself has none. */
static void ns_ops_owner_of_init_namespace(struct kunit *test)
{
	const struct ns_ops_case *c = test->param_value;
	struct user_namespace *want = c->type == CLONE_NEWUSER ? NULL : &init_user_ns;
	struct ns_common *ns = c->ops->get(current);

	KUNIT_ASSERT_NOT_NULL(test, ns);
	KUNIT_EXPECT_EQ(test, ns->ops->type, c->type);
	KUNIT_EXPECT_PTR_EQ(test, c->ops->owner(ns), want);
	c->ops->put(ns);
}

/* Only pid and user namespaces form a hierarchy. */
static void ns_ops_get_parent_only_for_pid_and_user(struct kunit *test)
{
	const struct ns_ops_case *c = test->param_value;
	bool tree = c->type == CLONE_NEWPID || c->type == CLONE_NEWUSER;

	KUNIT_EXPECT_EQ(test, !!c->ops->get_parent, tree);
}

static void pidns_get_parent_of_init_is_eperm(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_PID_NS))
		kunit_skip(test, "CONFIG_PID_NS is not set");
	KUNIT_EXPECT_PTR_EQ(test, pidns_operations.get_parent(&init_pid_ns.ns),
			    ERR_PTR(-EPERM));
}

static void pidns_get_parent_of_child_is_init(struct kunit *test)
{
	struct pid_namespace *child;
	struct ns_common *parent;

	if (!IS_ENABLED(CONFIG_PID_NS))
		kunit_skip(test, "CONFIG_PID_NS is not set");
	child = copy_pid_ns(CLONE_NEWPID, &init_user_ns, &init_pid_ns);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, child);
	KUNIT_EXPECT_PTR_EQ(test, child->parent, &init_pid_ns);
	parent = pidns_operations.get_parent(&child->ns);
	KUNIT_EXPECT_PTR_EQ(test, parent, &init_pid_ns.ns);
	if (!IS_ERR_OR_NULL(parent))
		pidns_operations.put(parent);
	put_pid_ns(child);
}

static void userns_get_parent_of_init_is_eperm(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is not set");
	KUNIT_EXPECT_PTR_EQ(test, userns_operations.get_parent(&init_user_ns.ns),
			    ERR_PTR(-EPERM));
}

/* A cred whose user namespace is a new child of init_user_ns. */
static struct cred *child_userns_cred(struct kunit *test)
{
	struct cred *cred;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is not set");
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	if (create_user_ns(cred)) {
		put_cred(cred);
		KUNIT_FAIL_AND_ABORT(test, "create_user_ns failed");
	}
	return cred;
}

/* The parent of a user namespace is its owner, with a reference. */
static void userns_get_parent_of_child_is_owner(struct kunit *test)
{
	struct cred *cred = child_userns_cred(test);
	struct user_namespace *child = cred->user_ns;
	unsigned int base = refcount_read(&init_user_ns.ns.count);
	struct ns_common *parent;

	KUNIT_EXPECT_PTR_EQ(test, userns_operations.owner(&child->ns), &init_user_ns);
	parent = userns_operations.get_parent(&child->ns);
	KUNIT_EXPECT_PTR_EQ(test, parent, &init_user_ns.ns);
	if (!IS_ERR_OR_NULL(parent)) {
		KUNIT_EXPECT_GE(test, refcount_read(&init_user_ns.ns.count), base + 1);
		userns_operations.put(parent);
	}
	put_cred(cred);
}

/* From inside a child user namespace, its parent is out of reach. */
static void userns_get_parent_outside_own_subtree_is_eperm(struct kunit *test)
{
	struct cred *cred = child_userns_cred(test);
	struct user_namespace *child = cred->user_ns;
	const struct cred *old;

	old = override_creds(cred);
	KUNIT_EXPECT_PTR_EQ(test, current_user_ns(), child);
	KUNIT_EXPECT_PTR_EQ(test, userns_operations.get_parent(&child->ns), ERR_PTR(-EPERM));
	revert_creds(old);
	put_cred(cred);
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
	KUNIT_CASE_PARAM(ns_ops_owner_of_init_namespace, ns_ops_gen_params),
	KUNIT_CASE_PARAM(ns_ops_get_parent_only_for_pid_and_user, ns_ops_gen_params),
	KUNIT_CASE(utsns_get_put_moves_count_by_one),
	KUNIT_CASE(pidns_get_parent_of_init_is_eperm),
	KUNIT_CASE(pidns_get_parent_of_child_is_init),
	KUNIT_CASE(userns_get_parent_of_init_is_eperm),
	KUNIT_CASE(userns_get_parent_of_child_is_owner),
	KUNIT_CASE(userns_get_parent_outside_own_subtree_is_eperm),
	{}
};

static struct kunit_suite ns_ops_test_suite = {
	.name = "ns_ops",
	.test_cases = ns_ops_test_cases,
};

static struct ns_common *ns_get_same(void *data)
{
	struct ns_common *ns = data;

	refcount_inc(&ns->count);
	return ns;
}

static struct ns_common *ns_get_same_related(struct ns_common *ns)
{
	return ns_get_same(ns);
}

static int nsfs_test_init(struct kunit *test)
{
	/* fds go to a table of the case's own, not init's shared one. */
	return unshare_files();
}

static struct uts_namespace *private_uts(struct kunit *test)
{
	struct uts_namespace *uts;

	if (!IS_ENABLED(CONFIG_UTS_NS))
		kunit_skip(test, "CONFIG_UTS_NS is not set");
	uts = copy_utsname(CLONE_NEWUTS, &init_user_ns, &init_uts_ns);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uts);
	return uts;
}

/*
 * Two opens of one namespace share one dentry and inode (stashed in
 * ns->stashed); the inode holds one reference, dropped when it goes.
 */
static void nsfs_same_namespace_gives_same_inode(struct kunit *test)
{
	struct uts_namespace *uts = private_uts(test);
	struct path a, b;
	unsigned int base = refcount_read(&uts->ns.count);

	KUNIT_ASSERT_EQ(test, ns_get_path_cb(&a, ns_get_same, &uts->ns), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	KUNIT_ASSERT_EQ(test, ns_get_path_cb(&b, ns_get_same, &uts->ns), 0);
	KUNIT_EXPECT_PTR_EQ(test, a.dentry, b.dentry);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(uts->ns.stashed), a.dentry);
	KUNIT_EXPECT_EQ(test, d_inode(a.dentry)->i_ino, (unsigned long)uts->ns.inum);
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(d_inode(a.dentry)), &uts->ns);
	/* The second open reused the inode and dropped its extra reference. */
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);

	path_put(&b);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	path_put(&a);
	/* The last path is gone: dentry and inode with it, and their reference. */
	KUNIT_EXPECT_NULL(test, READ_ONCE(uts->ns.stashed));
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base);
	put_uts_ns(uts);
}

/* The nsfs ioctls on an open namespace file. */
static void nsfs_ioctls_answer_for_uts(struct kunit *test)
{
	struct uts_namespace *uts = private_uts(test);
	struct file *file, *owner;
	struct path path;
	long fd;

	KUNIT_ASSERT_EQ(test, ns_get_path_cb(&path, ns_get_same, &uts->ns), 0);
	file = dentry_open(&path, O_RDONLY, current_cred());
	path_put(&path);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_EXPECT_TRUE(test, proc_ns_file(file));

	KUNIT_EXPECT_EQ(test, file->f_op->unlocked_ioctl(file, NS_GET_NSTYPE, 0),
			(long)CLONE_NEWUTS);
	KUNIT_EXPECT_EQ(test, file->f_op->unlocked_ioctl(file, NS_GET_OWNER_UID, 0),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, file->f_op->unlocked_ioctl(file, NS_GET_PARENT, 0),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, file->f_op->unlocked_ioctl(file, _IO(NSIO, 0x7f), 0),
			(long)-ENOTTY);

	/* NS_GET_USERNS opens the owner: init_user_ns, a descendant of ours. */
	fd = file->f_op->unlocked_ioctl(file, NS_GET_USERNS, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	owner = fget(fd);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	KUNIT_EXPECT_TRUE(test, proc_ns_file(owner));
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(file_inode(owner)), &init_user_ns.ns);
	fput(owner);
	close_fd(fd);

	__fput_sync(file);
	put_uts_ns(uts);
}

static struct kunit_case nsfs_test_cases[] = {
	KUNIT_CASE(nsfs_same_namespace_gives_same_inode),
	KUNIT_CASE(nsfs_ioctls_answer_for_uts),
	{}
};

static struct kunit_suite nsfs_test_suite = {
	.name = "nsfs",
	.init = nsfs_test_init,
	.test_cases = nsfs_test_cases,
};

static struct net *private_net(struct kunit *test)
{
	struct net *net;

	if (!IS_ENABLED(CONFIG_NET_NS))
		kunit_skip(test, "CONFIG_NET_NS is not set");
	net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	return net;
}

/* A netns fd gives that net, with one reference for the caller. */
static void get_net_ns_by_fd_netns_fd_gives_its_net(struct kunit *test)
{
	struct net *net = private_net(test), *got;
	unsigned int base;
	int fd;

	fd = open_related_ns(&net->ns, ns_get_same_related);
	KUNIT_ASSERT_GE(test, fd, 0);
	base = refcount_read(&net->ns.count);
	got = get_net_ns_by_fd(fd);
	KUNIT_EXPECT_PTR_EQ(test, got, net);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base + 1);
	if (!IS_ERR(got))
		put_net(got);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base);
	close_fd(fd);
	put_net(net);
}

static void get_net_ns_by_fd_uts_fd_is_einval(struct kunit *test)
{
	struct uts_namespace *uts = private_uts(test);
	int fd = open_related_ns(&uts->ns, ns_get_same_related);

	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd), ERR_PTR(-EINVAL));
	close_fd(fd);
	put_uts_ns(uts);
}

static void get_net_ns_by_fd_socket_is_einval(struct kunit *test)
{
	int fd = __sys_socket(AF_UNIX, SOCK_DGRAM, 0);

	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd), ERR_PTR(-EINVAL));
	close_fd(fd);
}

static void get_net_ns_by_fd_closed_or_minus_one_is_ebadf(struct kunit *test)
{
	int fd = __sys_socket(AF_UNIX, SOCK_DGRAM, 0);

	KUNIT_ASSERT_GE(test, fd, 0);
	close_fd(fd);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd), ERR_PTR(-EBADF));
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(-1), ERR_PTR(-EBADF));
}

static struct kunit_case get_net_ns_by_fd_test_cases[] = {
	KUNIT_CASE(get_net_ns_by_fd_netns_fd_gives_its_net),
	KUNIT_CASE(get_net_ns_by_fd_uts_fd_is_einval),
	KUNIT_CASE(get_net_ns_by_fd_socket_is_einval),
	KUNIT_CASE(get_net_ns_by_fd_closed_or_minus_one_is_ebadf),
	{}
};

static struct kunit_suite get_net_ns_by_fd_test_suite = {
	.name = "get_net_ns_by_fd",
	.init = nsfs_test_init,
	.test_cases = get_net_ns_by_fd_test_cases,
};

#ifdef __NR_socketat
/*
 * socketat(2)'s core: the socket belongs to the netns the fd names and
 * holds one reference on it for its life; failed calls take none.
 */
static void socketat_socket_lives_in_target_net(struct kunit *test)
{
	struct net *net = private_net(test);
	struct file *file;
	unsigned int base;
	int nsfd, fd;

	nsfd = open_related_ns(&net->ns, ns_get_same_related);
	KUNIT_ASSERT_GE(test, nsfd, 0);
	base = refcount_read(&net->ns.count);

	fd = __sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	file = fget(fd);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_PTR_EQ(test, sock_net(sock_from_file(file)->sk), net);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base + 1);

	/* Ours is the last reference to the file: release it now. */
	close_fd(fd);
	__fput_sync(file);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base);
	close_fd(nsfd);
	put_net(net);
}

static void socketat_count_rises_by_one_per_socket(struct kunit *test)
{
	struct net *net = private_net(test);
	struct file *files[4];
	unsigned int base, i;
	int nsfd, fd;

	nsfd = open_related_ns(&net->ns, ns_get_same_related);
	KUNIT_ASSERT_GE(test, nsfd, 0);
	base = refcount_read(&net->ns.count);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		fd = __sys_socketat(nsfd, AF_UNIX, SOCK_STREAM, 0);
		KUNIT_ASSERT_GE(test, fd, 0);
		files[i] = fget(fd);
		close_fd(fd);
		KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base + i + 1);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++)
		__fput_sync(files[i]);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base);
	close_fd(nsfd);
	put_net(net);
}

static void socketat_errors_leave_count_alone(struct kunit *test)
{
	struct net *net = private_net(test);
	struct uts_namespace *uts = private_uts(test);
	unsigned int base;
	int nsfd, utsfd;

	nsfd = open_related_ns(&net->ns, ns_get_same_related);
	KUNIT_ASSERT_GE(test, nsfd, 0);
	utsfd = open_related_ns(&uts->ns, ns_get_same_related);
	KUNIT_ASSERT_GE(test, utsfd, 0);
	base = refcount_read(&net->ns.count);

	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_MAX, SOCK_DGRAM, 0), -EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM | 0x100000, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM, PF_UNIX + 1),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, __sys_socketat(utsfd, AF_UNIX, SOCK_DGRAM, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, __sys_socketat(-2, AF_UNIX, SOCK_DGRAM, 0), -EBADF);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base);

	close_fd(utsfd);
	close_fd(nsfd);
	put_uts_ns(uts);
	put_net(net);
}

/* nsfd -1 is the caller's own netns, exactly socket(2). */
static void socketat_minus_one_is_current_net(struct kunit *test)
{
	struct file *file;
	int fd = __sys_socketat(-1, AF_UNIX, SOCK_DGRAM, 0);

	KUNIT_ASSERT_GE(test, fd, 0);
	file = fget(fd);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_EXPECT_PTR_EQ(test, sock_net(sock_from_file(file)->sk), current->nsproxy->net_ns);
	fput(file);
	close_fd(fd);
}

static struct kunit_case socketat_test_cases[] = {
	KUNIT_CASE(socketat_socket_lives_in_target_net),
	KUNIT_CASE(socketat_count_rises_by_one_per_socket),
	KUNIT_CASE(socketat_errors_leave_count_alone),
	KUNIT_CASE(socketat_minus_one_is_current_net),
	{}
};

static struct kunit_suite socketat_test_suite = {
	.name = "socketat",
	.init = nsfs_test_init,
	.test_cases = socketat_test_cases,
};

kunit_test_suite(socketat_test_suite);
#endif /* __NR_socketat: only where the tree has the syscall */

kunit_test_suites(&ns_ops_test_suite, &nsfs_test_suite, &get_net_ns_by_fd_test_suite);

MODULE_DESCRIPTION("KUnit tests for namespace operations");
MODULE_LICENSE("GPL");
