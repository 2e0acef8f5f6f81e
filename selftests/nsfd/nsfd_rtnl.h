/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw rtnetlink for the nsfd selftests: links, veth pairs, moving a link
 * by IFLA_NET_NS_FD, waiting for RTM_DELLINK, and the flush that makes a
 * namespace free observable: a sentinel netns released after the
 * namespace under test, whose death we wait for.
 */
#ifndef NSFD_RTNL_H
#define NSFD_RTNL_H

#include "nsfd_common.h"

#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

struct nsfd_nlmsg {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[1024];
};

static inline struct rtattr *nsfd_nl_put(struct nsfd_nlmsg *m, int type,
					 const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(m->nh.nlmsg_len);
	struct rtattr *rta = (struct rtattr *)((char *)m + off);

	if (off + RTA_SPACE(len) > sizeof(*m))
		return NULL;
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy((char *)m + off + RTA_LENGTH(0), data, len);
	m->nh.nlmsg_len = off + RTA_SPACE(len);
	return rta;
}

static inline void nsfd_nl_put_u32(struct nsfd_nlmsg *m, int type, __u32 v)
{
	nsfd_nl_put(m, type, &v, sizeof(v));
}

static inline void nsfd_nl_put_str(struct nsfd_nlmsg *m, int type,
				   const char *s)
{
	nsfd_nl_put(m, type, s, strlen(s) + 1);
}

static inline struct rtattr *nsfd_nl_nest(struct nsfd_nlmsg *m, int type)
{
	return nsfd_nl_put(m, type, NULL, 0);
}

static inline void nsfd_nl_nest_end(struct nsfd_nlmsg *m, struct rtattr *nest)
{
	nest->rta_len = (char *)m + m->nh.nlmsg_len - (char *)nest;
}

static inline void nsfd_nl_init(struct nsfd_nlmsg *m, int type, int flags)
{
	memset(m, 0, sizeof(*m));
	m->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	m->nh.nlmsg_type = type;
	m->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	m->ifi.ifi_family = AF_UNSPEC;
}

/* A NETLINK_ROUTE socket in the current netns, subscribed to @groups. */
static inline int nsfd_nl_open(__u32 groups)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = groups };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return nsfd_close_fail(fd);
	return fd;
}

/*
 * Send a request and read the answer to it: the error of its NLMSG_ERROR
 * ack (0 or -errno). With @ifindex, an RTM_NEWLINK answer (to RTM_GETLINK)
 * stores the link's index there.
 */
static inline int nsfd_nl_talk(int fd, struct nlmsghdr *nh, int *ifindex)
{
	static __u32 seq = 1;
	char buf[8192];
	ssize_t n;

	nh->nlmsg_seq = ++seq;
	if (send(fd, nh, nh->nlmsg_len, 0) != (ssize_t)nh->nlmsg_len)
		return -errno;
	for (;;) {
		struct nlmsghdr *r;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, n);
		     r = NLMSG_NEXT(r, n)) {
			if (r->nlmsg_seq != nh->nlmsg_seq)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(r);

				return e->error;
			}
			if (r->nlmsg_type == RTM_NEWLINK && ifindex) {
				struct ifinfomsg *ifi = NLMSG_DATA(r);

				*ifindex = ifi->ifi_index;
			}
		}
	}
}

/*
 * RTM_NEWLINK of kind @kind named @name; @nsfd >= 0 creates it in that
 * netns (IFLA_NET_NS_FD). A veth gets its peer @peer, in the netns of
 * @peer_nsfd when that is >= 0.
 */
static inline int nsfd_link_add(int nl, const char *name, const char *kind,
				int nsfd, const char *peer, int peer_nsfd)
{
	struct rtattr *linkinfo, *data, *peerinfo;
	struct nsfd_nlmsg m;

	nsfd_nl_init(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	nsfd_nl_put_str(&m, IFLA_IFNAME, name);
	if (nsfd >= 0)
		nsfd_nl_put_u32(&m, IFLA_NET_NS_FD, nsfd);
	linkinfo = nsfd_nl_nest(&m, IFLA_LINKINFO);
	nsfd_nl_put_str(&m, IFLA_INFO_KIND, kind);
	if (peer) {
		struct ifinfomsg peer_ifi = { .ifi_family = AF_UNSPEC };

		data = nsfd_nl_nest(&m, IFLA_INFO_DATA);
		peerinfo = nsfd_nl_put(&m, VETH_INFO_PEER, &peer_ifi,
				       sizeof(peer_ifi));
		nsfd_nl_put_str(&m, IFLA_IFNAME, peer);
		if (peer_nsfd >= 0)
			nsfd_nl_put_u32(&m, IFLA_NET_NS_FD, peer_nsfd);
		nsfd_nl_nest_end(&m, peerinfo);
		nsfd_nl_nest_end(&m, data);
	}
	nsfd_nl_nest_end(&m, linkinfo);
	return nsfd_nl_talk(nl, &m.nh, NULL);
}

/*
 * Move link @ifindex into the netns of @nsfd: IFLA_NET_NS_FD in an
 * RTM_SETLINK, or an RTM_NEWLINK on the existing link (@msgtype).
 */
static inline int nsfd_link_set_netns(int nl, int msgtype, int ifindex,
				      int nsfd)
{
	struct nsfd_nlmsg m;

	nsfd_nl_init(&m, msgtype, 0);
	m.ifi.ifi_index = ifindex;
	nsfd_nl_put_u32(&m, IFLA_NET_NS_FD, nsfd);
	return nsfd_nl_talk(nl, &m.nh, NULL);
}

/* The ifindex of @name in the netns of socket @nl (RTM_GETLINK), or -errno. */
static inline int nsfd_link_index(int nl, const char *name)
{
	struct nsfd_nlmsg m;
	int ifindex = 0, err;

	nsfd_nl_init(&m, RTM_GETLINK, 0);
	nsfd_nl_put_str(&m, IFLA_IFNAME, name);
	err = nsfd_nl_talk(nl, &m.nh, &ifindex);
	if (err)
		return err;
	return ifindex ? ifindex : -ENODEV;
}

/*
 * Why links of kind @kind cannot be made here, from what an RTM_NEWLINK
 * of that kind gave (@err: EOPNOTSUPP, no rtnl_link_ops for it), or NULL.
 * @option builds the kind.
 */
static inline const char *nsfd_link_kind_missing(int err, const char *kind,
						 const char *option)
{
	static char why[96];

	if (err != -EOPNOTSUPP)
		return NULL;
	snprintf(why, sizeof(why), "%s is off: RTM_NEWLINK of kind %s: %s",
		 option, kind, nsfd_errname(-err));
	return why;
}

/* An RTM_DELLINK for @ifindex among the @n bytes of messages at @buf. */
static inline bool nsfd_nl_has_dellink(char *buf, ssize_t n, int ifindex)
{
	struct nlmsghdr *r;

	for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, n); r = NLMSG_NEXT(r, n)) {
		struct ifinfomsg *ifi = NLMSG_DATA(r);

		if (r->nlmsg_type == RTM_DELLINK && ifi->ifi_index == ifindex)
			return true;
	}
	return false;
}

/*
 * Wait until an RTM_DELLINK for @ifindex arrives on @mon (a socket
 * subscribed to RTNLGRP_LINK before the deletion could happen). The
 * timeout is a safety net only. 0, or -ETIMEDOUT. On a multicast overrun
 * (ENOBUFS) the link's presence is checked by index instead.
 */
static inline int nsfd_wait_dellink(int mon, int ifindex, int timeout_ms)
{
	struct timespec start, now;
	char buf[16384];

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd p = { .fd = mon, .events = POLLIN };
		char name[IF_NAMESIZE];
		int left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms -
		       (int)((now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, left) <= 0)
			continue;
		n = recv(mon, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS && !if_indextoname(ifindex, name))
				return 0;
			continue;
		}
		if (nsfd_nl_has_dellink(buf, n, ifindex))
			return 0;
	}
}

/* True when an RTM_DELLINK for @ifindex is already queued on @mon. */
static inline bool nsfd_dellink_queued(int mon, int ifindex)
{
	char buf[16384];
	ssize_t n;

	while ((n = recv(mon, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		if (nsfd_nl_has_dellink(buf, n, ifindex))
			return true;
	return false;
}

static inline int nsfd_do_flush_netns_cleanup(void *timeout_ms)
{
	int nl, mon, sentinel, ifindex, err;

	if (unshare(CLONE_NEWNET))
		return 1;
	nl = nsfd_nl_open(0);
	mon = nsfd_nl_open(RTMGRP_LINK);
	sentinel = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
	if (nl < 0 || mon < 0 || sentinel < 0)
		return 2;
	if (nsfd_link_add(nl, "nsfd-flush", "veth", -1, "nsfd-flush1",
			  sentinel))
		return 3;
	ifindex = nsfd_link_index(nl, "nsfd-flush");
	if (ifindex < 0)
		return 4;
	close(sentinel);
	err = nsfd_wait_dellink(mon, ifindex, *(int *)timeout_ms);
	return err ? 5 : 0;
}

/*
 * Release a sentinel netns and wait until its devices are gone. Netns
 * teardown is one work item on an ordered workqueue (cleanup_net(), which
 * takes every netns queued so far as a batch): once the sentinel's
 * RTM_DELLINK is seen, each netns whose last reference went before this
 * call is in that batch or an earlier one, and the work-queued and RCU
 * frees of ipc, pid and user namespaces dropped before it have had a
 * netns teardown's worth of time (and grace periods) to run. So a "still
 * alive" check that follows sees a namespace that a broken pin let go.
 * Done in a child: our netns stays as it is. NULL, or why it could not be
 * done (no netns, no veth, timeout).
 */
static inline const char *nsfd_flush_netns_cleanup(void)
{
	static const char *const why[] = {
		NULL,
		"unshare(CLONE_NEWNET)",
		"rtnetlink socket or sentinel netns",
		"veth pair (CONFIG_VETH?)",
		"veth index",
		"no RTM_DELLINK in 20 s",
	};
	int timeout_ms = 20000, err;

	err = nsfd_in_child(nsfd_do_flush_netns_cleanup, &timeout_ms);
	return err < (int)ARRAY_SIZE(why) ? why[err] : "flush child died";
}

#endif /* NSFD_RTNL_H */
