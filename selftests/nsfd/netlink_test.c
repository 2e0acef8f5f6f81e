// SPDX-License-Identifier: GPL-2.0
/*
 * IFLA_NET_NS_FD, spoken as raw rtnetlink: links created in, or moved
 * into, the netns that an nsfs fd names; the errors for fds that are not
 * a netns (from the NLMSG_ERROR ack); and the CAP_NET_ADMIN check over
 * the target's owning user namespace (rtnl_link_get_net_capable()).
 *
 * Every test runs in a private netns ("here") with a second netns
 * ("there") that only an fd holds. As root both are owned by the initial
 * user namespace; otherwise by a user namespace of the test's own, where
 * it holds CAP_NET_ADMIN, so that the tests that ask for no privilege
 * beyond that run unprivileged too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nsfd_rtnl.h"
#include "../kselftest_harness.h"

FIXTURE(link) {
	int nl;		/* rtnetlink socket here */
	int there;	/* nsfs fd of the other netns */
	int nl_there;	/* rtnetlink socket created there */
};

FIXTURE_SETUP(link)
{
	int here;

	self->nl = -1;
	self->there = -1;
	self->nl_there = -1;
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWNET));
	if (nsfd_is_root()) {
		ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	} else {
		NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
		ASSERT_EQ(nsfd_unshare_userns(CLONE_NEWNET), 0);
	}
	self->there = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	ASSERT_GE(self->there, 0);
	self->nl = nsfd_nl_open(0);
	ASSERT_GE(self->nl, 0);
	here = nsfd_open_ns(0, "net");
	ASSERT_GE(here, 0);
	ASSERT_EQ(setns(self->there, CLONE_NEWNET), 0);
	self->nl_there = nsfd_nl_open(0);
	ASSERT_EQ(setns(here, CLONE_NEWNET), 0);
	ASSERT_GE(self->nl_there, 0);
	close(here);
}

FIXTURE_TEARDOWN(link)
{
	if (self->nl_there >= 0)
		close(self->nl_there);
	if (self->nl >= 0)
		close(self->nl);
	if (self->there >= 0)
		close(self->there);
}

/*
 * A link kind the kernel lacks is EOPNOTSUPP from rtnl_newlink() (no
 * rtnl_link_ops, and no module that registers them): SKIP naming the
 * option.
 */
static const char *no_dummy(int err)
{
	return nsfd_link_kind_missing(err, "dummy", "CONFIG_DUMMY");
}

static const char *no_veth(int err)
{
	return nsfd_link_kind_missing(err, "veth", "CONFIG_VETH");
}

/* if_nametoindex() run inside the netns of @nsfd. */
static unsigned int index_inside(int nsfd, const char *name)
{
	int here = nsfd_open_ns(0, "net");
	unsigned int ifindex = 0;

	if (here < 0)
		return 0;
	if (!setns(nsfd, CLONE_NEWNET)) {
		ifindex = if_nametoindex(name);
		if (setns(here, CLONE_NEWNET))
			ifindex = 0;
	}
	close(here);
	return ifindex;
}

static int add_dummy(struct __test_metadata *_metadata, int nl,
		     const char *name)
{
	int err = nsfd_link_add(nl, name, "dummy", -1, NULL, -1), ifindex;

	if (err == -EOPNOTSUPP)
		return err;
	ASSERT_EQ(err, 0) {
		TH_LOG("RTM_NEWLINK dummy %s: %s", name, strerror(-err));
	}
	ifindex = nsfd_link_index(nl, name);
	ASSERT_GT(ifindex, 0);
	return ifindex;
}

static void assert_moved(struct __test_metadata *_metadata,
			 FIXTURE_DATA(link) * self, const char *name)
{
	EXPECT_EQ(nsfd_link_index(self->nl, name), -ENODEV);
	EXPECT_EQ(if_nametoindex(name), 0U);
	EXPECT_GT(nsfd_link_index(self->nl_there, name), 0);
	EXPECT_GT(index_inside(self->there, name), 0U);
}

TEST_F(link, dummy_moved_by_setlink_appears_there_and_leaves_here)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");

	NSFD_SKIP_IF(return, no_dummy(ifindex));

	ASSERT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex,
				      self->there), 0);
	assert_moved(_metadata, self, "nsfd-dummy0");
}

/* RTM_NEWLINK on an existing link takes the same path (do_setlink). */
TEST_F(link, dummy_moved_by_newlink_on_existing_link)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");

	NSFD_SKIP_IF(return, no_dummy(ifindex));

	ASSERT_EQ(nsfd_link_set_netns(self->nl, RTM_NEWLINK, ifindex,
				      self->there), 0);
	assert_moved(_metadata, self, "nsfd-dummy0");
}

TEST_F(link, dummy_created_in_netns_by_fd)
{
	int err = nsfd_link_add(self->nl, "nsfd-dummy1", "dummy", self->there,
				NULL, -1);

	NSFD_SKIP_IF(return, no_dummy(err));
	ASSERT_EQ(err, 0);
	assert_moved(_metadata, self, "nsfd-dummy1");
}

TEST_F(link, veth_peer_created_in_netns_by_fd)
{
	int err = nsfd_link_add(self->nl, "nsfd-va", "veth", -1, "nsfd-vb",
				self->there);

	NSFD_SKIP_IF(return, no_veth(err));
	ASSERT_EQ(err, 0) {
		TH_LOG("veth: %s", strerror(-err));
	}
	EXPECT_GT(nsfd_link_index(self->nl, "nsfd-va"), 0);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-va"), -ENODEV);
	assert_moved(_metadata, self, "nsfd-vb");
}

/*
 * The netns an IFLA_NET_NS_FD names is held only for the request: once its
 * last fd is closed (no task is in it), it dies, and a veth pair with an
 * end in it goes with it, so our end's RTM_DELLINK arrives. A reference
 * the request leaked would keep it, and the pair, for good. @move: the
 * peer made here and moved there by RTM_SETLINK, else made there by
 * RTM_NEWLINK's peer IFLA_NET_NS_FD. Not self->there: nl_there pins it.
 */
static void assert_netns_dies_after_request(struct __test_metadata *_metadata,
					    FIXTURE_DATA(link) * self,
					    bool move)
{
	int mon = nsfd_nl_open(RTMGRP_LINK), target, peer, ifindex, err;

	ASSERT_GE(mon, 0);
	target = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	ASSERT_GE(target, 0);
	err = nsfd_link_add(self->nl, "nsfd-rel0", "veth", -1, "nsfd-rel1",
			    move ? -1 : target);
	NSFD_SKIP_IF(return, no_veth(err));
	ASSERT_EQ(err, 0);
	ifindex = nsfd_link_index(self->nl, "nsfd-rel0");
	ASSERT_GT(ifindex, 0);
	if (move) {
		peer = nsfd_link_index(self->nl, "nsfd-rel1");
		ASSERT_GT(peer, 0);
		ASSERT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, peer,
					      target), 0);
	}
	ASSERT_GT(index_inside(target, "nsfd-rel1"), 0U);
	close(target);
	ASSERT_EQ(nsfd_wait_dellink(mon, ifindex, 20000), 0) {
		TH_LOG("the netns IFLA_NET_NS_FD named outlived its last fd");
	}
	close(mon);
}

TEST_F(link, netns_given_for_veth_peer_dies_with_its_last_fd)
{
	assert_netns_dies_after_request(_metadata, self, false);
}

TEST_F(link, netns_a_link_moved_into_dies_with_its_last_fd)
{
	assert_netns_dies_after_request(_metadata, self, true);
}

/* get_net_ns_by_fd(): an nsfs fd of another type is EINVAL. */
TEST_F(link, uts_fd_is_einval)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");
	int uts = nsfd_open_ns(0, "uts");

	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS));
	NSFD_SKIP_IF(return, no_dummy(ifindex));

	ASSERT_GE(uts, 0);
	EXPECT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex, uts),
		  -EINVAL);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-dummy0"), ifindex);
	EXPECT_EQ(nsfd_link_add(self->nl, "nsfd-dummy1", "dummy", uts, NULL,
				-1), -EINVAL);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-dummy1"), -ENODEV);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-dummy1"), -ENODEV);
	close(uts);
}

TEST_F(link, uts_fd_for_veth_peer_is_einval)
{
	int uts = nsfd_open_ns(0, "uts"), err;

	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS));
	ASSERT_GE(uts, 0);
	err = nsfd_link_add(self->nl, "nsfd-va", "veth", -1, "nsfd-vb", uts);
	NSFD_SKIP_IF(return, no_veth(err));
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-va"), -ENODEV);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-vb"), -ENODEV);
	close(uts);
}

TEST_F(link, regular_file_is_einval)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	NSFD_SKIP_IF(return, no_dummy(ifindex));

	ASSERT_GE(fd, 0);
	EXPECT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex, fd),
		  -EINVAL);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-dummy0"), ifindex);
	close(fd);
}

TEST_F(link, closed_fd_is_ebadf)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");
	int fd = nsfd_open_ns(0, "net");

	NSFD_SKIP_IF(return, no_dummy(ifindex));

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex, fd),
		  -EBADF);
	EXPECT_EQ(nsfd_link_add(self->nl, "nsfd-dummy1", "dummy", fd, NULL, -1),
		  -EBADF);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-dummy0"), ifindex);
}

/*
 * rtnl_link_get_net_capable(): CAP_NET_ADMIN over the user ns that owns
 * the netns IFLA_NET_NS_FD names, and nothing else. uid 0 talks from the
 * netns of a user ns it owns, over which it has every capability
 * whatever its effective set (cap_capable(): the owner of a child user
 * ns), so rtnetlink's own check, on the socket's netns, passes without
 * CAP_NET_ADMIN; "there" is owned by the initial user ns, where the
 * effective set counts. Only CAP_NET_ADMIN is lowered, and the same
 * request succeeds once it is raised again.
 */
static int own_userns_and_netns(void *arg)
{
	(void)arg;
	return nsfd_unshare_userns(CLONE_NEWNET);
}

/* Join the netns of a user ns that we own (@c holds it); rtnetlink there. */
static int join_netns_of_owned_userns(struct __test_metadata *_metadata,
				      struct nsfd_child *c)
{
	int fd, nl, err;

	err = nsfd_child_start(c, own_userns_and_netns, NULL);
	ASSERT_EQ(err, 0) {
		TH_LOG("unshare(CLONE_NEWUSER|CLONE_NEWNET): %s",
		       strerror(-err));
	}
	fd = nsfd_open_ns(c->pid, "net");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, CLONE_NEWNET), 0) {
		TH_LOG("setns into the netns of our user ns: %s",
		       strerror(errno));
	}
	close(fd);
	nl = nsfd_nl_open(0);
	ASSERT_GE(nl, 0);
	return nl;
}

static void lower_cap_net_admin(struct __test_metadata *_metadata)
{
	__u64 before = nsfd_get_caps();

	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_NET_ADMIN)), 0);
	ASSERT_EQ(nsfd_get_caps(), before & ~NSFD_CAP(CAP_NET_ADMIN));
}

TEST_F(link, move_into_root_owned_netns_without_cap_net_admin_is_eperm)
{
	struct nsfd_child c;
	int nl, ifindex;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	nl = join_netns_of_owned_userns(_metadata, &c);
	ifindex = add_dummy(_metadata, nl, "nsfd-mine");
	NSFD_SKIP_IF(return, no_dummy(ifindex));
	lower_cap_net_admin(_metadata);
	EXPECT_EQ(nsfd_link_set_netns(nl, RTM_SETLINK, ifindex, self->there),
		  -EPERM);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), ifindex);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-mine"), -ENODEV);
	ASSERT_EQ(nsfd_raise_caps(NSFD_CAP(CAP_NET_ADMIN)), 0);
	EXPECT_EQ(nsfd_link_set_netns(nl, RTM_SETLINK, ifindex, self->there),
		  0);
	EXPECT_GT(nsfd_link_index(self->nl_there, "nsfd-mine"), 0);
	close(nl);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST_F(link, create_in_root_owned_netns_without_cap_net_admin_is_eperm)
{
	struct nsfd_child c;
	int nl, err;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	nl = join_netns_of_owned_userns(_metadata, &c);
	lower_cap_net_admin(_metadata);
	err = nsfd_link_add(nl, "nsfd-mine", "dummy", self->there, NULL, -1);
	NSFD_SKIP_IF(return, no_dummy(err));
	EXPECT_EQ(err, -EPERM);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), -ENODEV);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-mine"), -ENODEV);
	ASSERT_EQ(nsfd_raise_caps(NSFD_CAP(CAP_NET_ADMIN)), 0);
	EXPECT_EQ(nsfd_link_add(nl, "nsfd-mine", "dummy", self->there, NULL,
				-1), 0);
	EXPECT_GT(nsfd_link_index(self->nl_there, "nsfd-mine"), 0);
	close(nl);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/*
 * uid 65534 in a user ns and netns of its own: CAP_NET_ADMIN there, none
 * in the initial user ns. It may move a link between netns it owns.
 */
TEST_F(link, unprivileged_move_between_own_netns_succeeds)
{
	int nl, ifindex, mine, err;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(nsfd_become_nobody(), 0);
	err = nsfd_unshare_userns(CLONE_NEWNET);
	ASSERT_EQ(err, 0) {
		TH_LOG("unshare(CLONE_NEWUSER|CLONE_NEWNET) as uid 65534: %s",
		       strerror(-err));
	}
	nl = nsfd_nl_open(0);
	ASSERT_GE(nl, 0);
	mine = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	ASSERT_GE(mine, 0);
	ifindex = add_dummy(_metadata, nl, "nsfd-mine");
	NSFD_SKIP_IF(return, no_dummy(ifindex));
	ASSERT_EQ(nsfd_link_set_netns(nl, RTM_SETLINK, ifindex, mine), 0);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), -ENODEV);
	EXPECT_GT(index_inside(mine, "nsfd-mine"), 0U);
	close(mine);
	close(nl);
}

TEST_HARNESS_MAIN
