// SPDX-License-Identifier: GPL-2.0
/*
 * IFLA_NET_NS_FD, spoken as raw rtnetlink: links created in, or moved
 * into, the netns that an nsfs fd names; the errors for fds that are not
 * a netns (from the NLMSG_ERROR ack); and the CAP_NET_ADMIN check over
 * the target's owning user namespace (rtnl_link_get_net_capable()).
 *
 * Every test runs in a private netns ("here") with a second netns
 * ("there") that only an fd holds.
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
	NSFD_REQUIRE_ROOT();
	NSFD_REQUIRE_NS(CLONE_NEWNET);
	ASSERT_EQ(unshare(CLONE_NEWNET), 0);
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
 * rtnl_link_ops, no module to load in the guest): SKIP naming the option.
 */
#define REQUIRE_KIND(err, option) do {					\
	if ((err) == -EOPNOTSUPP)					\
		SKIP(return,					\
		     "%s is off (RTM_NEWLINK: EOPNOTSUPP)", option);	\
} while (0)

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

	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");

	ASSERT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex,
				      self->there), 0);
	assert_moved(_metadata, self, "nsfd-dummy0");
}

/* RTM_NEWLINK on an existing link takes the same path (do_setlink). */
TEST_F(link, dummy_moved_by_newlink_on_existing_link)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");

	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");

	ASSERT_EQ(nsfd_link_set_netns(self->nl, RTM_NEWLINK, ifindex,
				      self->there), 0);
	assert_moved(_metadata, self, "nsfd-dummy0");
}

TEST_F(link, dummy_created_in_netns_by_fd)
{
	int err = nsfd_link_add(self->nl, "nsfd-dummy1", "dummy", self->there,
				NULL, -1);

	REQUIRE_KIND(err, "CONFIG_DUMMY");
	ASSERT_EQ(err, 0);
	assert_moved(_metadata, self, "nsfd-dummy1");
}

TEST_F(link, veth_peer_created_in_netns_by_fd)
{
	int err = nsfd_link_add(self->nl, "nsfd-va", "veth", -1, "nsfd-vb",
				self->there);

	REQUIRE_KIND(err, "CONFIG_VETH");
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
	REQUIRE_KIND(err, "CONFIG_VETH");
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
		TH_LOG("the netns IFLA_NET_NS_FD named outlived its last fd: a leaked reference");
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

	NSFD_REQUIRE_NS(CLONE_NEWUTS);
	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");

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

	NSFD_REQUIRE_NS(CLONE_NEWUTS);
	ASSERT_GE(uts, 0);
	err = nsfd_link_add(self->nl, "nsfd-va", "veth", -1, "nsfd-vb", uts);
	REQUIRE_KIND(err, "CONFIG_VETH");
	EXPECT_EQ(err, -EINVAL);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-va"), -ENODEV);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-vb"), -ENODEV);
	close(uts);
}

TEST_F(link, regular_file_is_einval)
{
	int ifindex = add_dummy(_metadata, self->nl, "nsfd-dummy0");
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");

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

	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(nsfd_link_set_netns(self->nl, RTM_SETLINK, ifindex, fd),
		  -EBADF);
	EXPECT_EQ(nsfd_link_add(self->nl, "nsfd-dummy1", "dummy", fd, NULL, -1),
		  -EBADF);
	EXPECT_EQ(nsfd_link_index(self->nl, "nsfd-dummy0"), ifindex);
}

/*
 * uid 65534 in a user ns and netns of its own: CAP_NET_ADMIN there, none
 * over "there", whose owner is the initial user ns. Returns the
 * rtnetlink socket of its own netns.
 */
static int become_unprivileged_netns_owner(struct __test_metadata *_metadata)
{
	int nl, err;

	ASSERT_EQ(nsfd_become_nobody(), 0);
	err = nsfd_unshare_userns(CLONE_NEWNET);
	ASSERT_EQ(err, 0) {
		TH_LOG("unshare(CLONE_NEWUSER|CLONE_NEWNET) as uid 65534: %s",
		       strerror(-err));
	}
	nl = nsfd_nl_open(0);
	ASSERT_GE(nl, 0);
	return nl;
}

TEST_F(link, unprivileged_move_into_root_owned_netns_is_eperm)
{
	int nl, ifindex;

	NSFD_REQUIRE_USERNS(true);
	nl = become_unprivileged_netns_owner(_metadata);
	ifindex = add_dummy(_metadata, nl, "nsfd-mine");
	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");
	EXPECT_EQ(nsfd_link_set_netns(nl, RTM_SETLINK, ifindex, self->there),
		  -EPERM);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), ifindex);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-mine"), -ENODEV);
	close(nl);
}

TEST_F(link, unprivileged_create_in_root_owned_netns_is_eperm)
{
	int nl;

	NSFD_REQUIRE_USERNS(true);
	nl = become_unprivileged_netns_owner(_metadata);
	EXPECT_EQ(nsfd_link_add(nl, "nsfd-mine", "dummy", self->there, NULL,
				-1), -EPERM);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), -ENODEV);
	EXPECT_EQ(nsfd_link_index(self->nl_there, "nsfd-mine"), -ENODEV);
	close(nl);
}

/* The unprivileged owner may move a link between netns it owns. */
TEST_F(link, unprivileged_move_between_own_netns_succeeds)
{
	int nl, ifindex, mine;

	NSFD_REQUIRE_USERNS(true);
	nl = become_unprivileged_netns_owner(_metadata);
	mine = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	ASSERT_GE(mine, 0);
	ifindex = add_dummy(_metadata, nl, "nsfd-mine");
	REQUIRE_KIND(ifindex, "CONFIG_DUMMY");
	ASSERT_EQ(nsfd_link_set_netns(nl, RTM_SETLINK, ifindex, mine), 0);
	EXPECT_EQ(nsfd_link_index(nl, "nsfd-mine"), -ENODEV);
	EXPECT_GT(index_inside(mine, "nsfd-mine"), 0U);
	close(mine);
	close(nl);
}

TEST_HARNESS_MAIN
