// SPDX-License-Identifier: GPL-2.0
/*
 * socketat(2): int socketat(int nsfd, int family, int type, int protocol).
 *
 * nsfd -1 is socket(2); an nsfs fd of a net namespace, or a pidfd (that
 * task's netns), creates the socket in that netns for its whole life.
 * Errors in order: EBADF (not an open fd, O_PATH fds too), EINVAL (neither
 * a netns file nor a pidfd), for a pidfd EPERM when the caller may not
 * ptrace-read the task (PTRACE_MODE_READ_REALCREDS, checked first) and
 * ESRCH when the task is gone (reaped, or a zombie without namespaces),
 * EPERM when the target is not the caller's netns and setns(fd,
 * CLONE_NEWNET) would give EPERM to the same caller: CAP_SYS_ADMIN is
 * needed both over the user namespace that owns the target and over the
 * caller's own (netns_install(); CAP_NET_ADMIN is not enough), then
 * whatever socket(2) gives in the target netns. The permission tests run
 * socketat and setns side by side on the same fd, with the same
 * credentials, and want the same answer from both.
 *
 * The syscall number comes from the tree's own uapi headers (__NR_socketat,
 * from the headers the kselftest build installs; no number is written
 * here). Every test SKIPs when they lack it, or when the kernel answers
 * ENOSYS, and only then: any other answer is socketat's, and is judged.
 * A socketat(-1, AF_UNIX, SOCK_DGRAM, 0) that gives anything but a new
 * AF_UNIX datagram socket fails every test (AF_NETLINK where socket(2)
 * has no AF_UNIX: CONFIG_UNIX=n; the tests that need AF_UNIX itself SKIP
 * there, naming the option).
 *
 * No flag, size or number that differs between arches is written here as
 * a literal: type flags come from this arch's SOCK_* (SOCK_NONBLOCK is
 * 0x40000000 on alpha and parisc, 0x80 on mips, 0x4000 on sparc), and the
 * unknown type bits are derived from them, checked at build time.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include "nsfd_helpers.h"
#include "../kselftest_harness.h"

#define SOCKETAT_NO_NR		"socketat not in this tree's uapi headers (no __NR_socketat)"
#define SOCKETAT_MISSING	"socketat not implemented (ENOSYS)"

#define SAT_OTHER_UID	65533	/* an unprivileged uid that is not 65534 */

/*
 * The family of the sockets a test makes where any family does: AF_UNIX,
 * or AF_NETLINK (datagram, NETLINK_ROUTE) where socket(2) here gives
 * EAFNOSUPPORT for AF_UNIX (CONFIG_UNIX=n). Both take SOCK_DGRAM and
 * protocol 0.
 */
static int sat_family(void)
{
	static int family;
	int s;

	if (family)
		return family;
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0)
		close(s);
	family = s < 0 && errno == EAFNOSUPPORT ? AF_NETLINK : AF_UNIX;
	return family;
}

static const char *sat_family_name(int family)
{
	return family == AF_UNIX ? "AF_UNIX" : "AF_NETLINK";
}

#ifdef __NR_socketat
/* Four arguments; the two argument registers socketat does not use are 0. */
static int sys_socketat(int nsfd, int family, int type, int protocol)
{
	return syscall(__NR_socketat, nsfd, family, type, protocol, 0L, 0L);
}
#else
static int sys_socketat(int nsfd, int family, int type, int protocol)
{
	(void)nsfd;
	(void)family;
	(void)type;
	(void)protocol;
	errno = ENOSYS;
	return -1;
}
#endif

static int sockopt(int s, int opt)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(s, SOL_SOCKET, opt, &v, &len))
		return -errno;
	return v;
}

#ifdef __NR_socketat
/* The lowest fd number that is not open: where a new fd must land. */
static int sat_lowest_free_fd(void)
{
	int fd = 0;

	while (fcntl(fd, F_GETFD) != -1)
		fd++;
	return fd;
}

/* @fd is a socket of @family and @type. */
static bool sat_is_socket(int fd, int family, int type)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISSOCK(st.st_mode) &&
	       sockopt(fd, SO_DOMAIN) == family &&
	       sockopt(fd, SO_TYPE) == type;
}
#endif

/*
 * What socketat(-1, sat_family(), SOCK_DGRAM, 0) did, asked once by every
 * socketat fixture's setup. @skip: why every socketat test skips (no
 * __NR_socketat in the uapi headers, or ENOSYS), else NULL. @ok: it gave
 * a new fd, the lowest free one, that is a datagram socket of that
 * family, as socket(2) would; otherwise @what says what it gave instead.
 */
struct sat_probe {
	const char *skip;
	bool ok;
	char what[128];
};

static struct sat_probe sat_probe(void)
{
	struct sat_probe p = { .skip = NULL, .ok = false };
#ifndef __NR_socketat
	p.skip = SOCKETAT_NO_NR;
#else
	int expect = sat_lowest_free_fd(), family = sat_family(), err;
	long ret;

	errno = 0;
	ret = syscall(__NR_socketat, -1, family, SOCK_DGRAM, 0, 0L, 0L);
	err = errno;
	if (ret < 0 && err == ENOSYS) {
		p.skip = SOCKETAT_MISSING;
	} else if (ret < 0) {
		snprintf(p.what, sizeof(p.what), "-1, errno %d (%s)", err,
			 strerror(err));
	} else if (ret != expect ||
		   !sat_is_socket((int)ret, family, SOCK_DGRAM)) {
		snprintf(p.what, sizeof(p.what),
			 "%ld, not a new %s datagram socket in fd %d",
			 ret, sat_family_name(family), expect);
		if (ret == expect)
			close((int)ret);
	} else {
		close((int)ret);
		p.ok = true;
	}
#endif
	return p;
}

/*
 * The first step of every socketat fixture's setup: why every socketat
 * test skips (socketat is not there), or NULL; FAIL when its -1 form is
 * not socket(2).
 */
static const char *sat_unavailable(struct __test_metadata *_metadata)
{
	struct sat_probe p = sat_probe();

	if (p.skip)
		return p.skip;
	ASSERT_TRUE(p.ok) {
		TH_LOG("socketat(-1, %s, SOCK_DGRAM, 0) gave %s",
		       sat_family_name(sat_family()), p.what);
	}
	return NULL;
}

/*
 * What socket(2) reads from its type argument: the type, under the
 * kernel's SOCK_TYPE_MASK (include/linux/net.h, 0xf on every arch, not
 * in the uapi), and this arch's SOCK_CLOEXEC and SOCK_NONBLOCK (O_CLOEXEC
 * and O_NONBLOCK, or values of their own: alpha, parisc, mips, sparc).
 * Any other bit is EINVAL. The unknown bits the tests use are derived
 * from these, not written down: the lowest one, one beside SOCK_NONBLOCK
 * and one beside SOCK_CLOEXEC (the next above, else the next below), and
 * the highest below the sign bit.
 */
#define SAT_SOCK_TYPE_MASK	0xf
#define SAT_KNOWN_TYPE_BITS	\
	((unsigned int)(SAT_SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK))
#define SAT_UNKNOWN_BITS	(~SAT_KNOWN_TYPE_BITS & 0x7fffffffu)
/* The lowest and the highest set bit of @x (not 0). */
#define SAT_LOWEST_BIT(x)	((x) & -(x))
#define SAT_HIGHEST_BIT(x)	(1u << (31 - __builtin_clz(x)))
/* The lowest unknown bit above @bit, 0 if none. */
#define SAT_UNKNOWN_ABOVE(bit)	\
	SAT_LOWEST_BIT(SAT_UNKNOWN_BITS & ~((unsigned int)(bit) * 2 - 1))
/* An unknown bit beside @bit: the next above, else the next below. */
#define SAT_UNKNOWN_BESIDE(bit)						\
	(SAT_UNKNOWN_ABOVE(bit) ? SAT_UNKNOWN_ABOVE(bit) :		\
	 SAT_HIGHEST_BIT(SAT_UNKNOWN_BITS & ((unsigned int)(bit) - 1)))
#define SAT_UNKNOWN_LOW		SAT_LOWEST_BIT(SAT_UNKNOWN_BITS)
#define SAT_UNKNOWN_HIGH	SAT_HIGHEST_BIT(SAT_UNKNOWN_BITS)

static const int unknown_type_bits[] = {
	SAT_UNKNOWN_LOW,
	SAT_UNKNOWN_BESIDE(SOCK_NONBLOCK),
	SAT_UNKNOWN_BESIDE(SOCK_CLOEXEC),
	SAT_UNKNOWN_HIGH,
};

/* A chosen bit that socket(2) knows on this arch fails the build. */
#define SAT_ASSERT_UNKNOWN(bit)						\
	_Static_assert((bit) && !((bit) & ((bit) - 1)) &&		\
		       !((bit) & SAT_KNOWN_TYPE_BITS) &&		\
		       (bit) <= 0x40000000u,				\
		       #bit " is not one unknown type bit on this arch")
SAT_ASSERT_UNKNOWN(SAT_UNKNOWN_LOW);
SAT_ASSERT_UNKNOWN(SAT_UNKNOWN_BESIDE(SOCK_NONBLOCK));
SAT_ASSERT_UNKNOWN(SAT_UNKNOWN_BESIDE(SOCK_CLOEXEC));
SAT_ASSERT_UNKNOWN(SAT_UNKNOWN_HIGH);

static bool unknown_type_bit(int bit)
{
	return bit && !((unsigned int)bit & SAT_KNOWN_TYPE_BITS);
}

/* htons() of a constant, in a static initializer: on every byte order. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SAT_HTONS(x)	((unsigned short)((((x) & 0xff) << 8) | ((x) >> 8 & 0xff)))
#else
#define SAT_HTONS(x)	((unsigned short)(x))
#endif

/*
 * "here": the test's private netns, lo up; "a": a second netns that only
 * an fd holds (owned by the initial user namespace). Cookies tell which
 * netns a socket is in. Without root there is no "a", and "here" is the
 * caller's own netns: the tests that need no privilege run there, every
 * other one skips.
 */
FIXTURE(sat) {
	int here;
	int a;
	__u64 here_cookie;
	__u64 a_cookie;
};

FIXTURE_SETUP(sat)
{
	self->here = -1;
	self->a = -1;
	self->a_cookie = 0;
	NSFD_SKIP_IF(return, sat_unavailable(_metadata));
	/* Without it: sat_no_net_ns.* below check what socketat promises. */
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWNET));
	if (!nsfd_is_root()) {
		self->here = nsfd_open_ns(0, "net");
		/* Only when the probe could not tell (no user namespace). */
		if (self->here == -ENOENT)
			SKIP(return, "/proc/self/ns/net: ENOENT (%s)",
			     nsfd_type(CLONE_NEWNET)->why);
		ASSERT_GE(self->here, 0);
		self->here_cookie = nsfd_current_netns_cookie();
		ASSERT_NE(self->here_cookie, 0ULL);
		return;
	}
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
	if (self->a >= 0)
		close(self->a);
	if (self->here >= 0)
		close(self->here);
}

/*
 * CONFIG_NET_NS=n: there is one network namespace, and no file names it.
 * socketat(-1, ...) is still socket(2); every open fd, the net entry of
 * /proc/self/ns and a pidfd included, is EINVAL (as setns(fd, CLONE_NEWNET)
 * is there); an fd that is not open is still EBADF.
 */
FIXTURE(sat_no_net_ns) {
	int fd;
};

FIXTURE_SETUP(sat_no_net_ns)
{
	self->fd = -1;
	NSFD_SKIP_IF(return, sat_unavailable(_metadata));
	if (nsfd_ns_have(CLONE_NEWNET) == NSFD_YES)
		SKIP(return,
		     "CONFIG_NET_NS is on: the sat tests cover this kernel");
	if (nsfd_ns_have(CLONE_NEWNET) == NSFD_UNKNOWN)
		SKIP(return, "%s", nsfd_type(CLONE_NEWNET)->why);
}

FIXTURE_TEARDOWN(sat_no_net_ns)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(sat_no_net_ns, minus_one_is_socket)
{
	struct stat st;

	NSFD_SKIP_IF(return, nsfd_why_no_af_unix());
	self->fd = sys_socketat(-1, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(fstat(self->fd, &st), 0);
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
	EXPECT_EQ(sockopt(self->fd, SO_DOMAIN), AF_UNIX);
	EXPECT_EQ(fcntl(self->fd, F_GETFD), FD_CLOEXEC);
}

TEST_F(sat_no_net_ns, every_open_fd_is_einval)
{
	const char *const paths[] = {
		"/proc/self/ns/net", "/proc/self/ns/uts", "/proc/self"
	};
	unsigned int i;
	int fd, pidfd;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			TH_LOG("%s: %s (not there in this config)", paths[i],
			       strerror(errno));
			continue;
		}
		errno = 0;
		EXPECT_EQ(sys_socketat(fd, AF_UNIX, SOCK_DGRAM, 0), -1);
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("%s: %s", paths[i], strerror(errno));
		}
		close(fd);
	}
	pidfd = sys_pidfd_open(getpid(), 0);
	ASSERT_GE(pidfd, 0);
	errno = 0;
	EXPECT_EQ(sys_socketat(pidfd, AF_UNIX, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	close(pidfd);
}

TEST_F(sat_no_net_ns, fd_that_is_not_open_is_ebadf)
{
	int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	errno = 0;
	EXPECT_EQ(sys_socketat(fd, AF_UNIX, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EBADF);
}

/* The cookie of a socketat() socket, 0 if it could not be created. */
static __u64 cookie_of_new(int nsfd, int family, int type)
{
	return nsfd_cookie_and_close(sys_socketat(nsfd, family,
						  type | SOCK_CLOEXEC, 0));
}

/*
 * socketat(@nsfd, @family, @type | SOCK_CLOEXEC, 0): 0 if it made a
 * socket (closed again; its netns cookie in *@cookie), else the errno.
 */
static int sat_try(int nsfd, int family, int type, __u64 *cookie)
{
	int s = sys_socketat(nsfd, family, type | SOCK_CLOEXEC, 0);

	if (s < 0)
		return errno;
	if (cookie)
		*cookie = nsfd_netns_cookie(s);
	close(s);
	return 0;
}

/*
 * Who a holder child becomes and which namespaces it makes on the way:
 * setns(*@join_net, CLONE_NEWNET) and unshare(@unshare_as_root) as root,
 * then uid/gid @uid (no capabilities, no groups) unless it is 0, then
 * unshare(@unshare_as_uid) as that uid (CLONE_NEWUSER | CLONE_NEWNET: a
 * netns whose user namespace @uid owns), then the dumpable flag.
 */
struct sat_who {
	const int *join_net;
	int unshare_as_root;
	uid_t uid;
	int unshare_as_uid;
	int dumpable;
};

static int sat_do_become(void *arg)
{
	const struct sat_who *w = arg;
	int err;

	if (w->join_net && setns(*w->join_net, CLONE_NEWNET))
		return -errno;
	if (w->unshare_as_root && unshare(w->unshare_as_root))
		return -errno;
	if (w->uid) {
		err = nsfd_become(w->uid, w->uid);
		if (err)
			return err;
	}
	if (w->unshare_as_uid && unshare(w->unshare_as_uid))
		return -errno;
	return nsfd_err(prctl(PR_SET_DUMPABLE, w->dumpable, 0, 0, 0));
}

/* A holder child (sat_who), a pidfd and a netns fd of it, its netns cookie. */
struct sat_holder {
	struct nsfd_child c;
	int pidfd;
	int netns;
	__u64 cookie;
};

/*
 * Start a holder; run as root (the cookie is read by a setns dance). 0 or
 * -errno.
 */
static int sat_hold(struct sat_holder *h, const struct sat_who *w)
{
	int err;

	h->pidfd = -1;
	h->netns = -1;
	h->cookie = 0;
	err = nsfd_child_start(&h->c, sat_do_become, (void *)w);
	if (err)
		return err;
	h->pidfd = sys_pidfd_open(h->c.pid, 0);
	if (h->pidfd < 0)
		return -errno;
	h->netns = nsfd_open_ns(h->c.pid, "net");
	if (h->netns < 0)
		return h->netns;
	h->cookie = nsfd_netns_cookie_of(h->netns);
	return h->cookie ? 0 : -EPROTO;
}

static void sat_unhold(struct sat_holder *h)
{
	if (h->pidfd >= 0)
		close(h->pidfd);
	if (h->netns >= 0)
		close(h->netns);
	h->pidfd = -1;
	h->netns = -1;
	if (h->c.pid > 0)
		nsfd_child_finish(&h->c);
}

/*
 * A child that has exited but is not reaped (a zombie: no nsproxy any
 * more), made after becoming @w (NULL: as we are); a pidfd of it, opened
 * while it still ran. *@pid is for reaping it with waitpid().
 */
static int sat_zombie(const struct sat_who *w, pid_t *pid)
{
	siginfo_t si = {};
	int go[2], pidfd;
	char c;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		pidfd = -errno;
		close(go[0]);
		close(go[1]);
		return pidfd;
	}
	if (*pid == 0) {
		close(go[1]);
		if (w && sat_do_become((void *)w))
			_exit(1);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(go[0]);
	pidfd = sys_pidfd_open(*pid, 0);
	if (pidfd < 0)
		pidfd = -errno;
	close(go[1]);
	/* Wait for the exit, leaving it unreaped. */
	while (waitid(P_PID, *pid, &si, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR) {
			if (pidfd >= 0)
				close(pidfd);
			return -errno;
		}
	}
	return pidfd;
}

/*
 * Become @uid keeping exactly @caps (effective and permitted), as a
 * process that was given only those capabilities would be.
 */
static int sat_become_with_caps(uid_t uid, __u64 caps)
{
	int err;

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	err = nsfd_become(uid, uid);
	if (err)
		return err;
	err = nsfd_set_caps(caps);
	if (err)
		return err;
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		return -errno;
	return nsfd_err(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

/* An answer that is not an errno: a netns other than the one named. */
#define SAT_WRONG_NETNS	(-1)
/* No answer: the child that was to give it could not be run. */
#define SAT_NO_ANSWER	(-2)

/*
 * socketat(@fd, sat_family(), SOCK_DGRAM, 0) and then setns(@fd,
 * CLONE_NEWNET),
 * side by side in one child of the caller (setns moves it), so both run
 * with the same credentials on the same fd. @res[0] for socketat, @res[1]
 * for setns: 0 when it reached the netns whose cookie is @cookie,
 * SAT_WRONG_NETNS when it reached another, else its errno.
 */
static void sat_side_by_side(int fd, __u64 cookie, int res[2])
{
	int pipefd[2], status;
	pid_t pid;

	res[0] = SAT_NO_ANSWER;
	res[1] = SAT_NO_ANSWER;
	if (pipe2(pipefd, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		int r[2];
		__u64 got = 0;

		close(pipefd[0]);
		r[0] = sat_try(fd, sat_family(), SOCK_DGRAM, &got);
		if (!r[0] && got != cookie)
			r[0] = SAT_WRONG_NETNS;
		r[1] = setns(fd, CLONE_NEWNET) ? errno : 0;
		if (!r[1] && nsfd_current_netns_cookie() != cookie)
			r[1] = SAT_WRONG_NETNS;
		_exit(write(pipefd[1], r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(pipefd[1]);
	if (pid > 0) {
		if (read(pipefd[0], res, 2 * sizeof(int)) !=
		    (ssize_t)(2 * sizeof(int))) {
			res[0] = SAT_NO_ANSWER;
			res[1] = SAT_NO_ANSWER;
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(pipefd[0]);
}

static const char *sat_answer(int r)
{
	return r == SAT_WRONG_NETNS ? "wrong netns" :
	       r == SAT_NO_ANSWER ? "no answer" : nsfd_errname(r);
}

/* Assert that socketat and setns on @fd both give @want (0 or an errno). */
#define SAT_EXPECT_BOTH(fd, cookie, want) do {				\
	int __r[2], __want = (want);					\
									\
	sat_side_by_side((fd), (cookie), __r);				\
	EXPECT_EQ(__r[0], __want) {					\
		TH_LOG("socketat(%s): %s, want %s", #fd,		\
		       sat_answer(__r[0]), sat_answer(__want));		\
	}								\
	EXPECT_EQ(__r[1], __want) {					\
		TH_LOG("setns(%s, CLONE_NEWNET): %s, want %s", #fd,	\
		       sat_answer(__r[1]), sat_answer(__want));		\
	}								\
} while (0)

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

/* Triples for socketat(-1, ...); what socket(2) gives for some. */
static const struct sat_triple {
	int family, type, protocol;
} minus_one_triples[] = {
	{ AF_INET, SOCK_STREAM, 0 },
	{ AF_INET, SOCK_DGRAM, IPPROTO_UDP },
	{ AF_INET, SOCK_RAW, IPPROTO_ICMP },
	{ AF_INET, SOCK_DGRAM, IPPROTO_ICMP },	/* EACCES: ping_group_range */
	{ AF_INET, SOCK_STREAM, IPPROTO_UDP },	/* EPROTONOSUPPORT */
	{ AF_INET, SOCK_SEQPACKET, 0 },		/* ESOCKTNOSUPPORT */
	{ AF_INET, SOCK_STREAM, -1 },		/* EINVAL */
	{ AF_INET, SOCK_STREAM, IPPROTO_MAX },	/* EINVAL */
	{ AF_INET, -1, 0 },			/* EINVAL */
	{ AF_INET, SOCK_PACKET + 1, 0 },	/* EINVAL: >= SOCK_MAX */
	{ AF_INET, SOCK_STREAM | SAT_UNKNOWN_LOW, 0 },	/* EINVAL: unknown flag */
	{ AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0 },
	{ AF_INET6, SOCK_STREAM, 0 },
	{ AF_INET6, SOCK_DGRAM, IPPROTO_TCP },	/* EPROTONOSUPPORT */
	{ AF_UNIX, SOCK_STREAM, 0 },
	{ AF_UNIX, SOCK_DGRAM, 0 },
	{ AF_UNIX, SOCK_SEQPACKET, 0 },
	{ AF_UNIX, SOCK_RAW, 0 },		/* becomes SOCK_DGRAM */
	{ AF_UNIX, SOCK_STREAM, PF_UNIX },
	{ AF_UNIX, SOCK_STREAM, 2 },		/* EPROTONOSUPPORT */
	{ AF_UNIX, SOCK_RDM, 0 },		/* ESOCKTNOSUPPORT */
	{ AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
	{ AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE },
	{ AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE },	/* ESOCKTNOSUPPORT */
	{ AF_NETLINK, SOCK_RAW, MAX_LINKS },	/* EPROTONOSUPPORT */
	{ AF_UNSPEC, SOCK_STREAM, 0 },		/* EAFNOSUPPORT */
	{ -1, SOCK_STREAM, 0 },			/* EAFNOSUPPORT */
	{ AF_MAX, SOCK_STREAM, 0 },		/* EAFNOSUPPORT */
	{ AF_PACKET, SOCK_RAW, 0 },
};

/* socketat(-1, ...) answers as socket(2) does, triple by triple. */
TEST_F(sat, minus_one_matches_socket_over_triples)
{
	const struct sat_triple *t = minus_one_triples;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(minus_one_triples); i++) {
		int s1 = socket(t[i].family, t[i].type, t[i].protocol),
		    e1 = errno;
		int s2 = sys_socketat(-1, t[i].family, t[i].type,
				      t[i].protocol),
		    e2 = errno;

		EXPECT_EQ(s1 >= 0, s2 >= 0) {
			TH_LOG("%d/%#x/%d: socket %d (%s), socketat %d (%s)",
			       t[i].family, t[i].type, t[i].protocol, s1,
			       strerror(e1), s2, strerror(e2));
		}
		if (s1 < 0 && s2 < 0) {
			EXPECT_EQ(e1, e2) {
				TH_LOG("(%d, 0x%x, %d): socket %s, socketat %s",
				       t[i].family, t[i].type, t[i].protocol,
				       strerror(e1), strerror(e2));
			}
		}
		if (s1 >= 0 && s2 >= 0) {
			EXPECT_EQ(sockopt(s1, SO_DOMAIN),
				  sockopt(s2, SO_DOMAIN));
			EXPECT_EQ(sockopt(s1, SO_TYPE), sockopt(s2, SO_TYPE));
			EXPECT_EQ(sockopt(s1, SO_PROTOCOL),
				  sockopt(s2, SO_PROTOCOL));
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

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		__u64 cookie;
		int s = socket(t[i].family, t[i].type | SOCK_CLOEXEC, 0);

		/* A family this kernel lacks (CONFIG_UNIX=n, ...): not asked. */
		if (s < 0 && errno == EAFNOSUPPORT) {
			TH_LOG("family %d: socket(2) gives EAFNOSUPPORT here",
			       t[i].family);
			continue;
		}
		if (s >= 0)
			close(s);
		cookie = cookie_of_new(self->a, t[i].family, t[i].type);

		EXPECT_EQ(cookie, self->a_cookie) {
			TH_LOG("%d/%d: cookie %llu, target %llu, caller %llu",
			       t[i].family, t[i].type,
			       (unsigned long long)cookie,
			       (unsigned long long)self->a_cookie,
			       (unsigned long long)self->here_cookie);
		}
	}
	EXPECT_EQ(nsfd_current_netns_cookie(), self->here_cookie);
}

/* An rtnetlink socket made in "a" sees a's links, not ours. */
TEST_F(sat, netlink_socket_talks_to_the_target_netns)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int nl, here;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	nl = sys_socketat(self->a, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			  NETLINK_ROUTE);
	here = nsfd_nl_open(0);
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

	NSFD_SKIP_IF(return, nsfd_why_not_root());
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
 * What socketat is for: one thread, 127.0.0.1:P bound in two netns at
 * once, a client in each, each served and told which netns served it.
 */
TEST_F(sat, one_thread_serves_same_address_in_two_netns)
{
	unsigned short port = 0, port_b;
	const char *tag[2] = { "A", "B" };
	int b, ns[2], l[2], c[2], i;
	__u64 cookie[2];

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	b = nsfd_detached_ns(CLONE_NEWNET, "net", "net");
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
		TH_LOG("bind 127.0.0.1:%u in the second netns: %s", port,
		       strerror(-l[1]));
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
	int s1, s2;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	s1 = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	s2 = sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(s1, 0);
	ASSERT_GE(s2, 0);
	EXPECT_EQ(fcntl(s1, F_GETFD), FD_CLOEXEC);
	EXPECT_EQ(fcntl(s2, F_GETFD), 0);
	close(s1);
	close(s2);
}

TEST_F(sat, sock_nonblock_is_honoured)
{
	int s1, s2;
	char c;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	s1 = sys_socketat(self->a, AF_INET,
			  SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s2 = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
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

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	for (i = 0; i < ARRAY_SIZE(unknown_type_bits); i++) {
		EXPECT_EQ(sys_socketat(self->a, AF_INET,
				       SOCK_DGRAM | unknown_type_bits[i], 0),
			  -1);
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("type bit 0x%x", unknown_type_bits[i]);
		}
		EXPECT_EQ(sys_socketat(-1, AF_INET,
				       SOCK_DGRAM | unknown_type_bits[i], 0),
			  -1);
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

/*
 * O_PATH fds are not open for socketat, as for setns: EBADF, whatever they
 * name.
 */
TEST_F(sat, o_path_fds_are_ebadf)
{
	static const char *const paths[] = {
		"/proc/self/ns/net", "/proc/self/ns/uts", "/proc/self/status",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		int fd = open(paths[i], O_PATH | O_CLOEXEC);

		ASSERT_GE(fd, 0);
		EXPECT_EQ(sys_socketat(fd, AF_INET, SOCK_DGRAM, 0), -1);
		EXPECT_EQ(errno, EBADF) {
			TH_LOG("O_PATH %s: %s", paths[i], strerror(errno));
		}
		close(fd);
	}
}

static void assert_socketat_einval(struct __test_metadata *_metadata, int fd,
				   const char *what)
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
	assert_socketat_einval(_metadata,
			       open("/proc/self/status", O_RDONLY | O_CLOEXEC),
			       "regular file");
	assert_socketat_einval(_metadata,
			       socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0),
			       "socket");
	assert_socketat_einval(_metadata, eventfd(0, EFD_CLOEXEC), "eventfd");
	assert_socketat_einval(_metadata,
			       open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			       "directory");
	/* A /proc/<pid> directory is not a pidfd. */
	assert_socketat_einval(_metadata,
			       open("/proc/self",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			       "/proc/self directory");
}

TEST_F(sat, every_other_namespace_type_is_einval)
{
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++) {
		const struct nsfd_ns *e = &nsfd_ns_entries[i];
		int fd;

		if (e->type == CLONE_NEWNET)
			continue;
		/* Entries of types configured out are not there at all. */
		fd = nsfd_open_ns(0, e->name);
		if (fd == -ENOENT && nsfd_ns_have(e->type) != NSFD_YES)
			continue;
		assert_socketat_einval(_metadata, fd, e->name);
	}
}

TEST_F(sat, pidfd_reaches_the_tasks_netns_until_reaped)
{
	int flags = CLONE_NEWNET, nsfd, pidfd;
	struct nsfd_child c;
	__u64 cookie;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
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

/* A dead pidfd is ESRCH for anyone: there is no task left to check. */
TEST_F(sat, pidfd_of_reaped_child_as_unprivileged_user_is_esrch)
{
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	pidfd = nsfd_pidfd_of_reaped_child();
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sat_try(pidfd, AF_INET, SOCK_DGRAM, NULL), ESRCH);
	EXPECT_EQ(sat_try(pidfd, AF_UNIX, SOCK_STREAM, NULL), ESRCH);
	close(pidfd);
}

/*
 * A zombie has dropped its namespaces (exit_task_namespaces()) but is
 * still there to be ptrace-checked: ESRCH, for root on a root zombie and
 * for uid 65534 on a zombie of its own.
 */
TEST_F(sat, pidfd_of_zombie_is_esrch)
{
	const struct sat_who nobody = { .uid = NOBODY_UID, .dumpable = 1 };
	pid_t root_pid, nobody_pid;
	int root_z, nobody_z;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	root_z = sat_zombie(NULL, &root_pid);
	ASSERT_GE(root_z, 0);
	nobody_z = sat_zombie(&nobody, &nobody_pid);
	ASSERT_GE(nobody_z, 0);
	EXPECT_EQ(sat_try(root_z, AF_INET, SOCK_DGRAM, NULL), ESRCH);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sat_try(nobody_z, AF_INET, SOCK_DGRAM, NULL), ESRCH);
	/* Still zombies: the answers were about unreaped tasks. */
	EXPECT_EQ(waitpid(root_pid, NULL, 0), root_pid);
	EXPECT_EQ(waitpid(nobody_pid, NULL, 0), nobody_pid);
	close(root_z);
	close(nobody_z);
}

/*
 * The ptrace check comes before the task's namespaces are read: a caller
 * that may not ptrace a zombie learns EPERM, not that it has exited.
 */
TEST_F(sat, pidfd_of_zombie_that_may_not_be_ptraced_is_eperm)
{
	pid_t pid;
	int z;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	z = sat_zombie(NULL, &pid);
	ASSERT_GE(z, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sat_try(z, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(waitpid(pid, NULL, 0), pid);
	close(z);
}

/*
 * A root task in a netns of the initial user namespace, and a root caller
 * that may ptrace it but lacks CAP_SYS_ADMIN (CAP_NET_ADMIN and
 * CAP_SYS_PTRACE kept): EPERM, by pidfd as by netns fd.
 */
TEST_F(sat, pidfd_of_task_in_other_netns_without_cap_sys_admin_is_eperm)
{
	const struct sat_who who = {
		.unshare_as_root = CLONE_NEWNET, .dumpable = 1
	};
	struct sat_holder h;
	__u64 cookie = 0;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_hold(&h, &who), 0);
	ASSERT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, h.cookie);
	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_NE(nsfd_get_caps() & NSFD_CAP(CAP_NET_ADMIN), 0ULL);
	ASSERT_NE(nsfd_get_caps() & NSFD_CAP(CAP_SYS_PTRACE), 0ULL);
	EXPECT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(h.netns, AF_INET, SOCK_DGRAM, NULL), EPERM);
	sat_unhold(&h);
}

/*
 * uid 65534 and a uid 65534 task in a netns that root made: the ptrace
 * check passes (same uid, dumpable; the /proc ns file opens), the
 * capability rule does not. The open walks from /proc as the program
 * found it at start (nsfd_proc_dir), so that a root directory uid 65534
 * may not search cannot answer EACCES for procfs.
 */
TEST_F(sat, pidfd_of_same_uid_task_in_root_owned_netns_is_eperm)
{
	const struct sat_who who = {
		.unshare_as_root = CLONE_NEWNET, .uid = NOBODY_UID,
		.dumpable = 1,
	};
	struct sat_holder h;
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_hold(&h, &who), 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	fd = nsfd_open_ns(h.c.pid, "net");
	ASSERT_GE(fd, 0) {
		TH_LOG("open /proc/%d/ns/net as uid 65534: %s", h.c.pid,
		       strerror(-fd));
	}
	EXPECT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(fd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	close(fd);
	sat_unhold(&h);
}

/*
 * In the caller's own netns no capability is needed, so a pidfd's EPERM
 * there is the ptrace check alone: uid 65534 and a root task.
 */
TEST_F(sat, pidfd_of_other_uid_task_in_own_netns_is_eperm)
{
	const struct sat_who root = { .dumpable = 1 };
	const struct sat_who nobody = { .uid = NOBODY_UID, .dumpable = 1 };
	struct sat_holder r, n;
	__u64 cookie = 0;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_hold(&r, &root), 0);
	ASSERT_EQ(sat_hold(&n, &nobody), 0);
	ASSERT_EQ(r.cookie, self->here_cookie);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sat_try(r.pidfd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	/* The same netns through a task that may be ptraced: a socket. */
	EXPECT_EQ(sat_try(n.pidfd, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, self->here_cookie);
	sat_unhold(&n);
	sat_unhold(&r);
}

/* ... and a task of the caller's own uid that is not dumpable. */
TEST_F(sat, pidfd_of_non_dumpable_task_in_own_netns_is_eperm)
{
	const struct sat_who undumpable = { .uid = NOBODY_UID, .dumpable = 0 };
	struct sat_holder h;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_hold(&h, &undumpable), 0);
	ASSERT_EQ(h.cookie, self->here_cookie);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(h.pidfd, AF_UNIX, SOCK_STREAM, NULL), EPERM);
	sat_unhold(&h);
}

/*
 * PIDFD_GET_NET_NAMESPACE gives an nsfs fd of the task's netns: the
 * socket lands there, and keeps doing so after the task is gone (the fd
 * pins the netns; the pidfd itself then gives ESRCH).
 */
TEST_F(sat, pidfd_get_net_namespace_fd_is_a_netns_fd)
{
	const struct sat_who who = {
		.unshare_as_root = CLONE_NEWNET, .dumpable = 1
	};
	struct sat_holder h;
	__u64 cookie = 0;
	int nsfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_hold(&h, &who), 0);
	nsfd = ioctl(h.pidfd, PIDFD_GET_NET_NAMESPACE, 0);
	if (nsfd < 0 && errno == ENOTTY) {
		sat_unhold(&h);
		SKIP(return,
		     "PIDFD_GET_NET_NAMESPACE: ENOTTY (kernel before 6.11)");
	}
	ASSERT_GE(nsfd, 0) {
		TH_LOG("PIDFD_GET_NET_NAMESPACE: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(nsfd), nsfd_fd_ino(h.netns));
	EXPECT_EQ(sat_try(nsfd, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, h.cookie);
	EXPECT_NE(cookie, self->here_cookie);
	ASSERT_EQ(nsfd_child_finish(&h.c), 0);
	EXPECT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, NULL), ESRCH);
	cookie = 0;
	EXPECT_EQ(sat_try(nsfd, sat_family(), SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, h.cookie);
	close(nsfd);
	sat_unhold(&h);
}

/* SIOCGSKNS on a socket gives an nsfs fd of the socket's netns. */
TEST_F(sat, siocgskns_fd_is_a_netns_fd)
{
	__u64 cookie = 0;
	int s, nsfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	s = sys_socketat(self->a, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(s, 0);
	nsfd = ioctl(s, SIOCGSKNS);
	ASSERT_GE(nsfd, 0) {
		TH_LOG("SIOCGSKNS: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(nsfd), nsfd_fd_ino(self->a));
	close(s);
	EXPECT_EQ(sat_try(nsfd, sat_family(), SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, self->a_cookie);
	close(nsfd);

	/* From a socket of our own netns: that netns, no capability needed. */
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(s, 0);
	nsfd = ioctl(s, SIOCGSKNS);
	ASSERT_GE(nsfd, 0);
	close(s);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	cookie = 0;
	EXPECT_EQ(sat_try(nsfd, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, self->here_cookie);
	close(nsfd);
}

/* The caller's own netns, by fd or pidfd, needs no capability at all. */
TEST_F(sat, own_netns_needs_no_capability)
{
	int pidfd = sys_pidfd_open(getpid(), 0);

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	EXPECT_EQ(cookie_of_new(self->here, AF_INET, SOCK_DGRAM),
		  self->here_cookie);
	EXPECT_EQ(cookie_of_new(pidfd, AF_INET, SOCK_DGRAM), self->here_cookie);
	EXPECT_EQ(cookie_of_new(-1, AF_INET, SOCK_DGRAM), self->here_cookie);
	close(pidfd);
}

/*
 * "Never more than setns would allow": CAP_NET_ADMIN over the target's
 * owner is not enough, CAP_SYS_ADMIN is needed (netns_install()).
 */
TEST_F(sat, other_netns_with_cap_net_admin_without_cap_sys_admin_is_eperm)
{
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_NE(nsfd_get_caps() & NSFD_CAP(CAP_NET_ADMIN), 0ULL);
	EXPECT_EQ(sat_try(self->a, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(self->a, AF_UNIX, SOCK_STREAM, NULL), EPERM);
	EXPECT_EQ(sat_try(self->a, AF_NETLINK, SOCK_RAW, NULL), EPERM);
	/* Our own netns, by fd, needs nothing. */
	EXPECT_EQ(sat_try(self->here, AF_INET, SOCK_DGRAM, NULL), 0);
}

TEST_F(sat, other_netns_with_cap_sys_admin_without_cap_net_admin_succeeds)
{
	__u64 cookie = 0;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_NET_ADMIN)), 0);
	ASSERT_NE(nsfd_get_caps() & NSFD_CAP(CAP_SYS_ADMIN), 0ULL);
	EXPECT_EQ(sat_try(self->a, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, self->a_cookie);
}

/*
 * A non-root uid given CAP_NET_ADMIN only (a container's --cap-add NET_ADMIN).
 */
TEST_F(sat, uid_with_only_cap_net_admin_is_eperm)
{
	__u64 cookie = 0;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(sat_become_with_caps(NOBODY_UID, NSFD_CAP(CAP_NET_ADMIN)), 0);
	ASSERT_EQ(nsfd_get_caps(), NSFD_CAP(CAP_NET_ADMIN));
	EXPECT_EQ(sat_try(self->a, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(self->a, AF_UNIX, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(self->here, sat_family(), SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, self->here_cookie);
}

TEST_F(sat, unprivileged_uid_holding_root_netns_fd_is_eperm)
{
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(sys_socketat(self->a, AF_UNIX, SOCK_STREAM, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

/* CAP_SYS_ADMIN but not CAP_NET_RAW: datagram yes, raw EPERM (inet_create). */
TEST_F(sat, raw_socket_without_cap_net_raw_is_eperm)
{
	int s;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_drop_caps(NSFD_CAP(CAP_NET_RAW)), 0);
	s = sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(s, 0);
	close(s);
	ASSERT_EQ(sys_socketat(self->a, AF_INET, SOCK_RAW, IPPROTO_ICMP), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(sys_socketat(self->a, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6),
		  -1);
	ASSERT_EQ(errno, EPERM);
}

/*
 * EBADF (O_PATH too), then EINVAL, then the pidfd's ptrace EPERM before
 * its ESRCH, then the capability's EPERM, then socket(2)'s own errors:
 * each nsfd below also carries an invalid family.
 */
TEST_F(sat, errors_come_in_the_documented_order)
{
	int uts, closed, opath, dead, zombie;
	pid_t zpid;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	uts = nsfd_open_ns(0, "uts");
	closed = nsfd_open_ns(0, "net");
	opath = open("/proc/self/ns/uts", O_PATH | O_CLOEXEC);
	dead = nsfd_pidfd_of_reaped_child();
	zombie = sat_zombie(NULL, &zpid);
	ASSERT_GE(uts, 0);
	ASSERT_GE(closed, 0);
	ASSERT_GE(opath, 0);
	ASSERT_GE(dead, 0);
	ASSERT_GE(zombie, 0);
	close(closed);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(sys_socketat(closed, -1, -1, -1), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_socketat(opath, -1, -1, -1), -1);
	EXPECT_EQ(errno, EBADF);
	EXPECT_EQ(sys_socketat(uts, -1, -1, -1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(sys_socketat(zombie, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EPERM);
	EXPECT_EQ(sys_socketat(dead, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, ESRCH);
	EXPECT_EQ(sys_socketat(self->a, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EPERM);
	EXPECT_EQ(sys_socketat(self->here, -1, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EAFNOSUPPORT);
	EXPECT_EQ(waitpid(zpid, NULL, 0), zpid);
	close(zombie);
	close(dead);
	close(opath);
	close(uts);
}

/*
 * uid 65534 owns a user ns with two netns: from the second, a socket in
 * the first (CAP_SYS_ADMIN over its owner, which is the caller's own user
 * namespace, and CAP_NET_RAW: yes), as setns() there succeeds.
 */
TEST_F(sat, unprivileged_user_ns_owner_reaches_its_other_netns)
{
	__u64 cookie;
	int first, s, err;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(nsfd_become_nobody(), 0);
	err = nsfd_unshare_userns(CLONE_NEWNET);
	ASSERT_EQ(err, 0) {
		TH_LOG("unshare(CLONE_NEWUSER|CLONE_NEWNET): %s",
		       strerror(-err));
	}
	first = nsfd_open_ns(0, "net");
	ASSERT_GE(first, 0);
	cookie = nsfd_current_netns_cookie();
	ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	ASSERT_NE(nsfd_current_netns_cookie(), cookie);
	EXPECT_EQ(cookie_of_new(first, AF_INET, SOCK_DGRAM), cookie);
	SAT_EXPECT_BOTH(first, cookie, 0);
	s = sys_socketat(first, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	EXPECT_GE(s, 0) {
		TH_LOG("raw socket in own netns: %s", strerror(errno));
	}
	if (s >= 0)
		close(s);
	/* ... and still none in a netns that root owns. */
	EXPECT_EQ(sys_socketat(self->a, AF_INET, SOCK_DGRAM, 0), -1);
	EXPECT_EQ(errno, EPERM);
	SAT_EXPECT_BOTH(self->a, self->a_cookie, EPERM);
	close(first);
}

/*
 * A user namespace's own netns, held from outside it: uid 65534 (no
 * capabilities at all, in the initial user namespace) has a child make a
 * user namespace and a netns in it, and holds that netns by fd and by
 * pidfd. As the owner of that user namespace it has CAP_SYS_ADMIN over
 * the target, but it has none in its own user namespace: setns(fd,
 * CLONE_NEWNET) gives it EPERM, and so must socketat, or a sandbox that
 * denies it setns() would be side-stepped. Once it has joined the user
 * namespace it owns, both succeed, raw sockets included; root's netns
 * stays out of reach.
 */
TEST_F(sat, userns_owner_outside_is_eperm_until_it_joins)
{
	const struct sat_who who = {
		.uid = NOBODY_UID,
		.unshare_as_uid = CLONE_NEWUSER | CLONE_NEWNET,
		.dumpable = 1,
	};
	struct sat_holder h;
	__u64 cookie = 0;
	int userns, s;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(sat_hold(&h, &who), 0);
	userns = nsfd_open_ns(h.c.pid, "user");
	ASSERT_GE(userns, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(nsfd_get_caps(), 0ULL);
	EXPECT_EQ(sat_try(h.netns, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(h.pidfd, AF_UNIX, SOCK_STREAM, NULL), EPERM);
	SAT_EXPECT_BOTH(h.netns, h.cookie, EPERM);
	SAT_EXPECT_BOTH(h.pidfd, h.cookie, EPERM);

	ASSERT_EQ(setns(userns, CLONE_NEWUSER), 0) {
		TH_LOG("setns(CLONE_NEWUSER) into the owned userns: %s",
		       strerror(errno));
	}
	EXPECT_EQ(sat_try(h.netns, AF_INET, SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, h.cookie);
	cookie = 0;
	EXPECT_EQ(sat_try(h.pidfd, sat_family(), SOCK_DGRAM, &cookie), 0);
	EXPECT_EQ(cookie, h.cookie);
	SAT_EXPECT_BOTH(h.netns, h.cookie, 0);
	SAT_EXPECT_BOTH(h.pidfd, h.cookie, 0);
	s = sys_socketat(h.netns, AF_INET, SOCK_RAW | SOCK_CLOEXEC,
			 IPPROTO_ICMP);
	EXPECT_GE(s, 0) {
		TH_LOG("raw socket in the owned netns: %s", strerror(errno));
	}
	if (s >= 0)
		close(s);
	SAT_EXPECT_BOTH(self->a, self->a_cookie, EPERM);
	close(userns);
	sat_unhold(&h);
}

/* ... and another unprivileged uid holding the same fd is refused. */
TEST_F(sat, other_uid_outside_the_userns_is_eperm)
{
	const struct sat_who who = {
		.uid = NOBODY_UID,
		.unshare_as_uid = CLONE_NEWUSER | CLONE_NEWNET,
		.dumpable = 1,
	};
	struct sat_holder h;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(sat_hold(&h, &who), 0);
	ASSERT_EQ(nsfd_become(SAT_OTHER_UID, SAT_OTHER_UID), 0);
	EXPECT_EQ(sat_try(h.netns, AF_INET, SOCK_DGRAM, NULL), EPERM);
	EXPECT_EQ(sat_try(h.pidfd, AF_INET, SOCK_DGRAM, NULL), EPERM);
	SAT_EXPECT_BOTH(h.netns, h.cookie, EPERM);
	SAT_EXPECT_BOTH(h.pidfd, h.cookie, EPERM);
	sat_unhold(&h);
}

/*
 * The permission matrix: callers (uid, capabilities, user namespace) x
 * the owner of the target netns x the kind of fd that names it. In each
 * cell, socketat and setns(fd, CLONE_NEWNET) run side by side: the same
 * fd, one child of the caller, the same credentials. Outside the
 * caller's own netns they must agree, and each row states both answers.
 * In the caller's own netns socketat is socket(2) and needs no
 * capability, while setns still needs CAP_SYS_ADMIN over both sides.
 *
 * The targets: the caller's own netns; a netns of the initial user
 * namespace; one of a user namespace that uid 0 owns; one of a user
 * namespace that uid 65534 owns, and one of a user namespace that uid
 * 65533 owns. The first three are held by uid 65534 tasks in the initial
 * user namespace and the last two by their owner inside its user
 * namespace, so that the pidfd's ptrace check passes for every caller of
 * the initial user namespace but uid 65534 on the last one's holder.
 *
 * netns_install() checks CAP_SYS_ADMIN over the target's owner, then over
 * the caller's own user namespace. The caller-side check alone refuses
 * uid 0 without CAP_SYS_ADMIN on the user namespace of uid 0, and uid
 * 65534 on the one of uid 65534: each owns the target's user namespace,
 * so the first check passes. The check on the target alone refuses uid
 * 65534 as root in a new user namespace of its own, everywhere, and as
 * root in the one it owns (joined by setns()), everywhere but in the
 * netns of that one.
 */
enum { OWN, INIT_OWNED, ROOT_OWNED, NOBODY_OWNED, OTHER_OWNED, NR_OWNERS };

static const char *const owner_name[NR_OWNERS] = {
	"own netns", "init_user_ns", "userns of 0", "userns of 65534",
	"userns of 65533",
};

static const struct sat_who owner_who[NR_OWNERS] = {
	[OWN] = { .uid = NOBODY_UID, .dumpable = 1 },
	[INIT_OWNED] = {
		.unshare_as_root = CLONE_NEWNET,
		.uid = NOBODY_UID,
		.dumpable = 1,
	},
	/* .join_net: the netns of a user namespace that a root child made. */
	[ROOT_OWNED] = { .uid = NOBODY_UID, .dumpable = 1 },
	[NOBODY_OWNED] = {
		.uid = NOBODY_UID,
		.unshare_as_uid = CLONE_NEWUSER | CLONE_NEWNET,
		.dumpable = 1,
	},
	[OTHER_OWNED] = {
		.uid = SAT_OTHER_UID,
		.unshare_as_uid = CLONE_NEWUSER | CLONE_NEWNET,
		.dumpable = 1,
	},
};

/* The user namespace a caller of the matrix is in. */
enum sat_userns {
	SAT_INIT_USERNS,	/* the initial one */
	SAT_NEW_USERNS,		/* a new one of its own, root in it */
	SAT_OWNED_USERNS,	/* NOBODY_OWNED's, joined by setns() */
};

#define NR_KINDS	2	/* 0: netns fd, 1: pidfd */
#define NR_CELLS	(NR_OWNERS * NR_KINDS)

/* Cells of a row: the target @o named by its netns fd, by a pidfd, or both. */
#define SAT_FD(o)	(1U << ((o) * NR_KINDS))
#define SAT_PIDFD(o)	(1U << ((o) * NR_KINDS + 1))
#define SAT_BOTH(o)	(3U << ((o) * NR_KINDS))
#define SAT_ALL		((1U << NR_CELLS) - 1)
#define SAT_NONE	0U

/*
 * A caller, and the cells where socketat gives a socket and where setns
 * succeeds; every other cell wants EPERM from both.
 */
static const struct sat_profile {
	const char *name;
	uid_t uid;
	__u64 drop;		/* uid 0: capabilities dropped */
	__u64 keep;		/* other uids: the only capabilities kept */
	enum sat_userns userns;
	unsigned int socketat;
	unsigned int setns;
} sat_profiles[] = {
	{
		.name = "uid 0, all capabilities",
		.socketat = SAT_ALL,
		.setns = SAT_ALL,
	},
	{
		/* Owns "userns of 0": the caller-side check refuses. */
		.name = "uid 0 without CAP_SYS_ADMIN",
		.drop = NSFD_CAP(CAP_SYS_ADMIN),
		.socketat = SAT_BOTH(OWN),
		.setns = SAT_NONE,
	},
	{
		.name = "uid 0 without CAP_NET_ADMIN",
		.drop = NSFD_CAP(CAP_NET_ADMIN),
		.socketat = SAT_ALL,
		.setns = SAT_ALL,
	},
	{
		/* Owns "userns of 65534": the caller-side check refuses. */
		.name = "uid 65534, no capabilities",
		.uid = NOBODY_UID,
		.socketat = SAT_BOTH(OWN),
		.setns = SAT_NONE,
	},
	{
		.name = "uid 65534 with CAP_NET_ADMIN only",
		.uid = NOBODY_UID,
		.keep = NSFD_CAP(CAP_NET_ADMIN),
		.socketat = SAT_BOTH(OWN),
		.setns = SAT_NONE,
	},
	{
		/* The pidfd of uid 65533's holder needs CAP_SYS_PTRACE. */
		.name = "uid 65534 with CAP_SYS_ADMIN only",
		.uid = NOBODY_UID,
		.keep = NSFD_CAP(CAP_SYS_ADMIN),
		.socketat = SAT_ALL & ~SAT_PIDFD(OTHER_OWNED),
		.setns = SAT_ALL & ~SAT_PIDFD(OTHER_OWNED),
	},
	{
		/*
		 * Only the check on the target refuses; pidfds of tasks in
		 * other user namespaces fail the ptrace check.
		 */
		.name = "uid 65534, root in a new userns",
		.uid = NOBODY_UID,
		.userns = SAT_NEW_USERNS,
		.socketat = SAT_FD(OWN),
		.setns = SAT_NONE,
	},
	{
		.name = "uid 65534, root in the userns it owns",
		.uid = NOBODY_UID,
		.userns = SAT_OWNED_USERNS,
		.socketat = SAT_FD(OWN) | SAT_BOTH(NOBODY_OWNED),
		.setns = SAT_BOTH(NOBODY_OWNED),
	},
};

/* Become the caller @p; @owned_userns: an fd of NOBODY_OWNED's userns. */
static int sat_matrix_become(const struct sat_profile *p, int owned_userns)
{
	int err;

	err = p->uid ? sat_become_with_caps(p->uid, p->keep) :
		       nsfd_drop_caps(p->drop);
	if (err)
		return err;
	switch (p->userns) {
	case SAT_NEW_USERNS:
		return nsfd_unshare_userns(0);
	case SAT_OWNED_USERNS:
		return nsfd_err(setns(owned_userns, CLONE_NEWUSER));
	case SAT_INIT_USERNS:
		break;
	}
	return 0;
}

/*
 * In a child: become the caller @p, then socketat and setns side by side
 * on every target; the answers by pipe: socketat's cells, setns's cells,
 * and how becoming @p went.
 */
static void sat_matrix_row(const struct sat_profile *p,
			   const struct sat_holder *h, int owned_userns,
			   int out)
{
	int res[2 * NR_CELLS + 1] = {}, c, err;

	err = sat_matrix_become(p, owned_userns);
	res[2 * NR_CELLS] = err;
	for (c = 0; c < NR_CELLS && !err; c++) {
		const struct sat_holder *t = &h[c / NR_KINDS];
		int r[2];

		sat_side_by_side(c % NR_KINDS ? t->pidfd : t->netns, t->cookie,
				 r);
		res[c] = r[0];
		res[NR_CELLS + c] = r[1];
	}
	_exit(write(out, res, sizeof(res)) == sizeof(res) ? 0 : 1);
}

/*
 * One syscall's answers in a row, as a line of the matrix (a wrong one
 * marked "(!)" and logged): how many are wrong.
 */
static unsigned int sat_matrix_line(struct __test_metadata *_metadata,
				    const char *call,
				    const struct sat_profile *p,
				    unsigned int allowed, const int *res,
				    char *line, size_t size)
{
	unsigned int bad = 0, c;
	size_t len = 0;

	for (c = 0; c < NR_CELLS; c++) {
		int want = (allowed & (1U << c)) ? 0 : EPERM;
		bool ok = res[c] == want;

		bad += !ok;
		len += snprintf(line + len, size - len, "%s%s%s",
				c % NR_KINDS ? ", " : c ? " | " : "",
				sat_answer(res[c]), ok ? "" : " (!)");
		if (len >= size)
			len = size - 1;
		if (!ok)
			TH_LOG("%s, %s by %s: %s gave %s, want %s", p->name,
			       owner_name[c / NR_KINDS],
			       c % NR_KINDS ? "pidfd" : "netns fd", call,
			       sat_answer(res[c]), sat_answer(want));
	}
	return bad;
}

TEST_F(sat, permission_matrix_socketat_and_setns_agree)
{
	const struct sat_who root_userns = {
		.unshare_as_root = CLONE_NEWUSER | CLONE_NEWNET, .dumpable = 1,
	};
	struct sat_holder h[NR_OWNERS], r;
	unsigned int i, c, bad = 0;
	int owned_userns;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	/* The table itself: socketat is setns but in the caller's own netns. */
	for (i = 0; i < ARRAY_SIZE(sat_profiles); i++) {
		const struct sat_profile *p = &sat_profiles[i];

		ASSERT_EQ((p->socketat ^ p->setns) & ~SAT_BOTH(OWN), 0U) {
			TH_LOG("%s: socketat and setns differ beyond own netns",
			       p->name);
		}
	}
	ASSERT_EQ(sat_hold(&r, &root_userns), 0);
	for (i = 0; i < NR_OWNERS; i++) {
		struct sat_who who = owner_who[i];
		int err;

		if (i == ROOT_OWNED)
			who.join_net = &r.netns;
		err = sat_hold(&h[i], &who);
		ASSERT_EQ(err, 0) {
			TH_LOG("target %s: %s", owner_name[i], strerror(-err));
		}
	}
	/* The netns of "userns of 0" now lives on in its uid 65534 holder. */
	ASSERT_EQ(h[ROOT_OWNED].cookie, r.cookie);
	sat_unhold(&r);
	ASSERT_EQ(h[OWN].cookie, self->here_cookie);
	owned_userns = nsfd_open_ns(h[NOBODY_OWNED].c.pid, "user");
	ASSERT_GE(owned_userns, 0);

	TH_LOG("caller / target: fd, pidfd: %s | %s | %s | %s | %s",
	       owner_name[0], owner_name[1], owner_name[2], owner_name[3],
	       owner_name[4]);
	for (i = 0; i < ARRAY_SIZE(sat_profiles); i++) {
		const struct sat_profile *p = &sat_profiles[i];
		int res[2 * NR_CELLS + 1], pipefd[2], status;
		char line[256];
		pid_t pid;

		ASSERT_EQ(pipe2(pipefd, O_CLOEXEC), 0);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			close(pipefd[0]);
			sat_matrix_row(p, h, owned_userns, pipefd[1]);
		}
		close(pipefd[1]);
		ASSERT_EQ(read(pipefd[0], res, sizeof(res)),
			  (ssize_t)sizeof(res));
		close(pipefd[0]);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_EQ(res[2 * NR_CELLS], 0) {
			TH_LOG("%s: %s", p->name, strerror(-res[2 * NR_CELLS]));
		}
		bad += sat_matrix_line(_metadata, "socketat", p, p->socketat,
				       res, line, sizeof(line));
		TH_LOG("%-38s socketat: %s", p->name, line);
		bad += sat_matrix_line(_metadata, "setns", p, p->setns,
				       res + NR_CELLS, line, sizeof(line));
		TH_LOG("%-38s setns:    %s", "", line);
		/* Whatever the table says: beyond own netns, they agree. */
		for (c = NR_KINDS; c < NR_CELLS; c++) {
			if (res[c] == res[NR_CELLS + c])
				continue;
			bad++;
			TH_LOG("%s, %s by %s: socketat %s but setns %s",
			       p->name, owner_name[c / NR_KINDS],
			       c % NR_KINDS ? "pidfd" : "netns fd",
			       sat_answer(res[c]),
			       sat_answer(res[NR_CELLS + c]));
		}
	}
	EXPECT_EQ(bad, 0U);
	close(owned_userns);
	for (i = 0; i < NR_OWNERS; i++)
		sat_unhold(&h[i]);
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
	const char *why;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	nl = nsfd_nl_open(0);
	ASSERT_GE(nl, 0);
	mon = nsfd_nl_open(RTMGRP_LINK);
	ASSERT_GE(mon, 0);
	ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare, &flags), 0);
	nsfd = nsfd_open_ns(c.pid, "net");
	ASSERT_GE(nsfd, 0);
	ASSERT_EQ(nsfd_link_add(nl, "nsfd-here", "veth", -1, "nsfd-there",
				nsfd), 0);
	ifindex = nsfd_link_index(nl, "nsfd-here");
	ASSERT_GT(ifindex, 0);
	s = sys_socketat(nsfd, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(s, 0);
	ASSERT_EQ(close(nsfd), 0);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
	/*
	 * Had the socket held nothing, the netns would now be queued for
	 * cleanup: look only once a netns released after it is gone.
	 */
	why = nsfd_flush_netns_cleanup();
	if (why)
		TH_LOG("netns cleanup not flushed (%s): a leak may pass",
		       why);

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
 * The sweep: SWEEP_CALLS random calls, each judged against the one right
 * answer. nsfd is drawn evenly from eight classes; four have a fixed
 * errno (another namespace type and a non-namespace fd EINVAL, a dead
 * pidfd ESRCH, a number that is not an open fd EBADF), four name a netns
 * (-1 and the own netns fd: "here"; a foreign netns fd: "a" or "b"; a
 * live pidfd: "b" or "here"), where the answer is what socket(2) gives
 * for the same triple inside that netns, computed by a setns dance (and
 * remembered). A socket must also be in that netns, of the same domain,
 * type and protocol, with the flags asked for.
 *
 * Families are those socket(2) supports here among AF_UNIX, AF_INET,
 * AF_INET6, AF_NETLINK and AF_PACKET, probed with a list of (type,
 * protocol) pairs that are split into those that make a socket here and
 * those that do not; draws take mostly the former, so that about a third
 * of all calls make a socket. A few draws use families out of the kernel's
 * range (EAFNOSUPPORT before any module lookup), unknown type flags, or a
 * random type or protocol.
 */
#define SWEEP_CALLS		20000
#define SWEEP_SEED		0x6e736664u
#define SWEEP_MAX_SECONDS	60
#define SWEEP_MIN_SOCKET_PCT	30

static unsigned int sweep_rand(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

enum { T_HERE, T_A, T_B, NR_TARGETS };

enum {
	C_MINUS_ONE, C_OWN_FD, C_FOREIGN_FD, C_OTHER_NS, C_PIDFD_LIVE,
	C_PIDFD_DEAD, C_NOT_NS, C_NOT_OPEN, NR_CLASSES
};

static const char *const sweep_class_name[NR_CLASSES] = {
	"-1", "own netns fd", "foreign netns fd", "other ns type", "live pidfd",
	"dead pidfd", "non-ns fd", "not an open fd",
};

#define SWEEP_POOL	12

struct sweep_nsfd {
	int fd;
	int target;	/* T_*, or -1: the answer is @err */
	int err;
};

struct sweep_pair {
	int type;
	int protocol;
};

#define SWEEP_PAIRS	16

struct sweep_family {
	int family;
	const char *name;
	int weight;
	struct sweep_pair cand[SWEEP_PAIRS];
	/* Filled by the probe: what makes a socket here, and what does not. */
	struct sweep_pair good[SWEEP_PAIRS], bad[SWEEP_PAIRS];
	int ngood, nbad;
};

#define END	{ -1, -1 }

static struct sweep_family sweep_families[] = {
	{ .family = AF_UNIX, .name = "AF_UNIX", .weight = 4, .cand = {
		{ SOCK_STREAM, 0 }, { SOCK_DGRAM, 0 }, { SOCK_SEQPACKET, 0 },
		{ SOCK_RAW, 0 },
		{ SOCK_STREAM, PF_UNIX }, { SOCK_DGRAM, PF_UNIX },
		{ SOCK_RDM, 0 },
		{ SOCK_STREAM, 2 }, { SOCK_DGRAM, -1 }, { SOCK_PACKET, 0 },
		{ 0, 0 }, END } },
	{ .family = AF_INET, .name = "AF_INET", .weight = 4, .cand = {
		{ SOCK_STREAM, 0 }, { SOCK_STREAM, IPPROTO_TCP },
		{ SOCK_DGRAM, 0 },
		{ SOCK_DGRAM, IPPROTO_UDP }, { SOCK_RAW, IPPROTO_ICMP },
		{ SOCK_RAW, IPPROTO_RAW },
		{ SOCK_RAW, IPPROTO_UDP }, { SOCK_DGRAM, IPPROTO_ICMP },
		{ SOCK_STREAM, IPPROTO_UDP },
		{ SOCK_SEQPACKET, 0 }, { SOCK_DGRAM, IPPROTO_TCP },
		{ SOCK_STREAM, -1 },
		{ SOCK_STREAM, IPPROTO_MAX }, { SOCK_RAW, 0 }, END } },
	{ .family = AF_INET6, .name = "AF_INET6", .weight = 4, .cand = {
		{ SOCK_STREAM, 0 }, { SOCK_STREAM, IPPROTO_TCP },
		{ SOCK_DGRAM, 0 },
		{ SOCK_DGRAM, IPPROTO_UDP }, { SOCK_RAW, IPPROTO_ICMPV6 },
		{ SOCK_RAW, IPPROTO_RAW },
		{ SOCK_DGRAM, IPPROTO_ICMPV6 }, { SOCK_STREAM, IPPROTO_UDP },
		{ SOCK_SEQPACKET, 0 },
		{ SOCK_DGRAM, IPPROTO_TCP }, { SOCK_STREAM, -1 },
		{ SOCK_RAW, 0 }, END } },
	{ .family = AF_NETLINK, .name = "AF_NETLINK", .weight = 3, .cand = {
		{ SOCK_RAW, NETLINK_ROUTE }, { SOCK_DGRAM, NETLINK_ROUTE },
		{ SOCK_RAW, NETLINK_SOCK_DIAG }, { SOCK_RAW, NETLINK_GENERIC },
		{ SOCK_RAW, NETLINK_KOBJECT_UEVENT },
		{ SOCK_STREAM, NETLINK_ROUTE },
		{ SOCK_RAW, MAX_LINKS }, { SOCK_RAW, -1 },
		{ SOCK_SEQPACKET, 0 }, END } },
	/* Rare: packet_release() waits for an RCU grace period. */
	{ .family = AF_PACKET, .name = "AF_PACKET", .weight = 1, .cand = {
		{ SOCK_RAW, 0 }, { SOCK_DGRAM, 0 },
		{ SOCK_RAW, SAT_HTONS(ETH_P_ALL) },
		{ SOCK_DGRAM, SAT_HTONS(ETH_P_IP) },
		{ SOCK_STREAM, 0 },
		{ SOCK_SEQPACKET, 0 }, END } },
};

#define NR_SWEEP_FAMILIES	ARRAY_SIZE(sweep_families)

/* Out of the kernel's range (>= NPROTO or < 0): no module is ever asked for. */
static const int sweep_bad_families[] = { -1, 1000, INT_MAX, INT_MIN };

struct sweep_triple {
	int family;
	int type;
	int protocol;
};

struct sweep_answer {
	int target;
	struct sweep_triple t;
	bool used;
	int err;
	int domain, type, protocol;	/* SO_DOMAIN, SO_TYPE, SO_PROTOCOL */
};

#define SWEEP_CACHE	8192

struct sweep {
	struct sweep_nsfd pool[NR_CLASSES][SWEEP_POOL];
	int npool[NR_CLASSES];
	int netns[NR_TARGETS];
	__u64 cookie[NR_TARGETS];
	struct sweep_family *fam[NR_SWEEP_FAMILIES];
	int nfam, weight;
	struct sweep_answer cache[SWEEP_CACHE];
	unsigned int cached;
	unsigned int dances;
};

static void sweep_add(struct sweep *x, int class, int fd, int target, int err)
{
	/*
	 * -1 only as itself; other negative numbers only as "not an open fd".
	 */
	if (fd == -1 ? class != C_MINUS_ONE : fd < 0 && class != C_NOT_OPEN)
		return;
	if (x->npool[class] >= SWEEP_POOL)
		return;
	x->pool[class][x->npool[class]++] =
		(struct sweep_nsfd){ fd, target, err };
}

/* Which candidate pairs make a socket here; the families that have any. */
static void sweep_probe_families(struct sweep *x)
{
	unsigned int i;
	int j;

	for (i = 0; i < NR_SWEEP_FAMILIES; i++) {
		struct sweep_family *f = &sweep_families[i];

		f->ngood = 0;
		f->nbad = 0;
		for (j = 0; j < SWEEP_PAIRS && f->cand[j].type != -1; j++) {
			const struct sweep_pair *p = &f->cand[j];
			int s = socket(f->family, p->type | SOCK_CLOEXEC,
				       p->protocol);

			if (s >= 0) {
				close(s);
				f->good[f->ngood++] = f->cand[j];
			} else {
				f->bad[f->nbad++] = f->cand[j];
			}
		}
		if (f->ngood) {
			x->fam[x->nfam++] = f;
			x->weight += f->weight;
		}
	}
}

static void sweep_draw(struct sweep *x, unsigned int *st,
		       struct sweep_triple *t)
{
	unsigned int r = sweep_rand(st), w;
	const struct sweep_family *f;
	const struct sweep_pair *p;
	int i;

	if (r % 100 < 5) {
		/* Unsupported family, with any family's pair. */
		t->family = sweep_bad_families[(r >> 8) %
					       ARRAY_SIZE(sweep_bad_families)];
		f = x->fam[(r >> 12) % x->nfam];
		p = (r >> 16) & 1 || !f->nbad ? &f->good[(r >> 17) % f->ngood] :
						 &f->bad[(r >> 17) % f->nbad];
	} else {
		w = (r >> 8) % x->weight;
		for (i = 0; w >= (unsigned int)x->fam[i]->weight; i++)
			w -= x->fam[i]->weight;
		f = x->fam[i];
		t->family = f->family;
		r = sweep_rand(st);
		p = r % 100 < 85 || !f->nbad ? &f->good[(r >> 8) % f->ngood] :
					       &f->bad[(r >> 8) % f->nbad];
	}
	t->type = p->type;
	t->protocol = p->protocol;

	r = sweep_rand(st);
	if (r % 100 < 3) {
		int bit = unknown_type_bits[(r >> 8) %
					    ARRAY_SIZE(unknown_type_bits)];

		if (unknown_type_bit(bit))
			t->type |= bit;
	} else {
		t->type |= ((r >> 8) & 1 ? SOCK_CLOEXEC : 0) |
			   ((r >> 9) & 1 ? SOCK_NONBLOCK : 0);
	}
	r = sweep_rand(st);
	if (r % 100 < 2) {
		int v = (int)(sweep_rand(st) << 16 ^ sweep_rand(st));

		if ((r >> 8) & 1)
			t->protocol = v;
		else
			t->type = v;
	}
}

/* socket(2) for @t inside netns @target, by a setns dance if it is not here. */
static int sweep_compute(struct sweep *x, int target,
			 const struct sweep_triple *t, struct sweep_answer *a)
{
	int s;

	if (target != T_HERE) {
		if (setns(x->netns[target], CLONE_NEWNET))
			return -errno;
		x->dances++;
	}
	s = socket(t->family, t->type, t->protocol);
	a->err = s < 0 ? errno : 0;
	if (s >= 0) {
		a->domain = sockopt(s, SO_DOMAIN);
		a->type = sockopt(s, SO_TYPE);
		a->protocol = sockopt(s, SO_PROTOCOL);
		close(s);
	}
	if (target != T_HERE && setns(x->netns[T_HERE], CLONE_NEWNET))
		return -errno;
	return 0;
}

/*
 * The answer of socket(2) for @t in @target, remembered. NULL if the dance
 * failed.
 */
static const struct sweep_answer *sweep_answer(struct sweep *x, int target,
					       const struct sweep_triple *t)
{
	static struct sweep_answer scratch;
	unsigned int h = (unsigned int)target * 0x9e3779b1u;
	struct sweep_answer *a;

	h = (h ^ (unsigned int)t->family) * 0x85ebca6bu;
	h = (h ^ (unsigned int)t->type) * 0xc2b2ae35u;
	h = (h ^ (unsigned int)t->protocol) * 0x27d4eb2fu;
	for (a = &x->cache[h % SWEEP_CACHE]; a->used;
	     a = a == &x->cache[SWEEP_CACHE - 1] ? x->cache : a + 1) {
		if (a->target == target && a->t.family == t->family &&
		    a->t.type == t->type && a->t.protocol == t->protocol)
			return a;
	}
	if (x->cached >= SWEEP_CACHE * 3 / 4)
		a = &scratch;	/* full enough: compute, do not keep */
	if (sweep_compute(x, target, t, a))
		return NULL;
	a->target = target;
	a->t = *t;
	if (a != &scratch) {
		a->used = true;
		x->cached++;
	}
	return a;
}

/*
 * A socketat() socket against the answer: 0 if it is what socket(2) made there.
 */
static const char *sweep_socket_wrong(struct sweep *x, int s, int target,
				      const struct sweep_triple *t,
				      const struct sweep_answer *a)
{
	int fdflags = fcntl(s, F_GETFD), flflags = fcntl(s, F_GETFL);

	if (a->err)
		return "a socket where socket(2) fails";
	if (nsfd_netns_cookie(s) != x->cookie[target])
		return "in the wrong netns";
	if (sockopt(s, SO_DOMAIN) != a->domain ||
	    sockopt(s, SO_TYPE) != a->type ||
	    sockopt(s, SO_PROTOCOL) != a->protocol)
		return "domain, type or protocol differ";
	if (!!(fdflags & FD_CLOEXEC) != !!(t->type & SOCK_CLOEXEC))
		return "FD_CLOEXEC differs";
	if (!!(flflags & O_NONBLOCK) != !!(t->type & SOCK_NONBLOCK))
		return "O_NONBLOCK differs";
	return NULL;
}

static double sweep_seconds(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

TEST_F_TIMEOUT(sat, sweep_every_call_matches_socket_in_the_target, 180)
{
	static struct sweep sw;
	struct sweep *x = &sw;
	const struct sat_who in_b = {
		.unshare_as_root = CLONE_NEWNET, .dumpable = 1
	};
	unsigned int state = SWEEP_SEED, calls, made = 0, mismatches = 0, i;
	unsigned int class_calls[NR_CLASSES] = {}, class_made[NR_CLASSES] = {};
	unsigned int errs[256] = {};
	struct sat_holder b;
	struct timespec t0;
	char line[1024];
	size_t len;
	pid_t zpid = 0;
	int fd, pipefd[2];

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	memset(x, 0, sizeof(*x));
	ASSERT_EQ(sat_hold(&b, &in_b), 0);
	x->netns[T_HERE] = self->here;
	x->netns[T_A] = self->a;
	x->netns[T_B] = b.netns;
	x->cookie[T_HERE] = self->here_cookie;
	x->cookie[T_A] = self->a_cookie;
	x->cookie[T_B] = b.cookie;

	sweep_add(x, C_MINUS_ONE, -1, T_HERE, 0);
	sweep_add(x, C_OWN_FD, self->here, T_HERE, 0);
	sweep_add(x, C_OWN_FD, nsfd_open_ns(0, "net"), T_HERE, 0);
	sweep_add(x, C_FOREIGN_FD, self->a, T_A, 0);
	sweep_add(x, C_FOREIGN_FD, b.netns, T_B, 0);
	for (i = 0; i < NSFD_NR_NS; i++)
		if (nsfd_ns_entries[i].type != CLONE_NEWNET)
			sweep_add(x, C_OTHER_NS,
				  nsfd_open_ns(0, nsfd_ns_entries[i].name), -1,
				  EINVAL);
	sweep_add(x, C_PIDFD_LIVE, b.pidfd, T_B, 0);
	sweep_add(x, C_PIDFD_LIVE, sys_pidfd_open(getpid(), 0), T_HERE, 0);
	sweep_add(x, C_PIDFD_DEAD, nsfd_pidfd_of_reaped_child(), -1, ESRCH);
	sweep_add(x, C_PIDFD_DEAD, sat_zombie(NULL, &zpid), -1, ESRCH);
	sweep_add(x, C_NOT_NS, open("/proc/self/status", O_RDONLY | O_CLOEXEC),
		  -1, EINVAL);
	sweep_add(x, C_NOT_NS, open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC),
		  -1, EINVAL);
	sweep_add(x, C_NOT_NS,
		  open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC), -1,
		  EINVAL);
	sweep_add(x, C_NOT_NS,
		  socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE),
		  -1, EINVAL);
	sweep_add(x, C_NOT_NS, eventfd(0, EFD_CLOEXEC), -1, EINVAL);
	ASSERT_EQ(pipe2(pipefd, O_CLOEXEC), 0);
	sweep_add(x, C_NOT_NS, pipefd[0], -1, EINVAL);
	sweep_add(x, C_NOT_OPEN, open("/proc/self/ns/net", O_PATH | O_CLOEXEC),
		  -1, EBADF);
	sweep_add(x, C_NOT_OPEN, open("/proc/self/status", O_PATH | O_CLOEXEC),
		  -1, EBADF);
	sweep_add(x, C_NOT_OPEN, -2, -1, EBADF);
	sweep_add(x, C_NOT_OPEN, INT_MAX, -1, EBADF);
	sweep_add(x, C_NOT_OPEN, INT_MIN, -1, EBADF);
	/* Last: no later open may take its number. */
	fd = eventfd(0, EFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	close(fd);
	sweep_add(x, C_NOT_OPEN, fd, -1, EBADF);
	for (i = 0; i < NR_CLASSES; i++) {
		ASSERT_GT(x->npool[i], 0) {
			TH_LOG("no nsfd of class \"%s\"", sweep_class_name[i]);
		}
	}
	ASSERT_EQ(x->npool[C_PIDFD_DEAD], 2);
	ASSERT_EQ(x->npool[C_PIDFD_LIVE], 2);

	sweep_probe_families(x);
	ASSERT_GT(x->nfam, 0);
	len = 0;
	for (i = 0; i < (unsigned int)x->nfam; i++)
		len += snprintf(line + len, sizeof(line) - len,
				" %s (%d of %d pairs make a socket)",
				x->fam[i]->name, x->fam[i]->ngood,
				x->fam[i]->ngood + x->fam[i]->nbad);
	ksft_print_msg("sweep: families:%s; bad: -1 1000 INT_MAX INT_MIN\n",
		       line);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (calls = 0; calls < SWEEP_CALLS; calls++) {
		unsigned int r = sweep_rand(&state);
		int class = r % NR_CLASSES, s, e;
		struct sweep_nsfd n =
			x->pool[class][(r >> 8) % x->npool[class]];
		const struct sweep_answer *a = NULL;
		struct sweep_triple t;
		const char *wrong = NULL;

		if (!(calls & 255) && sweep_seconds(&t0) > SWEEP_MAX_SECONDS) {
			ksft_print_msg("sweep: stopped at %d s, %u calls\n",
				       SWEEP_MAX_SECONDS, calls);
			break;
		}
		/*
		 * Half of the not-open numbers are random: far above or below.
		 */
		if (class == C_NOT_OPEN && (r >> 20) & 1) {
			unsigned int v = sweep_rand(&state);

			n.fd = v & 1 ? (int)(0x20000000u | v >> 1) :
				       -(int)(v % 1000000) - 2;
		}
		sweep_draw(x, &state, &t);
		if (n.target >= 0) {
			a = sweep_answer(x, n.target, &t);
			ASSERT_TRUE(a != NULL) {
				TH_LOG("setns dance into target %d: %s",
				       n.target, strerror(errno));
			}
		}
		s = sys_socketat(n.fd, t.family, t.type, t.protocol);
		e = s < 0 ? errno : 0;
		class_calls[class]++;
		if (s >= 0) {
			wrong = a ? sweep_socket_wrong(x, s, n.target, &t, a) :
				"a socket where the nsfd class has an errno";
			close(s);
			made++;
			class_made[class]++;
		} else if (e != (a ? a->err : n.err)) {
			wrong = "errno differs";
		}
		errs[e < 256 ? e : 255]++;
		if (wrong && mismatches++ < 10)
			TH_LOG("%u: socketat(%d[%s],%d,%#x,%d) %s, not %s: %s",
			       calls, n.fd, sweep_class_name[class], t.family,
			       t.type, t.protocol, nsfd_errname(e),
			       nsfd_errname(a ? a->err : n.err), wrong);
	}

	ksft_print_msg("sweep: %u calls, seed 0x%x, %.1f s, %u setns dances\n",
		       calls, SWEEP_SEED, sweep_seconds(&t0), x->dances);
	ksft_print_msg("sweep: %u sockets (%.1f%% of calls), %u mismatches\n",
		       made, calls ? 100.0 * made / calls : 0.0, mismatches);
	len = 0;
	for (i = 0; i < 256; i++)
		if (errs[i])
			len += snprintf(line + len, sizeof(line) - len,
					"%s%s %u", len ? ", " : "",
					i ? nsfd_errname(i) : "socket",
					errs[i]);
	ksft_print_msg("sweep: errno table: %s\n", line);
	len = 0;
	for (i = 0; i < NR_CLASSES; i++)
		len += snprintf(line + len, sizeof(line) - len, "%s%s %u/%u",
				i ? ", " : "", sweep_class_name[i],
				class_made[i], class_calls[i]);
	ksft_print_msg("sweep: sockets/calls by nsfd class: %s\n", line);
	fflush(stdout);

	EXPECT_EQ(mismatches, 0U);
	EXPECT_GE(made * 100, calls * SWEEP_MIN_SOCKET_PCT) {
		TH_LOG("only %u of %u calls made a socket", made, calls);
	}

	for (i = 0; i < NR_CLASSES; i++) {
		int j;

		for (j = 0; j < x->npool[i]; j++) {
			int f = x->pool[i][j].fd;

			if (f < 0 || f == self->here || f == self->a ||
			    f == b.netns || f == b.pidfd)
				continue;
			close(f);
		}
	}
	close(pipefd[1]);
	if (zpid > 0)
		waitpid(zpid, NULL, 0);
	sat_unhold(&b);
}

TEST_HARNESS_MAIN
