// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for get_net_ns_by_fd(), the lookup behind every netns fd the
 * kernel takes (IFLA_NET_NS_FD, devlink, socketat).
 *
 * With CONFIG_NET_NS the answers are: a netns fd gives its namespace with
 * one reference; an fd of another namespace type or any other file
 * EINVAL; a closed fd or -1 EBADF. Without it the kernel promises EINVAL
 * for every fd (include/net/net_namespace.h), and there is no netns file.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/netlink.h>
#include <linux/proc_fs.h>
#include <linux/proc_ns.h>
#include <linux/socket.h>
#include <linux/utsname.h>
#include <net/net_namespace.h>

KUNIT_DEFINE_ACTION_WRAPPER(net_ns_kunit_put_uts_ns, put_uts_ns,
			    struct uts_namespace *);
#ifdef CONFIG_NET_NS
KUNIT_DEFINE_ACTION_WRAPPER(net_ns_kunit_put_net, put_net, struct net *);
#endif

static struct ns_common *net_ns_kunit_get_same(struct ns_common *ns)
{
	refcount_inc(&ns->count);
	return ns;
}

static int net_ns_kunit_init(struct kunit *test)
{
	/* fds go to a table of the case's own, not init's shared one. */
	return unshare_files();
}

/* The error get_net_ns_by_fd() gives for a closed fd or -1. */
static const long net_ns_kunit_ebadf_or_einval =
	IS_ENABLED(CONFIG_NET_NS) ? -EBADF : -EINVAL;

/* A netns fd gives that net, with one reference for the caller. */
static void net_ns_by_fd_netns_fd_gives_its_net(struct kunit *test)
{
#ifdef CONFIG_NET_NS
	struct net *net, *got;
	unsigned int base;
	int fd;

	net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, net);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, net_ns_kunit_put_net,
						  net));
	fd = open_related_ns(&net->ns, net_ns_kunit_get_same);
	KUNIT_ASSERT_GE(test, fd, 0);
	base = refcount_read(&net->ns.count);
	got = get_net_ns_by_fd(fd);
	KUNIT_EXPECT_PTR_EQ(test, got, net);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base + 1);
	if (!IS_ERR(got))
		put_net(got);
	KUNIT_EXPECT_EQ(test, refcount_read(&net->ns.count), base);
	close_fd(fd);
#else
	kunit_skip(test, "CONFIG_NET_NS is off: there is no netns file");
#endif
}

/* An nsfs file of another type is EINVAL, and takes nothing. */
static void net_ns_by_fd_uts_fd_is_einval(struct kunit *test)
{
	struct uts_namespace *uts;
	int fd;

	if (!IS_ENABLED(CONFIG_UTS_NS))
		kunit_skip(test, "CONFIG_UTS_NS is off");
	uts = copy_utsname(CLONE_NEWUTS, &init_user_ns, &init_uts_ns);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uts);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, net_ns_kunit_put_uts_ns,
						  uts));
	fd = open_related_ns(&uts->ns, net_ns_kunit_get_same);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd), ERR_PTR(-EINVAL));
	close_fd(fd);
}

/* A file that is not an nsfs file (a socket) is EINVAL. */
static void net_ns_by_fd_socket_is_einval(struct kunit *test)
{
	int fd = __sys_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd), ERR_PTR(-EINVAL));
	close_fd(fd);
}

/* No file: a closed fd and -1 are EBADF (EINVAL without CONFIG_NET_NS). */
static void net_ns_by_fd_closed_or_minus_one_is_ebadf(struct kunit *test)
{
	int fd = __sys_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	KUNIT_ASSERT_GE(test, fd, 0);
	close_fd(fd);
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(fd),
			    ERR_PTR(net_ns_kunit_ebadf_or_einval));
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(-1),
			    ERR_PTR(net_ns_kunit_ebadf_or_einval));
	KUNIT_EXPECT_PTR_EQ(test, get_net_ns_by_fd(INT_MAX),
			    ERR_PTR(net_ns_kunit_ebadf_or_einval));
}

static struct kunit_case net_ns_test_cases[] = {
	KUNIT_CASE(net_ns_by_fd_netns_fd_gives_its_net),
	KUNIT_CASE(net_ns_by_fd_uts_fd_is_einval),
	KUNIT_CASE(net_ns_by_fd_socket_is_einval),
	KUNIT_CASE(net_ns_by_fd_closed_or_minus_one_is_ebadf),
	{}
};

static struct kunit_suite net_ns_test_suite = {
	.name = "net_ns",
	.init = net_ns_kunit_init,
	.test_cases = net_ns_test_cases,
};

kunit_test_suite(net_ns_test_suite);
