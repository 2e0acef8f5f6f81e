/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the nsfd selftests: the namespace table, a child that
 * holds namespaces until it is released, credentials (capset without
 * libcap, an unprivileged uid, user namespace maps) and raw rtnetlink
 * (links, veth pairs, moving a link by IFLA_NET_NS_FD, waiting for
 * RTM_DELLINK).
 *
 * Functions return 0 or a value on success and -errno on failure, so that
 * a test can assert the exact errno of the step that failed.
 */
#ifndef NSFD_HELPERS_H
#define NSFD_HELPERS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

/*
 * Included before kselftest_harness.h: under -Wextra the harness's own
 * wrappers leave parameters unused (TEST(), __timeout_handler) and keep a
 * local across setjmp (TEST_F); neither warning is about the tests.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>
#include <linux/veth.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE	71
#endif

#define NOBODY_UID	65534
#define NOBODY_GID	65534

/* Every entry of /proc/<pid>/ns in 6.12, what readlink names it, its type. */
struct nsfd_ns {
	const char *name;
	const char *real_name;
	int type;
};

static const struct nsfd_ns nsfd_ns_entries[] = {
	{ "cgroup", "cgroup", CLONE_NEWCGROUP },
	{ "ipc", "ipc", CLONE_NEWIPC },
	{ "mnt", "mnt", CLONE_NEWNS },
	{ "net", "net", CLONE_NEWNET },
	{ "pid", "pid", CLONE_NEWPID },
	{ "pid_for_children", "pid", CLONE_NEWPID },
	{ "time", "time", CLONE_NEWTIME },
	{ "time_for_children", "time", CLONE_NEWTIME },
	{ "user", "user", CLONE_NEWUSER },
	{ "uts", "uts", CLONE_NEWUTS },
};

#define NSFD_NR_NS	ARRAY_SIZE(nsfd_ns_entries)

/* The eight CLONE_NEW* flags that setns(2) knows. */
static const struct {
	const char *name;
	int flag;
} nsfd_clone_flags[] = {
	{ "CLONE_NEWCGROUP", CLONE_NEWCGROUP },
	{ "CLONE_NEWIPC", CLONE_NEWIPC },
	{ "CLONE_NEWNS", CLONE_NEWNS },
	{ "CLONE_NEWNET", CLONE_NEWNET },
	{ "CLONE_NEWPID", CLONE_NEWPID },
	{ "CLONE_NEWTIME", CLONE_NEWTIME },
	{ "CLONE_NEWUSER", CLONE_NEWUSER },
	{ "CLONE_NEWUTS", CLONE_NEWUTS },
};

#define NSFD_NR_FLAGS	ARRAY_SIZE(nsfd_clone_flags)

static inline int nsfd_err(int ret)
{
	return ret < 0 ? -errno : ret;
}

/* Close @fd after a failed call on it; that call's -errno. */
static inline int nsfd_close_fail(int fd)
{
	int err = -errno;

	close(fd);
	return err;
}

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

/* Open /proc/<pid>/ns/<name> (pid 0: self). */
static inline int nsfd_open_ns(pid_t pid, const char *name)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return nsfd_err(open(path, O_RDONLY | O_CLOEXEC));
}

/* readlink of /proc/<pid>/ns/<name> into buf, NUL-terminated. */
static inline int nsfd_ns_link(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	n = readlink(path, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The nsfs inode number behind an fd, 0 on error. */
static inline ino_t nsfd_fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* The nsfs inode number of /proc/self/ns/<name>, 0 on error. */
static inline ino_t nsfd_self_ino(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return stat(path, &st) ? 0 : st.st_ino;
}

/*
 * An fd to a new namespace of @type that no task is in: open the current
 * one, unshare, open the new one (@entry), setns back. For net, uts, ipc,
 * mnt, cgroup, and time with @entry "time_for_children".
 */
static inline int nsfd_detached_ns(int type, const char *name, const char *entry)
{
	int orig, fd, err;

	orig = nsfd_open_ns(0, name);
	if (orig < 0)
		return orig;
	if (unshare(type)) {
		err = -errno;
		close(orig);
		return err;
	}
	fd = nsfd_open_ns(0, entry);
	err = setns(orig, type) ? -errno : 0;
	close(orig);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

static inline int nsfd_write_file(const char *path, const char *s)
{
	ssize_t len = strlen(s), n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if (n != len)
		err = -EIO;
	close(fd);
	return err;
}

static inline int nsfd_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Debian's kernel.unprivileged_userns_clone: false only when it reads 0. */
static inline bool nsfd_unpriv_userns_allowed(void)
{
	char buf[16];

	if (nsfd_read_file("/proc/sys/kernel/unprivileged_userns_clone", buf, sizeof(buf)))
		return true;
	return buf[0] != '0';
}

/* Set every capability set: effective = permitted = @keep, inheritable = 0. */
static inline int nsfd_set_caps(__u64 keep)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = (__u32)keep, .permitted = (__u32)keep },
		{ .effective = (__u32)(keep >> 32), .permitted = (__u32)(keep >> 32) },
	};

	return nsfd_err(syscall(SYS_capset, &hdr, data));
}

/* Every capability the process has now, as a mask. */
static inline __u64 nsfd_get_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return data[0].effective | (__u64)data[1].effective << 32;
}

#define NSFD_CAP(c)	(1ULL << (c))

/* Drop @caps from all sets, keep the rest. */
static inline int nsfd_drop_caps(__u64 caps)
{
	return nsfd_set_caps(nsfd_get_caps() & ~caps);
}

/*
 * Become uid/gid 65534 with no supplementary groups (which clears every
 * capability), and stay dumpable so that /proc/self/{uid,gid}_map stay
 * writable by this process.
 */
static inline int nsfd_become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
	    setresuid(NOBODY_UID, NOBODY_UID, NOBODY_UID))
		return -errno;
	return nsfd_err(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

/* In a new user namespace: map root inside to @uid/@gid outside. */
static inline int nsfd_map_root_to(uid_t uid, gid_t gid)
{
	char map[64];
	int err;

	err = nsfd_write_file("/proc/self/setgroups", "deny");
	if (err)
		return err;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	err = nsfd_write_file("/proc/self/uid_map", map);
	if (err)
		return err;
	snprintf(map, sizeof(map), "0 %u 1", gid);
	return nsfd_write_file("/proc/self/gid_map", map);
}

/* unshare(CLONE_NEWUSER | @more) and map root inside to who we were. */
static inline int nsfd_unshare_userns(int more)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | more))
		return -errno;
	return nsfd_map_root_to(uid, gid);
}

/*
 * A private mount namespace in which / is private and /tmp and /run are
 * fresh tmpfs mounts: nothing a test mounts reaches the guest's table.
 */
static inline int nsfd_private_mounts(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"))
		return -errno;
	return nsfd_err(mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"));
}

/* An empty regular file at @path, for a bind mount target. */
static inline int nsfd_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Bind /proc/<pid>/ns/<name> onto the file @target (created first). */
static inline int nsfd_bind_ns(pid_t pid, const char *name, const char *target)
{
	char path[64];
	int err = nsfd_touch(target);

	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, name);
	return nsfd_err(mount(path, target, NULL, MS_BIND, NULL));
}

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

/* The netns cookie of the caller's current netns, 0 on error. */
static inline __u64 nsfd_current_netns_cookie(void)
{
	return nsfd_cookie_and_close(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
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

/*
 * A child that sets up namespaces and then holds them until it is
 * released. nsfd_child_start() forks; the child runs @fn (0 or -errno),
 * reports the result, and on success waits until nsfd_child_finish()
 * closes the release pipe; then it reaps its own children and exits 0.
 * Grandchildren that @fn forks can wait for the same release with
 * nsfd_child_wait_release().
 */
struct nsfd_child {
	pid_t pid;
	int release;
};

static int nsfd_child_release_fd = -1;

static inline void nsfd_child_wait_release(void)
{
	char c;

	while (read(nsfd_child_release_fd, &c, 1) < 0 && errno == EINTR)
		;
}

static inline int nsfd_child_start(struct nsfd_child *c, int (*fn)(void *), void *arg)
{
	int ready[2], release[2], ret = -EPROTO;

	c->pid = 0;
	c->release = -1;
	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	if (pipe2(release, O_CLOEXEC)) {
		ret = -errno;
		close(ready[0]);
		close(ready[1]);
		return ret;
	}
	c->pid = fork();
	if (c->pid < 0) {
		ret = -errno;
		close(ready[0]);
		close(ready[1]);
		close(release[0]);
		close(release[1]);
		return ret;
	}
	if (c->pid == 0) {
		close(ready[0]);
		close(release[1]);
		nsfd_child_release_fd = release[0];
		ret = fn ? fn(arg) : 0;
		if (write(ready[1], &ret, sizeof(ret)) != sizeof(ret) || ret)
			_exit(1);
		nsfd_child_wait_release();
		while (wait(NULL) > 0 || errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	c->release = release[1];
	if (read(ready[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EPROTO;
	close(ready[0]);
	if (ret) {
		close(c->release);
		c->release = -1;
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	return ret;
}

/* Release the child, wait until it is reaped; its wait status. */
static inline int nsfd_child_finish(struct nsfd_child *c)
{
	int status = -1;

	if (c->pid <= 0)
		return -1;
	close(c->release);
	c->release = -1;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	return status;
}

/* Bodies for nsfd_child_start(): unshare(*(int *)flags) ... */
static inline int nsfd_do_unshare(void *flags)
{
	return nsfd_err(unshare(*(int *)flags));
}

/* ... or become nobody first, then unshare, then set the dumpable flag. */
struct nsfd_as_nobody {
	int flags;
	int dumpable;
};

static inline int nsfd_do_unshare_as_nobody(void *arg)
{
	const struct nsfd_as_nobody *how = arg;
	int err = nsfd_become_nobody();

	if (err)
		return err;
	if (unshare(how->flags))
		return -errno;
	return nsfd_err(prctl(PR_SET_DUMPABLE, how->dumpable, 0, 0, 0));
}

/* An fd to a new user namespace that a child created as root or as nobody. */
static inline int nsfd_child_userns(bool nobody)
{
	struct nsfd_as_nobody how = { .flags = CLONE_NEWUSER, .dumpable = 1 };
	int flags = CLONE_NEWUSER, fd;
	struct nsfd_child c;

	fd = nobody ? nsfd_child_start(&c, nsfd_do_unshare_as_nobody, &how) :
		      nsfd_child_start(&c, nsfd_do_unshare, &flags);
	if (fd)
		return fd;
	fd = nsfd_open_ns(c.pid, "user");
	nsfd_child_finish(&c);
	return fd;
}

/* A reaped child's pid and a pidfd for it: setns/socketat give ESRCH. */
static inline int nsfd_pidfd_of_reaped_child(void)
{
	int pidfd, status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	pidfd = sys_pidfd_open(pid, 0);
	if (pidfd < 0)
		pidfd = -errno;
	waitpid(pid, &status, 0);
	return pidfd;
}

/* Raw rtnetlink. */

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

static inline void nsfd_nl_put_str(struct nsfd_nlmsg *m, int type, const char *s)
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
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
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
		for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, n); r = NLMSG_NEXT(r, n)) {
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
static inline int nsfd_link_add(int nl, const char *name, const char *kind, int nsfd,
				const char *peer, int peer_nsfd)
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
		peerinfo = nsfd_nl_put(&m, VETH_INFO_PEER, &peer_ifi, sizeof(peer_ifi));
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
static inline int nsfd_link_set_netns(int nl, int msgtype, int ifindex, int nsfd)
{
	struct nsfd_nlmsg m;

	nsfd_nl_init(&m, msgtype, 0);
	m.ifi.ifi_index = ifindex;
	nsfd_nl_put_u32(&m, IFLA_NET_NS_FD, nsfd);
	return nsfd_nl_talk(nl, &m.nh, NULL);
}

static inline int nsfd_link_del(int nl, int ifindex)
{
	struct nsfd_nlmsg m;

	nsfd_nl_init(&m, RTM_DELLINK, 0);
	m.ifi.ifi_index = ifindex;
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
		struct nlmsghdr *r;
		char name[IF_NAMESIZE];
		int left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - (int)((now.tv_sec - start.tv_sec) * 1000 +
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
		for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, n); r = NLMSG_NEXT(r, n)) {
			struct ifinfomsg *ifi = NLMSG_DATA(r);

			if (r->nlmsg_type == RTM_DELLINK && ifi->ifi_index == ifindex)
				return 0;
		}
	}
}

/* True when an RTM_DELLINK for @ifindex is already queued on @mon. */
static inline bool nsfd_dellink_queued(int mon, int ifindex)
{
	char buf[16384];
	ssize_t n;

	while ((n = recv(mon, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct nlmsghdr *r;

		for (r = (struct nlmsghdr *)buf; NLMSG_OK(r, n); r = NLMSG_NEXT(r, n)) {
			struct ifinfomsg *ifi = NLMSG_DATA(r);

			if (r->nlmsg_type == RTM_DELLINK && ifi->ifi_index == ifindex)
				return true;
		}
	}
	return false;
}

#endif /* NSFD_HELPERS_H */
