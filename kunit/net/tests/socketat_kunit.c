// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for socketat(2).
 *
 * net/socket.c includes this file, so that the cases call the static
 * __sys_socketat() directly.
 */
#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/mount.h>
#include <linux/net.h>
#include <linux/nsfs.h>
#include <linux/nsproxy.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/proc_ns.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/socket.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/*
 * socketat(2)'s core, __sys_socketat(): the socket belongs to the netns
 * the fd names (the task's own for -1) and holds one reference on it for
 * its life; every failed call leaves the count where it was. Permission:
 * the caller's own netns needs nothing, any other what setns(2) needs
 * (netns_install()): CAP_SYS_ADMIN over its owner and over the caller's
 * own user namespace (CAP_NET_ADMIN is not enough); a pidfd also needs
 * ptrace read access to the task, checked before its netns is read.
 *
 * Everything a case takes is given back by a KUnit action, so that a
 * failed assertion leaks nothing. Actions run in another kthread than the
 * case: they never touch current. What the case's own kthread holds (its
 * fds, its nsproxy, an overriding cred) is released by that kthread's
 * exit; the creds are only overridden around single calls.
 */

KUNIT_DEFINE_ACTION_WRAPPER(socketat_put_net, put_net, struct net *);
KUNIT_DEFINE_ACTION_WRAPPER(socketat_put_uts, put_uts_ns,
			    struct uts_namespace *);
KUNIT_DEFINE_ACTION_WRAPPER(socketat_put_cred, put_cred, const struct cred *);

/*
 * A type flag socket(2) does not know on this arch: the lowest bit outside
 * SOCK_TYPE_MASK, SOCK_CLOEXEC and SOCK_NONBLOCK (whose values differ
 * between arches: SOCK_NONBLOCK is 0x40000000 on alpha and parisc).
 */
#define SOCKETAT_KNOWN_TYPE_BITS \
	((unsigned int)(SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK))
#define SOCKETAT_UNKNOWN_TYPE_FLAG \
	((int)(~SOCKETAT_KNOWN_TYPE_BITS & (SOCKETAT_KNOWN_TYPE_BITS + 1)))

static int socketat_test_init(struct kunit *test)
{
	/* fds go to a table of the case's own, not init's shared one. */
	return unshare_files();
}

static struct ns_common *socketat_ns_get(struct ns_common *ns)
{
	refcount_inc(&ns->count);
	return ns;
}

static unsigned int socketat_net_count(struct net *net)
{
	return refcount_read(&net->ns.count);
}

/* A new netns owned by @owner, put when the case ends. */
static struct net *socketat_new_net(struct kunit *test,
				    struct user_namespace *owner)
{
	struct net *net;

	if (!IS_ENABLED(CONFIG_NET_NS))
		kunit_skip(test, "CONFIG_NET_NS is not set");
	net = copy_net_ns(CLONE_NEWNET, owner, &init_net);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, socketat_put_net, net),
			0);
	return net;
}

/*
 * An nsfs fd of @ns in the case's fd table (closed by its exit at the latest).
 */
static int socketat_ns_fd(struct kunit *test, struct ns_common *ns)
{
	int fd = open_related_ns(ns, socketat_ns_get);

	KUNIT_ASSERT_GE(test, fd, 0);
	return fd;
}

/* A pidfd of @pid in the case's fd table. */
static int socketat_pidfd(struct kunit *test, struct pid *pid)
{
	struct file *file;
	int fd = pidfd_prepare(pid, 0, &file);

	KUNIT_ASSERT_GE(test, fd, 0);
	fd_install(fd, file);
	return fd;
}

/* Close the socket @fd now: the last reference goes with __fput_sync(). */
static void socketat_close_sync(struct kunit *test, int fd)
{
	struct file *file = fget(fd);

	KUNIT_ASSERT_NOT_NULL(test, file);
	close_fd(fd);
	__fput_sync(file);
}

/* The netns of the socket @fd. */
static struct net *socketat_sock_net(struct kunit *test, int fd)
{
	struct file *file = fget(fd);
	struct socket *sock;
	struct net *net;

	KUNIT_ASSERT_NOT_NULL(test, file);
	sock = sock_from_file(file);
	net = sock ? sock_net(sock->sk) : NULL;
	fput(file);
	KUNIT_ASSERT_NOT_NULL(test, net);
	return net;
}

/*
 * A copy of the current creds as uid @uid (all four ids) with capabilities
 * @caps in every set but the inheritable and ambient ones (empty).
 */
static const struct cred *socketat_cred(struct kunit *test, uid_t uid,
					kernel_cap_t caps)
{
	struct cred *cred = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, socketat_put_cred,
							cred), 0);
	cred->uid = KUIDT_INIT(uid);
	cred->euid = cred->uid;
	cred->suid = cred->uid;
	cred->fsuid = cred->uid;
	cred->cap_effective = caps;
	cred->cap_permitted = caps;
	cred->cap_inheritable = CAP_EMPTY_SET;
	cred->cap_ambient = CAP_EMPTY_SET;
	return cred;
}

static kernel_cap_t socketat_caps_but(int cap)
{
	kernel_cap_t caps = CAP_FULL_SET;

	cap_lower(caps, cap);
	return caps;
}

/*
 * __sys_socketat() under @cred; nothing may abort between override and revert.
 */
static int socketat_as(const struct cred *cred, int nsfd, int family, int type,
		       int protocol)
{
	const struct cred *old = override_creds(cred);
	int ret = __sys_socketat(nsfd, family, type, protocol);

	revert_creds(old);
	return ret;
}

/*
 * socketat() on @nsfd under @cred makes a socket in @net, which holds one
 * reference to @net until its last close: @net's count is @base + 1 while
 * the socket is open, @base again after.
 */
static void socketat_expect_socket_in(struct kunit *test,
				      const struct cred *cred, int nsfd,
				      struct net *net, unsigned int base)
{
	int fd = socketat_as(cred, nsfd, AF_UNIX, SOCK_DGRAM, 0);

	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, socketat_sock_net(test, fd), net);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base + 1);
	socketat_close_sync(test, fd);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
}

/* Whether @cred has CAP_SYS_ADMIN over @ns: one of netns_install()'s checks. */
static bool socketat_sys_admin_as(const struct cred *cred,
				  struct user_namespace *ns)
{
	const struct cred *old = override_creds(cred);
	bool ret = ns_capable_noaudit(ns, CAP_SYS_ADMIN);

	revert_creds(old);
	return ret;
}

/*
 * A user namespace that uid 0 owns, child of the initial one: the creds
 * that made it (uid 0, every capability in it, as after setns(2) into it).
 */
static struct cred *socketat_root_owned_userns(struct kunit *test)
{
	struct cred *cred;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is not set");
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, socketat_put_cred,
							cred), 0);
	KUNIT_ASSERT_EQ(test, create_user_ns(cred), 0);
	KUNIT_ASSERT_PTR_EQ(test, cred->user_ns->parent, &init_user_ns);
	KUNIT_ASSERT_TRUE(test, uid_eq(cred->user_ns->owner, GLOBAL_ROOT_UID));
	return cred;
}

/*
 * The case's kthread in a fresh set of namespaces whose netns is private:
 * the old set is kept (one reference) to switch back to; if the case
 * ends inside, the kthread's exit drops the private set and the action
 * our reference on the old one.
 */
struct socketat_nsswitch {
	struct nsproxy *old;
	bool switched;
};

static void socketat_nsswitch_release(void *data)
{
	struct socketat_nsswitch *s = data;

	if (s->switched)
		put_nsproxy(s->old);
}

/* Actions outlive the case's stack: @*sp is allocated here. */
static struct net *socketat_enter_private_net(struct kunit *test,
					      struct socketat_nsswitch **sp)
{
	struct socketat_nsswitch *s;
	struct nsproxy *priv = NULL;
	struct net *net;
	int err;

	if (!IS_ENABLED(CONFIG_NET_NS))
		kunit_skip(test, "CONFIG_NET_NS is not set");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	*sp = s;
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test,
						  socketat_nsswitch_release, s),
			0);
	err = unshare_nsproxy_namespaces(CLONE_NEWNET, &priv, NULL, NULL);
	KUNIT_ASSERT_EQ(test, err, 0);
	net = get_net(priv->net_ns);
	s->old = current->nsproxy;
	get_nsproxy(s->old);
	s->switched = true;
	switch_task_namespaces(current, priv);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, socketat_put_net, net),
			0);
	KUNIT_ASSERT_PTR_EQ(test, current->nsproxy->net_ns, net);
	KUNIT_ASSERT_PTR_NE(test, net, &init_net);
	return net;
}

static void socketat_leave_private_net(struct socketat_nsswitch *s)
{
	/* Consumes our reference on the old set; drops the private one. */
	switch_task_namespaces(current, s->old);
	s->switched = false;
}

/*
 * A kthread that switches to @nsp (its reference handed over; NULL: stay
 * in init's namespaces) and sleeps until stopped: a task for pidfds.
 */
struct socketat_task {
	struct task_struct *task;
	struct pid *pid;
	struct nsproxy *nsp;
	struct completion switched;
};

static int socketat_task_fn(void *data)
{
	struct socketat_task *t = data;

	if (t->nsp)
		switch_task_namespaces(current, t->nsp);
	complete(&t->switched);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void socketat_task_stop(struct socketat_task *t)
{
	if (!t->task)
		return;
	/* -EINTR: it never ran, so @nsp is still ours. */
	if (kthread_stop(t->task) == -EINTR && t->nsp)
		put_nsproxy(t->nsp);
	t->task = NULL;
}

static void socketat_task_release(void *data)
{
	struct socketat_task *t = data;

	socketat_task_stop(t);
	put_pid(t->pid);
}

static struct socketat_task *socketat_start_task(struct kunit *test,
						 struct nsproxy *nsp)
{
	struct socketat_task *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;

	if (!t) {
		if (nsp)
			put_nsproxy(nsp);
		KUNIT_FAIL_AND_ABORT(test, "no memory");
	}
	t->nsp = nsp;
	init_completion(&t->switched);
	task = kthread_create(socketat_task_fn, t, "socketat_kunit");
	if (IS_ERR(task)) {
		if (nsp)
			put_nsproxy(nsp);
		KUNIT_FAIL_AND_ABORT(test, "kthread_create: %ld",
				     PTR_ERR(task));
	}
	t->task = task;
	t->pid = get_pid(task_pid(task));
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, socketat_task_release,
						  t), 0);
	wake_up_process(task);
	KUNIT_ASSERT_GT(test,
			wait_for_completion_timeout(&t->switched, 10 * HZ),
			0UL);
	return t;
}

/*
 * A task in a private netns of its own; that netns, with a reference of ours.
 */
static struct socketat_task *socketat_task_in_private_net(struct kunit *test,
							  struct net **net)
{
	struct nsproxy *nsp = NULL;
	struct socketat_task *t;

	if (!IS_ENABLED(CONFIG_NET_NS))
		kunit_skip(test, "CONFIG_NET_NS is not set");
	KUNIT_ASSERT_EQ(test, unshare_nsproxy_namespaces(CLONE_NEWNET, &nsp,
							 NULL, NULL), 0);
	*net = get_net(nsp->net_ns);
	if (kunit_add_action_or_reset(test, socketat_put_net, *net)) {
		put_nsproxy(nsp);
		KUNIT_FAIL_AND_ABORT(test, "kunit_add_action");
	}
	t = socketat_start_task(test, nsp);
	KUNIT_ASSERT_PTR_EQ(test, t->task->nsproxy->net_ns, *net);
	return t;
}

static void socketat_socket_lives_in_target_net(struct kunit *test)
{
	struct net *net = socketat_new_net(test, &init_user_ns);
	int nsfd = socketat_ns_fd(test, &net->ns);
	unsigned int base = socketat_net_count(net);
	int fd;

	fd = __sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, socketat_sock_net(test, fd), net);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base + 1);
	socketat_close_sync(test, fd);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	close_fd(nsfd);
}

static void socketat_count_rises_by_one_per_socket(struct kunit *test)
{
	struct net *net = socketat_new_net(test, &init_user_ns);
	int nsfd = socketat_ns_fd(test, &net->ns), fds[4];
	unsigned int base = socketat_net_count(net), i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = __sys_socketat(nsfd, AF_UNIX, SOCK_STREAM, 0);
		KUNIT_ASSERT_GE(test, fds[i], 0);
		KUNIT_EXPECT_EQ(test, socketat_net_count(net), base + i + 1);
	}
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		socketat_close_sync(test, fds[i]);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	close_fd(nsfd);
}

/*
 * EBADF, EINVAL and socket(2)'s own errors, judged in the target: no reference
 * kept.
 */
static void socketat_errors_leave_count_alone(struct kunit *test)
{
	struct net *net = socketat_new_net(test, &init_user_ns);
	struct uts_namespace *uts;
	int nsfd = socketat_ns_fd(test, &net->ns), utsfd, sockfd, closed;
	unsigned int base;

	if (!IS_ENABLED(CONFIG_UTS_NS))
		kunit_skip(test, "CONFIG_UTS_NS is not set");
	uts = copy_utsname(CLONE_NEWUTS, &init_user_ns, &init_uts_ns);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uts);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, socketat_put_uts, uts),
			0);
	utsfd = socketat_ns_fd(test, &uts->ns);
	sockfd = __sys_socket(AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, sockfd, 0);
	closed = __sys_socket(AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, closed, 0);
	socketat_close_sync(test, closed);
	base = socketat_net_count(net);

	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_MAX, SOCK_DGRAM, 0),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, -1, SOCK_DGRAM, 0),
			-EAFNOSUPPORT);
	BUILD_BUG_ON(SOCKETAT_UNKNOWN_TYPE_FLAG <= SOCK_TYPE_MASK ||
		     (SOCKETAT_UNKNOWN_TYPE_FLAG & SOCKETAT_KNOWN_TYPE_BITS));
	KUNIT_EXPECT_EQ(test,
			__sys_socketat(nsfd, AF_UNIX,
				       SOCK_DGRAM | SOCKETAT_UNKNOWN_TYPE_FLAG, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_UNIX, SOCK_MAX, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			__sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM, PF_UNIX + 1),
			-EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_UNIX, SOCK_RDM, 0),
			-ESOCKTNOSUPPORT);
	KUNIT_EXPECT_EQ(test, __sys_socketat(utsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, __sys_socketat(sockfd, AF_UNIX, SOCK_DGRAM, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, __sys_socketat(closed, AF_UNIX, SOCK_DGRAM, 0),
			-EBADF);
	KUNIT_EXPECT_EQ(test, __sys_socketat(-2, AF_UNIX, SOCK_DGRAM, 0),
			-EBADF);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	close_fd(sockfd);
	close_fd(utsfd);
	close_fd(nsfd);
}

/*
 * nsfd -1 is the task's own netns, exactly socket(2): with the case's
 * kthread moved into a private netns, the socket lands there (not in
 * init_net). The own netns needs no capability, by nsfs fd or by a pidfd
 * of the task itself.
 */
static void socketat_minus_one_is_the_tasks_private_net(struct kunit *test)
{
	struct socketat_nsswitch *s;
	struct net *net = socketat_enter_private_net(test, &s);
	const struct cred *nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);
	int nsfd = socketat_ns_fd(test, &net->ns);
	int pidfd = socketat_pidfd(test, task_tgid(current));
	unsigned int base = socketat_net_count(net);
	int fd;

	fd = __sys_socketat(-1, AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, socketat_sock_net(test, fd), net);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base + 1);
	socketat_close_sync(test, fd);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	socketat_expect_socket_in(test, nobody, nsfd, net, base);

	socketat_expect_socket_in(test, nobody, pidfd, net, base);

	close_fd(pidfd);
	close_fd(nsfd);
	socketat_leave_private_net(s);
}

/*
 * Another netns, owned by the initial user namespace, which is also the
 * caller's: CAP_SYS_ADMIN there decides. Without it (and with
 * CAP_NET_ADMIN) EPERM and no reference kept; without CAP_NET_ADMIN (and
 * with CAP_SYS_ADMIN) a socket there.
 */
static void socketat_other_net_needs_cap_sys_admin(struct kunit *test)
{
	struct net *net = socketat_new_net(test, &init_user_ns);
	const struct cred *no_sys_admin, *no_net_admin, *nobody;
	int nsfd = socketat_ns_fd(test, &net->ns);
	unsigned int base = socketat_net_count(net);

	no_sys_admin = socketat_cred(test, 0, socketat_caps_but(CAP_SYS_ADMIN));
	no_net_admin = socketat_cred(test, 0, socketat_caps_but(CAP_NET_ADMIN));
	nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);

	KUNIT_ASSERT_PTR_NE(test, current->nsproxy->net_ns, net);
	KUNIT_EXPECT_EQ(test,
			socketat_as(no_sys_admin, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_as(nobody, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	/* EPERM comes before socket(2)'s own errors. */
	KUNIT_EXPECT_EQ(test,
			socketat_as(no_sys_admin, nsfd, AF_MAX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	socketat_expect_socket_in(test, no_net_admin, nsfd, net, base);
	close_fd(nsfd);
}

/*
 * The netns of a user namespace that uid 0 owns, from outside it. Its
 * owner passes the check on the target without any capability, but
 * setns(2) also wants CAP_SYS_ADMIN over the caller's own user namespace,
 * and so does socketat: uid 0 without capabilities gets EPERM, as does
 * uid 1000. uid 1000 with CAP_SYS_ADMIN over the initial user namespace
 * passes both checks, and so does the owner once inside its user
 * namespace (the creds that setns(2) into it gives).
 */
static void socketat_userns_owner_is_judged_as_it_is(struct kunit *test)
{
	struct cred *owner_cred = socketat_root_owned_userns(test);
	struct user_namespace *userns = owner_cred->user_ns;
	const struct cred *root_nocaps, *nobody, *nobody_sys_admin;
	kernel_cap_t sys_admin = CAP_EMPTY_SET;
	struct net *net;
	unsigned int base;
	int nsfd;

	net = socketat_new_net(test, userns);
	KUNIT_ASSERT_PTR_EQ(test, net->user_ns, userns);
	cap_raise(sys_admin, CAP_SYS_ADMIN);
	root_nocaps = socketat_cred(test, 0, CAP_EMPTY_SET);
	nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);
	nobody_sys_admin = socketat_cred(test, 1000, sys_admin);
	nsfd = socketat_ns_fd(test, &net->ns);
	base = socketat_net_count(net);

	KUNIT_EXPECT_EQ(test,
			socketat_as(root_nocaps, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_as(nobody, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	socketat_expect_socket_in(test, nobody_sys_admin, nsfd, net, base);

	socketat_expect_socket_in(test, owner_cred, nsfd, net, base);
	close_fd(nsfd);
}

/*
 * The caller-side check of netns_install() alone: uid 0 with every
 * capability but CAP_SYS_ADMIN owns the user namespace that owns the
 * target, so it has CAP_SYS_ADMIN over the target's owner and lacks it
 * only over its own user namespace. setns(2) gives EPERM there; so must
 * socketat, keeping no reference. With CAP_SYS_ADMIN back, a socket.
 */
static void socketat_caller_side_check_alone(struct kunit *test)
{
	struct cred *owner_cred = socketat_root_owned_userns(test);
	struct user_namespace *userns = owner_cred->user_ns;
	const struct cred *no_sys_admin, *root;
	struct net *net = socketat_new_net(test, userns);
	unsigned int base;
	int nsfd;

	no_sys_admin = socketat_cred(test, 0, socketat_caps_but(CAP_SYS_ADMIN));
	root = socketat_cred(test, 0, CAP_FULL_SET);
	nsfd = socketat_ns_fd(test, &net->ns);
	base = socketat_net_count(net);

	KUNIT_ASSERT_PTR_NE(test, current->nsproxy->net_ns, net);
	KUNIT_ASSERT_TRUE(test, socketat_sys_admin_as(no_sys_admin, userns));
	KUNIT_ASSERT_FALSE(test, socketat_sys_admin_as(no_sys_admin,
						       &init_user_ns));
	KUNIT_EXPECT_EQ(test,
			socketat_as(no_sys_admin, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	socketat_expect_socket_in(test, root, nsfd, net, base);
	close_fd(nsfd);
}

/*
 * The check on the target alone: creds with every capability in a user
 * namespace of their own (the caller-side check passes) and none over
 * the initial one, which owns the target: EPERM, no reference kept.
 */
static void socketat_target_side_check_alone(struct kunit *test)
{
	struct cred *inside = socketat_root_owned_userns(test);
	struct net *net = socketat_new_net(test, &init_user_ns);
	unsigned int base;
	int nsfd;

	nsfd = socketat_ns_fd(test, &net->ns);
	base = socketat_net_count(net);

	KUNIT_ASSERT_PTR_NE(test, current->nsproxy->net_ns, net);
	KUNIT_ASSERT_TRUE(test, socketat_sys_admin_as(inside, inside->user_ns));
	KUNIT_ASSERT_FALSE(test, socketat_sys_admin_as(inside, &init_user_ns));
	KUNIT_EXPECT_EQ(test, socketat_as(inside, nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	close_fd(nsfd);
}

/*
 * A pidfd of a kthread in a private netns: a socket there for root; EPERM
 * (and no reference kept) without CAP_SYS_ADMIN (ptrace passes on
 * CAP_SYS_PTRACE), and for uid 1000 (ptrace fails first).
 */
static void socketat_pidfd_reaches_the_tasks_net(struct kunit *test)
{
	struct net *net;
	struct socketat_task *t = socketat_task_in_private_net(test, &net);
	const struct cred *no_sys_admin =
		socketat_cred(test, 0, socketat_caps_but(CAP_SYS_ADMIN));
	const struct cred *nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);
	int pidfd = socketat_pidfd(test, t->pid), fd;
	unsigned int base = socketat_net_count(net);

	fd = __sys_socketat(pidfd, AF_UNIX, SOCK_DGRAM, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, socketat_sock_net(test, fd), net);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base + 1);
	socketat_close_sync(test, fd);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);

	KUNIT_EXPECT_EQ(test, socketat_as(no_sys_admin, pidfd, AF_UNIX,
					  SOCK_DGRAM, 0), -EPERM);
	KUNIT_EXPECT_EQ(test,
			socketat_as(nobody, pidfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	close_fd(pidfd);
}

/*
 * In the caller's own netns no capability is needed, so a pidfd's EPERM
 * there is the ptrace check alone: the case's kthread and a helper share
 * a private netns; uid 1000 gets EPERM through the helper's pidfd and a
 * socket through its own.
 */
static void socketat_pidfd_ptrace_check_in_own_net(struct kunit *test)
{
	struct socketat_nsswitch *s;
	struct net *net = socketat_enter_private_net(test, &s);
	const struct cred *nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);
	struct socketat_task *t;
	unsigned int base;
	int pidfd, self;

	get_nsproxy(current->nsproxy);
	t = socketat_start_task(test, current->nsproxy);
	KUNIT_ASSERT_PTR_EQ(test, t->task->nsproxy->net_ns, net);
	pidfd = socketat_pidfd(test, t->pid);
	self = socketat_pidfd(test, task_tgid(current));
	base = socketat_net_count(net);

	KUNIT_EXPECT_EQ(test,
			socketat_as(nobody, pidfd, AF_UNIX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_as(nobody, pidfd, AF_MAX, SOCK_DGRAM, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	socketat_expect_socket_in(test, nobody, self, net, base);

	close_fd(self);
	close_fd(pidfd);
	socketat_task_stop(t);
	socketat_leave_private_net(s);
}

/* The pidfd of a task that is gone: ESRCH for anyone, no reference kept. */
static void socketat_pidfd_of_exited_task_is_esrch(struct kunit *test)
{
	struct net *net;
	struct socketat_task *t = socketat_task_in_private_net(test, &net);
	const struct cred *nobody = socketat_cred(test, 1000, CAP_EMPTY_SET);
	int pidfd = socketat_pidfd(test, t->pid);
	unsigned int base;

	socketat_task_stop(t);
	/*
	 * kthread_stop() returns once the thread is through exit_mm() (its
	 * vfork_done), before exit_notify() releases it from its pid; until
	 * then those who may not ptrace it see EPERM, not ESRCH. The release
	 * is an event: it wakes the pid's wait queue (__change_pid(), what
	 * poll() on a pidfd reports as EPOLLHUP). The bound only makes a task
	 * that is never released a failure instead of a hung case.
	 */
	wait_event_timeout(t->pid->wait_pidfd,
			   !pid_has_task(t->pid, PIDTYPE_PID), 10 * HZ);
	KUNIT_ASSERT_FALSE_MSG(test, pid_has_task(t->pid, PIDTYPE_PID),
			       "task not released 10 s after kthread_stop()");
	base = socketat_net_count(net);

	KUNIT_EXPECT_EQ(test, __sys_socketat(pidfd, AF_UNIX, SOCK_DGRAM, 0),
			-ESRCH);
	KUNIT_EXPECT_EQ(test,
			socketat_as(nobody, pidfd, AF_UNIX, SOCK_DGRAM, 0),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
	close_fd(pidfd);
}

/*
 * Fill the case's fd table up to RLIMIT_NOFILE with fds of @fd's file,
 * as a process at its limit has it: after this, no fd can be had. The
 * kthread's table is its own (socketat_test_init()), and its exit closes
 * them with the rest. The limit is the kthread's, read and never written:
 * do_prlimit() is private to kernel/sys.c, and another task's rlimits
 * are not the case's to change.
 */
static void socketat_fill_fd_table(struct kunit *test, int fd)
{
	unsigned long limit = rlimit(RLIMIT_NOFILE), n;
	struct file *file;
	int ret = 0;

	if (limit > 65536)
		kunit_skip(test, "RLIMIT_NOFILE is %lu: too many fds to fill",
			   limit);
	file = fget(fd);
	KUNIT_ASSERT_NOT_NULL(test, file);
	for (n = 0; n <= limit; n++) {
		ret = get_unused_fd_flags(0);
		if (ret < 0)
			break;
		fd_install(ret, get_file(file));
	}
	fput(file);
	KUNIT_ASSERT_EQ_MSG(test, ret, -EMFILE,
			    "%lu new fds and no EMFILE (RLIMIT_NOFILE %lu)", n,
			    limit);
}

/*
 * RLIMIT_NOFILE reached: the socket is made in the target, then released
 * when no fd can be had: EMFILE, and the count back where it was.
 */
static void socketat_emfile_leaves_count_alone(struct kunit *test)
{
	struct net *net = socketat_new_net(test, &init_user_ns);
	int nsfd = socketat_ns_fd(test, &net->ns);
	unsigned int base = socketat_net_count(net);

	socketat_fill_fd_table(test, nsfd);
	KUNIT_EXPECT_EQ(test, __sys_socketat(nsfd, AF_UNIX, SOCK_DGRAM, 0),
			-EMFILE);
	KUNIT_EXPECT_EQ(test, __sys_socketat(-1, AF_UNIX, SOCK_DGRAM, 0),
			-EMFILE);
	KUNIT_EXPECT_EQ(test, socketat_net_count(net), base);
}

static struct kunit_case socketat_test_cases[] = {
	KUNIT_CASE(socketat_socket_lives_in_target_net),
	KUNIT_CASE(socketat_count_rises_by_one_per_socket),
	KUNIT_CASE(socketat_errors_leave_count_alone),
	KUNIT_CASE(socketat_minus_one_is_the_tasks_private_net),
	KUNIT_CASE(socketat_other_net_needs_cap_sys_admin),
	KUNIT_CASE(socketat_userns_owner_is_judged_as_it_is),
	KUNIT_CASE(socketat_caller_side_check_alone),
	KUNIT_CASE(socketat_target_side_check_alone),
	KUNIT_CASE(socketat_pidfd_reaches_the_tasks_net),
	KUNIT_CASE(socketat_pidfd_ptrace_check_in_own_net),
	KUNIT_CASE(socketat_pidfd_of_exited_task_is_esrch),
	KUNIT_CASE(socketat_emfile_leaves_count_alone),
	{}
};

static struct kunit_suite socketat_test_suite = {
	.name = "socketat",
	.init = socketat_test_init,
	.test_cases = socketat_test_cases,
};

kunit_test_suite(socketat_test_suite);
