/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helpers of socketat_test: everything in nsfd_common.h and
 * nsfd_rtnl.h, plus the netns cookie of a socket and of a netns fd, and
 * bringing "lo" up.
 */
#ifndef NSFD_HELPERS_H
#define NSFD_HELPERS_H

#include "nsfd_common.h"
#include "nsfd_rtnl.h"

/*
 * From the tree's uapi <asm/socket.h> (through <sys/socket.h>): its value
 * is the arch's own (71, 0x4045 on parisc, 0x50 on sparc), so no
 * fallback number is written here.
 */
#ifndef SO_NETNS_COOKIE
#error "SO_NETNS_COOKIE is not defined: build against the tree's uapi headers (KHDR_INCLUDES)"
#endif

static inline __u64 nsfd_netns_cookie(int sock)
{
	__u64 cookie = 0;
	socklen_t len = sizeof(cookie);

	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		return 0;
	return cookie;
}

/* The netns cookie of a new socket @s (0 if @s < 0), which is closed. */
static inline __u64 nsfd_cookie_and_close(int s)
{
	__u64 cookie;

	if (s < 0)
		return 0;
	cookie = nsfd_netns_cookie(s);
	close(s);
	return cookie;
}

/*
 * The netns cookie of the caller's current netns, 0 on error. Through a
 * netlink socket: every kernel with sockets has AF_NETLINK, not every one
 * AF_UNIX.
 */
static inline __u64 nsfd_current_netns_cookie(void)
{
	return nsfd_cookie_and_close(socket(AF_NETLINK,
					    SOCK_RAW | SOCK_CLOEXEC,
					    NETLINK_ROUTE));
}

/*
 * Why a test that needs an AF_UNIX socket skips here, or NULL: socket(2)
 * gives EAFNOSUPPORT for AF_UNIX on a kernel without CONFIG_UNIX.
 */
static inline const char *nsfd_why_no_af_unix(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s >= 0) {
		close(s);
		return NULL;
	}
	return errno == EAFNOSUPPORT ?
	       "no AF_UNIX here (CONFIG_UNIX is not set): socket(2) gives EAFNOSUPPORT" :
	       NULL;
}

/* The netns cookie of the netns behind @nsfd, by a setns there and back. */
static inline __u64 nsfd_netns_cookie_of(int nsfd)
{
	int self = nsfd_open_ns(0, "net");
	__u64 cookie = 0;

	if (self < 0)
		return 0;
	if (!setns(nsfd, CLONE_NEWNET)) {
		cookie = nsfd_current_netns_cookie();
		if (setns(self, CLONE_NEWNET))
			cookie = 0;
	}
	close(self);
	return cookie;
}

/* Set IFF_UP on "lo" of the netns that @sock belongs to. */
static inline int nsfd_lo_up(int sock)
{
	struct ifreq ifr = {};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(sock, SIOCGIFFLAGS, &ifr))
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return nsfd_err(ioctl(sock, SIOCSIFFLAGS, &ifr));
}

/* Bring "lo" of the current netns up. */
static inline int nsfd_lo_up_here(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	if (s < 0)
		return -errno;
	err = nsfd_lo_up(s);
	close(s);
	return err;
}

#endif /* NSFD_HELPERS_H */
