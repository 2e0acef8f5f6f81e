// SPDX-License-Identifier: GPL-2.0
/*
 * socketat(2): int socketat(int nsfd, int family, int type, int protocol).
 *
 * nsfd -1 is socket(2); an nsfs fd of a net namespace, or a pidfd (that
 * task's netns), creates the socket in that netns for its whole life.
 * Errors in order: EBADF, EINVAL (not a netns fd nor a pidfd), ESRCH
 * (pidfd of a task that is gone), EPERM (no CAP_NET_ADMIN over the owner
 * of a netns other than the caller's; ptrace read access for a pidfd),
 * then whatever socket(2) gives in the target netns.
 *
 * On a kernel without the syscall every test skips with the same reason.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <linux/netlink.h>

#include "nsfd_helpers.h"
#include "../kselftest_harness.h"

#ifndef __NR_socketat
	#if defined __alpha__
		#define __NR_socketat 573
	#elif defined _MIPS_SIM
		#if _MIPS_SIM == _MIPS_SIM_ABI32
			#define __NR_socketat 4463	/* o32 */
		#endif
		#if _MIPS_SIM == _MIPS_SIM_NABI32
			#define __NR_socketat 6463	/* n32 */
		#endif
		#if _MIPS_SIM == _MIPS_SIM_ABI64
			#define __NR_socketat 5463	/* n64 */
		#endif
	#else
		#define __NR_socketat 463
	#endif
#endif

static inline int sys_socketat(int nsfd, int family, int type, int protocol)
{
	return syscall(__NR_socketat, nsfd, family, type, protocol);
}

#define SOCKETAT_MISSING	"socketat not implemented (ENOSYS)"

/* Every fixture's setup starts with this: one reason for every skip. */
static bool socketat_missing(void)
{
	int fd = sys_socketat(-1, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ENOSYS;
}

/* A type bit that is neither SOCK_TYPE_MASK nor SOCK_CLOEXEC/SOCK_NONBLOCK. */
static const int unknown_type_bits[] = { 0x10, 0x40, 0x1000, 0x40000000 };

/*
 * "here": the test's private netns, lo up; "a": a second netns that only
 * an fd holds. Cookies tell which netns a socket is in.
 */
FIXTURE(sat) {
	int here;
	int a;
	__u64 here_cookie;
	__u64 a_cookie;
};

FIXTURE_SETUP(sat)
{
	if (socketat_missing())
		SKIP(return, SOCKETAT_MISSING);
	ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	ASSERT_EQ(nsfd_lo_up_here(), 0);
	self->here = nsfd_open_ns(0, "net");
	ASSERT_GE(self->here, 0);
	self->a = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	ASSERT_GE(self->a, 0);
	self->here_cookie = nsfd_current_netns_cookie();
	self->a_cookie = nsfd_netns_cookie_of(self->a);
	ASSERT_NE(self->here_cookie, 0ULL);
	ASSERT_NE(self->a_cookie, 0ULL);
	ASSERT_NE(self->here_cookie, self->a_cookie);
}

FIXTURE_TEARDOWN(sat)
{
	close(self->a);
	close(self->here);
}

/* The cookie of a socketat() socket, 0 if it could not be created. */
static __u64 cookie_of_new(int nsfd, int family, int type)
{
	return nsfd_cookie_and_close(sys_socketat(nsfd, family, type | SOCK_CLOEXEC, 0));
}

TEST_F(sat, minus_one_is_the_callers_netns)
{
	int s1 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int s2 = sys_socketat(-1, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ASSERT_GE(s1, 0);
	ASSERT_GE(s2, 0) {
		TH_LOG("socketat(-1): %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_netns_cookie(s2), nsfd_netns_cookie(s1));
	EXPECT_EQ(nsfd_netns_cookie(s2), self->here_cookie);
	close(s1);
	close(s2);
}

static int sockopt(int s, int opt)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(s, SOL_SOCKET, opt, &v, &len))
		return -errno;
	return v;
}

/* socketat(-1, ...) answers as socket(2) does, triple by triple. */
TEST_F(sat, minus_one_matches_socket_over_triples)
{
	static const struct { int family, type, protocol; } t[] = {
		{ AF_INET, SOCK_STREAM, 0 },
		{ AF_INET, SOCK_DGRAM, IPPROTO_UDP },
		{ AF_INET, SOCK_RAW, IPPROTO_ICMP },
		{ AF_INET, SOCK_DGRAM, IPPROTO_ICMP },		/* EACCES: ping_group_range */
		{ AF_INET, SOCK_STREAM, IPPROTO_UDP },		/* EPROTONOSUPPORT */
		{ AF_INET, SOCK_SEQPACKET, 0 },			/* ESOCKTNOSUPPORT */
		{ AF_INET, SOCK_STREAM, -1 },			/* EINVAL */
		{ AF_INET, SOCK_STREAM, IPPROTO_MAX },		/* EINVAL */
		{ AF_INET, -1, 0 },				/* EINVAL */
		{ AF_INET, SOCK_PACKET + 1, 0 },		/* EINVAL: >= SOCK_MAX */
		{ AF_INET, SOCK_STREAM | 0x10, 0 },		/* EINVAL: unknown flag */
		{ AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0 },
		{ AF_INET6, SOCK_STREAM, 0 },
		{ AF_INET6, SOCK_DGRAM, IPPROTO_TCP },		/* EPROTONOSUPPORT */
		{ AF_UNIX, SOCK_STREAM, 0 },
		{ AF_UNIX, SOCK_DGRAM, 0 },
		{ AF_UNIX, SOCK_SEQPACKET, 0 },
		{ AF_UNIX, SOCK_RAW, 0 },			/* becomes SOCK_DGRAM */
		{ AF_UNIX, SOCK_STREAM, PF_UNIX },
		{ AF_UNIX, SOCK_STREAM, 2 },			/* EPROTONOSUPPORT */
		{ AF_UNIX, SOCK_RDM, 0 },			/* ESOCKTNOSUPPORT */
		{ AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
		{ AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE },
		{ AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE },	/* ESOCKTNOSUPPORT */
		{ AF_NETLINK, SOCK_RAW, MAX_LINKS },		/* EPROTONOSUPPORT */
		{ AF_UNSPEC, SOCK_STREAM, 0 },			/* EAFNOSUPPORT */
		{ -1, SOCK_STREAM, 0 },				/* EAFNOSUPPORT */
		{ AF_MAX, SOCK_STREAM, 0 },			/* EAFNOSUPPORT */
		{ AF_PACKET, SOCK_RAW, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int s1 = socket(t[i].family, t[i].type, t[i].protocol), e1 = errno;
		int s2 = sys_socketat(-1, t[i].family, t[i].type, t[i].protocol), e2 = errno;

		EXPECT_EQ(s1 >= 0, s2 >= 0) {
			TH_LOG("(%d, 0x%x, %d): socket %d (%s), socketat %d (%s)", t[i].family,
			       t[i].type, t[i].protocol, s1, strerror(e1), s2, strerror(e2));
		}
		if (s1 < 0 && s2 < 0) {
			EXPECT_EQ(e1, e2) {
				TH_LOG("(%d, 0x%x, %d): socket %s, socketat %s", t[i].family,
				       t[i].type, t[i].protocol, strerror(e1), strerror(e2));
			}
		}
		if (s1 >= 0 && s2 >= 0) {
			EXPECT_EQ(sockopt(s1, SO_DOMAIN), sockopt(s2, SO_DOMAIN));
			EXPECT_EQ(sockopt(s1, SO_TYPE), sockopt(s2, SO_TYPE));
			EXPECT_EQ(sockopt(s1, SO_PROTOCOL), sockopt(s2, SO_PROTOCOL));
			EXPECT_EQ(fcntl(s1, F_GETFL), fcntl(s2, F_GETFL));
			EXPECT_EQ(nsfd_netns_cookie(s1), nsfd_netns_cookie(s2));
		}
		if (s1 >= 0)
			close(s1);
		if (s2 >= 0)
			close(s2);
	}
}

/* Sockets of every family are made in the target netns, not the caller's. */
TEST_F(sat, netns_fd_gives_the_targets_cookie)
{
	static const struct { int family, type; } t[] = {
		{ AF_INET, SOCK_DGRAM }, { AF_INET, SOCK_STREAM },
		{ AF_INET6, SOCK_DGRAM }, { AF_UNIX, SOCK_STREAM },
		{ AF_NETLINK, SOCK_RAW },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		__u64 cookie = cookie_of_new(self->a, t[i].family, t[i].type);

		EXPECT_EQ(cookie, self->a_cookie) {
			TH_LOG("family %d type %d: cookie %llu, target %llu, caller %llu",
			       t[i].family, t[i].type, (unsigned long long)cookie,
			       (unsigned long long)self->a_cookie,
			       (unsigned long long)self->here_cookie);
		}
	}
	EXPECT_EQ(nsfd_current_netns_cookie(), self->here_cookie);
}

/* An rtnetlink socket made in "a" sees a's links, not ours. */
TEST_F(sat, netlink_socket_talks_to_the_target_netns)
{
	int nl = sys_socketat(self->a, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int here = nsfd_nl_open(0);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	ASSERT_GE(nl, 0);
	ASSERT_GE(here, 0);
	ASSERT_EQ(bind(nl, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(nsfd_link_add(nl, "nsfd-in-a", "dummy", -1, NULL, -1), 0);
	EXPECT_GT(nsfd_link_index(nl, "nsfd-in-a"), 0);
	EXPECT_EQ(nsfd_link_index(here, "nsfd-in-a"), -ENODEV);
	close(here);
	close(nl);
}

/* Bring lo of the netns of @nsfd up, through a socket made there. */
static int lo_up_in(int nsfd)
{
	int s = sys_socketat(nsfd, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	if (s < 0)
		return -errno;
	err = nsfd_lo_up(s);
	close(s);
	return err;
}

static struct sockaddr_in loopback(unsigned short port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return sin;
}

/* A TCP listener on 127.0.0.1:@port (0: any) in the netns of @nsfd. */
static int listener_in(int nsfd, unsigned short *port)
{
	struct sockaddr_in sin = loopback(*port);
	socklen_t len = sizeof(sin);
	int s = sys_socketat(nsfd, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) || listen(s, 4) ||
	    getsockname(s, (struct sockaddr *)&sin, &len))
		return nsfd_close_fail(s);
	*port = ntohs(sin.sin_port);
	return s;
}

/* connect() to 127.0.0.1:@port from a socket made in @nsfd (-1: here). */
static int connect_in(int nsfd, unsigned short port)
{
	struct sockaddr_in sin = loopback(port);
	int s = sys_socketat(nsfd, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)))
		return nsfd_close_fail(s);
	return s;
}

TEST_F(sat, listener_in_target_is_reachable_only_there)
{
	unsigned short port = 0;
	int l, c, s;
	char buf[8] = {};

	ASSERT_EQ(lo_up_in(self->a), 0);
	l = listener_in(self->a, &port);
	ASSERT_GE(l, 0) {
		TH_LOG("listener: %s", strerror(-l));
	}
	c = connect_in(self->a, port);
	ASSERT_GE(c, 0) {
		TH_LOG("connect inside the target: %s", strerror(-c));
	}
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ASSERT_GE(s, 0);
	EXPECT_EQ(nsfd_netns_cookie(s), self->a_cookie);
	ASSERT_EQ(write(c, "ping", 4), 4);
	ASSERT_EQ(read(s, buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "ping");
	/* Here, lo is up too, and nothing listens on that port. */
	EXPECT_EQ(connect_in(-1, port), -ECONNREFUSED);
	close(s);
	close(c);
	close(l);
}

/*
 * The seed's use case: one thread, 127.0.0.1:P bound in two netns at
 * once, a client in each, each served and told which netns served it.
 */
TEST_F(sat, one_thread_serves_same_address_in_two_netns)
{
	int b = nsfd_detached_ns(CLONE_NEWNET, "net", "net"), ns[2], l[2], c[2], i;
	unsigned short port = 0, port_b;
	const char *tag[2] = { "A", "B" };
	__u64 cookie[2];

	ASSERT_GE(b, 0);
	ns[0] = self->a;
	ns[1] = b;
	cookie[0] = self->a_cookie;
	cookie[1] = nsfd_netns_cookie_of(b);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(lo_up_in(ns[i]), 0);
	l[0] = listener_in(ns[0], &port);
	ASSERT_GE(l[0], 0);
	port_b = port;
	l[1] = listener_in(ns[1], &port_b);
	ASSERT_GE(l[1], 0) {
		TH_LOG("bind 127.0.0.1:%u in the second netns: %s", port, strerror(-l[1]));
	}
	ASSERT_EQ(port_b, port);
	for (i = 0; i < 2; i++) {
		c[i] = connect_in(ns[i], port);
		ASSERT_GE(c[i], 0);
	}
	for (int served = 0; served < 2;) {
		struct pollfd p[2] = { { .fd = l[0], .events = POLLIN },
				       { .fd = l[1], .events = POLLIN } };

		ASSERT_GT(poll(p, 2, 10000), 0);
		for (i = 0; i < 2; i++) {
			int s;

			if (!(p[i].revents & POLLIN))
				continue;
			s = accept4(l[i], NULL, NULL, SOCK_CLOEXEC);
			ASSERT_GE(s, 0);
			EXPECT_EQ(nsfd_netns_cookie(s), cookie[i]);
			ASSERT_EQ(write(s, tag[i], 1), 1);
			close(s);
			served++;
		}
	}
	for (i = 0; i < 2; i++) {
		char buf[2] = {};

		ASSERT_EQ(read(c[i], buf, 1), 1);
		EXPECT_STREQ(buf, tag[i]);
		close(c[i]);
		close(l[i]);
	}
	close(b);
}

TEST_F(sat, sock_cloexec_is_honoured)
{
	int s1 = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int s2 = sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0);

	ASSERT_GE(s1, 0);
	ASSERT_GE(s2, 0);
	EXPECT_EQ(fcntl(s1, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(s2, F_GETFD), 0);
	close(s1);
	close(s2);
}

TEST_F(sat, sock_nonblock_is_honoured)
{
	int s1 = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int s2 = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char c;

	ASSERT_GE(s1, 0);
	ASSERT_GE(s2, 0);
	EXPECT_EQ(fcntl(s1, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	EXPECT_EQ(fcntl(s2, F_GETFL) & O_NONBLOCK, 0);
	EXPECT_EQ(recv(s1, &c, 1, 0), -1);
	EXPECT_EQ(errno, EAGAIN);
	close(s1);
	close(s2);
}

TEST_F(sat, unknown_type_flag_is_einval)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unknown_type_bits); i++) {
		EXPECT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM | unknown_type_bits[i], 0), -1);
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("type bit 0x%x", unknown_type_bits[i]);
		}
		EXPECT_EQ(sys_socketat(-1, AF_INET, SOCK_DGRAM | unknown_type_bits[i], 0), -1);
		EXPECT_EQ(errno, EINVAL);
	}
}

TEST_F(sat, fds_that_are_not_open_are_ebadf)
{
	int closed = nsfd_open_ns(0, "net");
	const int fds[] = { closed, -2, INT_MAX, INT_MIN };
	unsigned int i;

	ASSERT_GE(closed, 0);
	close(closed);
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		EXPECT_EQ(sys_socketat(fds[i], AF_INET, SOCK_DGRAM, 0), -1);
		EXPECT_EQ(errno, EBADF) {
			TH_LOG("nsfd %d: %s", fds[i], strerror(errno));
		}
	}
}

TEST_F(sat, o_path_netns_fd_is_ebadf)
{
	int fd = open("/proc/self/ns/net", O_PATH | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(sys_socketat(fd, AF_INET, SOCK_DGRAM, 0), -1);
	ASSERT_EQ(errno, EBADF);
	close(fd);
}

static void assert_socketat_einval(struct __test_metadata *_metadata, int fd, const char *what)
{
	ASSERT_GE(fd, 0) {
		TH_LOG("%s: %s", what, strerror(errno));
	}
	EXPECT_EQ(sys_socketat(fd, AF_INET, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EINVAL) {
		TH_LOG("%s: %s", what, strerror(errno));
	}
	close(fd);
}

TEST_F(sat, fds_that_are_not_namespaces_are_einval)
{
	assert_socketat_einval(_metadata, open("/proc/self/status", O_RDONLY | O_CLOEXEC),
			       "regular file");
	assert_socketat_einval(_metadata, socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0),
			       "socket");
	assert_socketat_einval(_metadata, eventfd(0, EFD_CLOEXEC), "eventfd");
}

TEST_F(sat, every_other_namespace_type_is_einval)
{
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++) {
		if (nsfd_ns_entries[i].type == CLONE_NEWNET)
			continue;
		assert_socketat_einval(_metadata, nsfd_open_ns(0, nsfd_ns_entries[i].name),
				       nsfd_ns_entries[i].name);
	}
}

TEST_F(sat, pidfd_reaches_the_tasks_netns_until_reaped)
{
	int flags = CLONE_NEWNET, nsfd, pidfd;
	struct nsfd_child c;
	__u64 cookie;

	ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare, &flags), 0);
	pidfd = sys_pidfd_open(c.pid, 0);
	ASSERT_GE(pidfd, 0);
	nsfd = nsfd_open_ns(c.pid, "net");
	ASSERT_GE(nsfd, 0);
	cookie = nsfd_netns_cookie_of(nsfd);
	ASSERT_NE(cookie, 0ULL);
	EXPECT_EQ(cookie_of_new(pidfd, AF_INET, SOCK_DGRAM), cookie);
	EXPECT_NE(cookie, self->here_cookie);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
	EXPECT_EQ(sys_socketat(pidfd, AF_INET, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, ESRCH);
	close(nsfd);
	close(pidfd);
}

TEST_F(sat, pidfd_of_reaped_child_is_esrch)
{
	int pidfd = nsfd_pidfd_of_reaped_child();

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(sys_socketat(pidfd, AF_INET, SOCK_DGRAM, 0), -1);
	ASSERT_EQ(errno, ESRCH);
	close(pidfd);
}

/* The caller's own netns, by fd or pidfd, needs no capability at all. */
TEST_F(sat, own_netns_needs_no_capability)
{
	int pidfd = sys_pidfd_open(getpid(), 0);

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	EXPECT_EQ(cookie_of_new(self->here, AF_INET, SOCK_DGRAM), self->here_cookie);
	EXPECT_EQ(cookie_of_new(pidfd, AF_INET, SOCK_DGRAM), self->here_cookie);
	EXPECT_EQ(cookie_of_new(-1, AF_INET, SOCK_DGRAM), self->here_cookie);
	close(pidfd);
}

TEST_F(sat, other_netns_without_cap_net_admin_is_eperm)
{
	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_NET_ADMIN)), 0);
	ASSERT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

TEST_F(sat, unprivileged_uid_holding_root_netns_fd_is_eperm)
{
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(sys_socketat(self->a, AF_UNIX, SOCK_STREAM, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

/* CAP_NET_ADMIN but not CAP_NET_RAW: datagram yes, raw EPERM (inet_create). */
TEST_F(sat, raw_socket_without_cap_net_raw_is_eperm)
{
	int s;

	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_NET_RAW)), 0);
	s = sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(s, 0);
	close(s);
	ASSERT_EQ(sys_socketat(self->a, AF_INET, SOCK_RAW, IPPROTO_ICMP), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(sys_socketat(self->a, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6), -1);
	ASSERT_EQ(errno, EPERM);
}

/* EBADF, then EINVAL, then EPERM, then socket(2)'s own errors. */
TEST_F(sat, errors_come_in_the_documented_order)
{
	int uts = nsfd_open_ns(0, "uts"), closed = nsfd_open_ns(0, "net");

	ASSERT_GE(uts, 0);
	ASSERT_GE(closed, 0);
	close(closed);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sys_socketat(closed, -1, -1, -1), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_socketat(uts, -1, -1, -1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_socketat(self->a, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EPERM);
	EXPECT_EQ(sys_socketat(self->here, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EAFNOSUPPORT);
	close(uts);
}

/*
 * uid 65534 owns a user ns with two netns: from the second, a socket in
 * the first (CAP_NET_ADMIN and CAP_NET_RAW over its owner: yes).
 */
TEST_F(sat, unprivileged_user_ns_owner_reaches_its_other_netns)
{
	__u64 cookie;
	int first, s, err;

	if (!nsfd_unpriv_userns_allowed())
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
	ASSERT_EQ(nsfd_become_nobody(), 0);
	err = nsfd_unshare_userns(CLONE_NEWNET);
	ASSERT_EQ(err, 0) {
		TH_LOG("unshare(CLONE_NEWUSER|CLONE_NEWNET): %s", strerror(-err));
	}
	first = nsfd_open_ns(0, "net");
	ASSERT_GE(first, 0);
	cookie = nsfd_current_netns_cookie();
	ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	ASSERT_NE(nsfd_current_netns_cookie(), cookie);
	EXPECT_EQ(cookie_of_new(first, AF_INET, SOCK_DGRAM), cookie);
	s = sys_socketat(first, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	EXPECT_GE(s, 0) {
		TH_LOG("raw socket in own netns: %s", strerror(errno));
	}
	if (s >= 0)
		close(s);
	/* ... and still none in a netns that root owns. */
	EXPECT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EPERM);
	close(first);
}

/* A pidfd also needs ptrace read access to the task (as setns does). */
TEST_F(sat, pidfd_of_non_dumpable_task_is_eperm)
{
	struct nsfd_as_nobody how = { .flags = CLONE_NEWUSER | CLONE_NEWNET };
	struct nsfd_child c;
	int pidfd;

	if (!nsfd_unpriv_userns_allowed())
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
	for (how.dumpable = 1; how.dumpable >= 0; how.dumpable--) {
		ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare_as_nobody, &how), 0);
		pidfd = sys_pidfd_open(c.pid, 0);
		ASSERT_GE(pidfd, 0);
		if (fork() == 0) {
			int s;

			if (nsfd_become_nobody())
				_exit(100);
			s = sys_socketat(pidfd, AF_INET, SOCK_DGRAM, 0);
			_exit(s >= 0 ? 0 : errno);
		}
		{
			int status;

			ASSERT_GT(wait(&status), 0);
			ASSERT_TRUE(WIFEXITED(status));
			EXPECT_EQ(WEXITSTATUS(status), how.dumpable ? 0 : EPERM) {
				TH_LOG("dumpable %d: %s", how.dumpable,
				       strerror(WEXITSTATUS(status)));
			}
		}
		close(pidfd);
		nsfd_child_finish(&c);
	}
}

/*
 * The socket holds its netns: nsfd closed and the last task gone, the
 * netns (and our veth end, whose peer is in it) stays until the socket
 * is closed.
 */
TEST_F(sat, socket_keeps_its_netns_alive)
{
	int flags = CLONE_NEWNET, nl, mon, nsfd, s, ifindex;
	struct nsfd_child c;
	struct ifreq ifr = {};

	nl = nsfd_nl_open(0);
	ASSERT_GE(nl, 0);
	mon = nsfd_nl_open(RTMGRP_LINK);
	ASSERT_GE(mon, 0);
	ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare, &flags), 0);
	nsfd = nsfd_open_ns(c.pid, "net");
	ASSERT_GE(nsfd, 0);
	ASSERT_EQ(nsfd_link_add(nl, "nsfd-here", "veth", -1, "nsfd-there", nsfd), 0);
	ifindex = nsfd_link_index(nl, "nsfd-here");
	ASSERT_GT(ifindex, 0);
	s = sys_socketat(nsfd, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(s, 0);
	ASSERT_EQ(close(nsfd), 0);
	ASSERT_EQ(nsfd_child_finish(&c), 0);

	/* Alive: the socket's netns still has the peer. */
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "nsfd-there");
	EXPECT_EQ(ioctl(s, SIOCGIFINDEX, &ifr), 0);
	EXPECT_FALSE(nsfd_dellink_queued(mon, ifindex));
	EXPECT_EQ(if_nametoindex("nsfd-here"), (unsigned int)ifindex);

	ASSERT_EQ(close(s), 0);
	ASSERT_EQ(nsfd_wait_dellink(mon, ifindex, 20000), 0) {
		TH_LOG("no RTM_DELLINK after the last socket closed");
	}
	EXPECT_EQ(if_nametoindex("nsfd-here"), 0U);
	close(mon);
	close(nl);
}

/*
 * What socketat(2) and socket(2) may answer in this sweep: socketat's own
 * EBADF, EINVAL, ESRCH, EPERM; from __sock_create() EAFNOSUPPORT, EINVAL
 * (type), ENFILE (sock_alloc); from the families' create(): EINVAL
 * (inet protocol range), EPROTONOSUPPORT, ESOCKTNOSUPPORT, EPERM (raw),
 * EACCES (ping_group_range, LSMs), ENOMEM, ENOBUFS, EPROTOTYPE and
 * EOPNOTSUPP (families outside this guest's config); EMFILE/ENFILE/ENOMEM
 * for the fd and file.
 */
static bool documented_errno(int e)
{
	switch (e) {
	case EBADF: case EINVAL: case ESRCH: case EPERM:
	case EAFNOSUPPORT: case EPROTONOSUPPORT: case EPROTOTYPE: case ESOCKTNOSUPPORT:
	case EMFILE: case ENFILE: case ENOBUFS: case ENOMEM: case EACCES: case EOPNOTSUPP:
		return true;
	}
	return false;
}

#define SWEEP_CALLS	100000
#define SWEEP_SEED	0x6e736664u

static unsigned int sweep_rand(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* Random nsfd, family, type, protocol: only documented errnos. */
TEST_F_TIMEOUT(sat, random_input_gives_only_documented_errnos, 60)
{
	int uts = nsfd_open_ns(0, "uts"), file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	int pidfd = sys_pidfd_open(getpid(), 0), dead = nsfd_pidfd_of_reaped_child();
	int closed = eventfd(0, EFD_CLOEXEC), sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unsigned int state = SWEEP_SEED, i, ok = 0, bad = 0;
	int pool[10];

	ASSERT_GE(uts, 0);
	ASSERT_GE(file, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_GE(dead, 0);
	ASSERT_GE(closed, 0);
	ASSERT_GE(sock, 0);
	close(closed);
	pool[0] = -1; pool[1] = self->a; pool[2] = self->here; pool[3] = uts;
	pool[4] = file; pool[5] = pidfd; pool[6] = dead; pool[7] = closed;
	pool[8] = sock; pool[9] = -2;

	for (i = 0; i < SWEEP_CALLS; i++) {
		unsigned int r = sweep_rand(&state);
		int nsfd, family, type, protocol, s;

		nsfd = r & 1 ? pool[(r >> 1) % 10] : (int)sweep_rand(&state) - (1 << 23);
		r = sweep_rand(&state);
		family = r & 7 ? (int)(r >> 3) % (AF_MAX + 4) - 2 : (int)sweep_rand(&state);
		r = sweep_rand(&state);
		type = (r & 0xf) | (r & 0x10 ? SOCK_CLOEXEC : 0) | (r & 0x20 ? SOCK_NONBLOCK : 0);
		if (!(r & 0x3c0))
			type |= 1 << ((r >> 10) % 31);
		r = sweep_rand(&state);
		/* Mostly 0 or small, so that many calls reach the families' create(). */
		protocol = r & 1 ? 0 : r & 2 ? (int)(r >> 2) % 300 : (int)(sweep_rand(&state) << 8);
		s = sys_socketat(nsfd, family, type, protocol);
		if (s >= 0) {
			close(s);
			ok++;
			continue;
		}
		if (!documented_errno(errno) && bad++ < 8)
			TH_LOG("socketat(%d, %d, 0x%x, %d): %s", nsfd, family, type, protocol,
			       strerror(errno));
	}
	TH_LOG("%u calls, seed 0x%x: %u sockets, %u undocumented errnos", SWEEP_CALLS,
	       SWEEP_SEED, ok, bad);
	EXPECT_EQ(bad, 0U);
	EXPECT_GT(ok, 0U);
	close(sock);
	close(uts);
	close(file);
	close(pidfd);
	close(dead);
}

/*
 * The setns dance (setns into the target, socket(), setns back) changes
 * the whole thread's netns for a while: a signal handler that runs in
 * between and makes a socket of its own gets it in the target netns.
 * socketat never changes the thread's netns, so the handler's socket is
 * where the thread lives. The signal is raised at the worst moment by
 * the test itself, so the outcome is deterministic.
 */
static atomic_int handler_sock = -1;

static void make_socket_in_handler(int sig)
{
	(void)sig;
	handler_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static void install_socket_handler(struct __test_metadata *_metadata)
{
	struct sigaction sa = { .sa_handler = make_socket_in_handler };

	handler_sock = -1;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
}

/* Where the thread's socket and the handler's socket ended up. */
static void assert_cookies(struct __test_metadata *_metadata, int s, __u64 want,
			   __u64 handler_want)
{
	ASSERT_GE(s, 0);
	ASSERT_GE(handler_sock, 0);
	EXPECT_EQ(nsfd_netns_cookie(s), want);
	EXPECT_EQ(nsfd_netns_cookie(handler_sock), handler_want);
	close(handler_sock);
	close(s);
}

TEST_F(sat, signal_handler_during_setns_dance_lands_in_wrong_netns)
{
	int s;

	install_socket_handler(_metadata);
	ASSERT_EQ(setns(self->a, CLONE_NEWNET), 0);
	ASSERT_EQ(raise(SIGUSR1), 0);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_EQ(setns(self->here, CLONE_NEWNET), 0);
	/* The handler meant its thread's netns, "here"; it got "a". */
	assert_cookies(_metadata, s, self->a_cookie, self->a_cookie);
}

TEST_F(sat, signal_handler_around_socketat_stays_in_callers_netns)
{
	int s;

	install_socket_handler(_metadata);
	s = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Where the dance would be between its two setns calls. */
	ASSERT_EQ(raise(SIGUSR1), 0);
	assert_cookies(_metadata, s, self->a_cookie, self->here_cookie);
}

TEST_HARNESS_MAIN
