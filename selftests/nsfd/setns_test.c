// SPDX-License-Identifier: GPL-2.0
/*
 * setns(2): the type matrix for every /proc/self/ns entry, the fds that
 * are not namespaces, the pidfd forms, EPERM without CAP_SYS_ADMIN, the
 * per-type refusals (pid ancestry, user and time from threads, mnt with a
 * shared fs_struct) and SysV semaphore undo on an IPC namespace change.
 *
 * Every test runs in its own forked process (kselftest_harness.h), so the
 * setns calls below change only that process.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "nsfd_common.h"
#include "../kselftest_harness.h"

FIXTURE(ns) {
	int current; /* /proc/self/ns/<name> before the test changed anything */
	char current_link[64];
};

FIXTURE_VARIANT(ns) {
	const struct nsfd_ns *ns;
};

FIXTURE_VARIANT_ADD(ns, cgroup) {
	.ns = &nsfd_ns_entries[NSFD_NS_cgroup],
};

FIXTURE_VARIANT_ADD(ns, ipc) {
	.ns = &nsfd_ns_entries[NSFD_NS_ipc],
};

FIXTURE_VARIANT_ADD(ns, mnt) {
	.ns = &nsfd_ns_entries[NSFD_NS_mnt],
};

FIXTURE_VARIANT_ADD(ns, net) {
	.ns = &nsfd_ns_entries[NSFD_NS_net],
};

FIXTURE_VARIANT_ADD(ns, pid) {
	.ns = &nsfd_ns_entries[NSFD_NS_pid],
};

FIXTURE_VARIANT_ADD(ns, pid_for_children) {
	.ns = &nsfd_ns_entries[NSFD_NS_pid_for_children],
};

FIXTURE_VARIANT_ADD(ns, time) {
	.ns = &nsfd_ns_entries[NSFD_NS_time],
};

FIXTURE_VARIANT_ADD(ns, time_for_children) {
	.ns = &nsfd_ns_entries[NSFD_NS_time_for_children],
};

FIXTURE_VARIANT_ADD(ns, user) {
	.ns = &nsfd_ns_entries[NSFD_NS_user],
};

FIXTURE_VARIANT_ADD(ns, uts) {
	.ns = &nsfd_ns_entries[NSFD_NS_uts],
};

FIXTURE_SETUP(ns)
{
	self->current = -1;
	NSFD_SKIP_IF(return, nsfd_ns_missing(variant->ns->type));
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	if (variant->ns->type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	self->current = nsfd_open_ns(0, variant->ns->name);
	ASSERT_GE(self->current, 0);
	ASSERT_EQ(nsfd_ns_link(0, variant->ns->name, self->current_link,
			       sizeof(self->current_link)), 0);
}

FIXTURE_TEARDOWN(ns)
{
	if (self->current >= 0)
		close(self->current);
}

/*
 * An fd to a namespace of the variant's type other than the one the
 * caller is in, and the link that variant->ns->changes reads once joined.
 * user: a new user ns from a child (owned by root, or by nobody with
 * @nobody_user); every other type: the current one, after unshare moved
 * the caller (or its children, for pid and time) to a new one.
 */
static int other_ns(struct __test_metadata *_metadata,
		    const FIXTURE_VARIANT(ns) * variant, char *want,
		    size_t size, bool nobody_user)
{
	char now[64];
	int fd;

	if (variant->ns->type == CLONE_NEWUSER) {
		fd = nsfd_child_userns(nobody_user);
	} else {
		fd = nsfd_open_ns(0, variant->ns->name);
		if (fd >= 0 && unshare(variant->ns->type))
			fd = -errno;
	}
	if (fd < 0) {
		TH_LOG("no other %s namespace: %s", variant->ns->name,
		       strerror(-fd));
		return fd;
	}
	snprintf(want, size, "%s:[%lu]", variant->ns->real_name,
		 (unsigned long)nsfd_fd_ino(fd));
	/* Not joined yet (a fresh pid ns without a reaper has no link). */
	if (!nsfd_ns_link(0, variant->ns->changes, now, sizeof(now)) &&
	    !strcmp(now, want)) {
		TH_LOG("%s is already %s", variant->ns->changes, want);
		close(fd);
		return -EEXIST;
	}
	return fd;
}

static bool joined(const FIXTURE_VARIANT(ns) * variant, const char *want)
{
	char now[64];

	return !nsfd_ns_link(0, variant->ns->changes, now, sizeof(now)) &&
	       !strcmp(now, want);
}

TEST_F(ns, joins_with_nstype_zero)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, 0), 0) {
		TH_LOG("setns(%s, 0): %s", variant->ns->name, strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

TEST_F(ns, joins_with_its_own_clone_flag)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, variant->ns->type), 0) {
		TH_LOG("setns(%s, 0x%x): %s", variant->ns->name,
		       variant->ns->type, strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

/* Every CLONE_NEW* but its own, an unknown bit, or its own plus another. */
TEST_F(ns, every_other_flag_is_einval)
{
	char want[64];
	unsigned int i;
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	/* Each of the eight flags once: entries of one type are adjacent. */
	for (i = 0; i < NSFD_NR_NS; i++) {
		const struct nsfd_ns *e = &nsfd_ns_entries[i];

		if (e->type == variant->ns->type ||
		    (i && e->type == nsfd_ns_entries[i - 1].type))
			continue;
		EXPECT_EQ(setns(fd, e->type), -1) {
			TH_LOG("setns(%s, %s) succeeded", variant->ns->name,
			       e->flag);
		}
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("setns(%s, %s): %s", variant->ns->name, e->flag,
			       strerror(errno));
		}
	}
	EXPECT_EQ(setns(fd, CLONE_VM), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(setns(fd, variant->ns->type |
			    (variant->ns->type == CLONE_NEWUTS ?
			     CLONE_NEWNET : CLONE_NEWUTS)), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_FALSE(joined(variant, want));
	close(fd);
}

/* The namespace one is in: accepted, except user (EINVAL, userns_install()). */
TEST_F(ns, rejoining_current_namespace)
{
	char now[64];

	if (variant->ns->type == CLONE_NEWUSER) {
		ASSERT_EQ(setns(self->current, 0), -1);
		ASSERT_EQ(errno, EINVAL);
	} else {
		ASSERT_EQ(setns(self->current, 0), 0) {
			TH_LOG("setns(%s, 0): %s", variant->ns->name,
			       strerror(errno));
		}
	}
	ASSERT_EQ(nsfd_ns_link(0, variant->ns->name, now, sizeof(now)), 0);
	EXPECT_STREQ(now, self->current_link);
}

/*
 * uid 0 with every capability but CAP_SYS_ADMIN: each *_install() asks
 * for CAP_SYS_ADMIN, so a kernel that checks another one lets this
 * through. The user variant's target is owned by nobody: uid 0 has every
 * cap in a user ns it owns (root_without_caps_joins_child_userns_it_owns).
 * Then the control: CAP_SYS_ADMIN back, the same call joins.
 */
TEST_F(ns, eperm_without_cap_sys_admin)
{
	char want[64];
	__u64 before;
	int fd;

	if (variant->ns->type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	fd = other_ns(_metadata, variant, want, sizeof(want), true);
	ASSERT_GE(fd, 0);
	before = nsfd_get_caps();
	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_EQ(nsfd_get_caps(), before & ~NSFD_CAP(CAP_SYS_ADMIN));
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EPERM);
	EXPECT_FALSE(joined(variant, want));
	ASSERT_EQ(nsfd_raise_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_EQ(setns(fd, 0), 0) {
		TH_LOG("with CAP_SYS_ADMIN back: %s", strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

/*
 * The positive control of the one above: uid 0 with CAP_SYS_ADMIN and no
 * other capability (mnt: and CAP_SYS_CHROOT, which mntns_install() also
 * asks for) joins a namespace that its own user ns owns. user: a user ns
 * that uid 0 created, so owns.
 */
TEST_F(ns, joins_with_cap_sys_admin_alone)
{
	__u64 keep = NSFD_CAP(CAP_SYS_ADMIN);
	char want[64];
	int fd;

	if (variant->ns->type == CLONE_NEWNS)
		keep |= NSFD_CAP(CAP_SYS_CHROOT);
	fd = other_ns(_metadata, variant, want, sizeof(want), false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_set_caps(keep), 0);
	ASSERT_EQ(nsfd_get_caps(), keep);
	ASSERT_EQ(setns(fd, 0), 0) {
		TH_LOG("setns(%s, 0) with caps %#llx: %s", variant->ns->name,
		       (unsigned long long)keep, strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

/* A child in a user ns that root owns creates a namespace of @type there. */
static int unshare_in_owned_userns(void *arg)
{
	int type = *(int *)arg, err;

	err = nsfd_unshare_userns(0);
	if (err)
		return err;
	if (unshare(type))
		return -errno;
	return type == CLONE_NEWPID ? nsfd_fork_pidns_init() : 0;
}

/*
 * The second check of each *_install(): CAP_SYS_ADMIN over the caller's
 * own user ns (nsset->cred->user_ns). The target is owned by a user ns
 * that root owns, so the check over the target's owner passes even
 * without CAP_SYS_ADMIN; only the caller-side check can refuse. user has
 * no caller-side check (userns_install()): there root joins.
 */
TEST_F(ns, caller_side_check_without_cap_sys_admin)
{
	int type = variant->ns->type, fd, err;
	struct nsfd_child c;
	char want[64];

	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	if (type == CLONE_NEWUSER) {
		fd = nsfd_child_userns(false);
	} else {
		err = nsfd_child_start(&c, unshare_in_owned_userns, &type);
		ASSERT_EQ(err, 0) {
			TH_LOG("child: %s", strerror(-err));
		}
		fd = nsfd_open_ns(c.pid, variant->ns->changes);
		nsfd_child_finish(&c);
	}
	ASSERT_GE(fd, 0);
	snprintf(want, sizeof(want), "%s:[%lu]", variant->ns->real_name,
		 (unsigned long)nsfd_fd_ino(fd));
	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	if (type == CLONE_NEWUSER) {
		ASSERT_EQ(setns(fd, 0), 0);
		EXPECT_TRUE(joined(variant, want));
		close(fd);
		return;
	}
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EPERM);
	EXPECT_FALSE(joined(variant, want));
	ASSERT_EQ(nsfd_raise_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_EQ(setns(fd, 0), 0) {
		TH_LOG("with CAP_SYS_ADMIN back: %s", strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

/* Error order: the type check answers before any capability check. */
TEST_F(ns, wrong_flag_without_cap_sys_admin_is_einval)
{
	int wrong = variant->ns->type == CLONE_NEWUTS ?
		    CLONE_NEWNET : CLONE_NEWUTS;
	char want[64];
	int fd;

	if (variant->ns->type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	fd = other_ns(_metadata, variant, want, sizeof(want), true);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_EQ(setns(fd, wrong), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EPERM);
	close(fd);
}

/* mntns_install() also wants CAP_SYS_CHROOT over the caller's user ns. */
TEST(mnt_eperm_without_cap_sys_chroot)
{
	__u64 before;
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	fd = nsfd_detached_ns(CLONE_NEWNS, "mnt", "mnt");
	ASSERT_GE(fd, 0);
	before = nsfd_get_caps();
	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_SYS_CHROOT)), 0);
	ASSERT_EQ(nsfd_get_caps(), before & ~NSFD_CAP(CAP_SYS_CHROOT));
	ASSERT_EQ(setns(fd, CLONE_NEWNS), -1);
	ASSERT_EQ(errno, EPERM);
	ASSERT_EQ(nsfd_raise_caps(NSFD_CAP(CAP_SYS_CHROOT)), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWNS), 0);
	EXPECT_EQ(nsfd_self_ino("mnt"), nsfd_fd_ino(fd));
	close(fd);
}

/* Error order: userns_install() refuses the current user ns before caps. */
TEST(user_rejoin_without_cap_sys_admin_is_einval)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUSER));
	fd = nsfd_open_ns(0, "user");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_lower_caps(NSFD_CAP(CAP_SYS_ADMIN)), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWUSER), -1);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
}

TEST_F(ns, eperm_as_uid_65534)
{
	char want[64];
	int fd;

	if (variant->ns->type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = other_ns(_metadata, variant, want, sizeof(want), false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(setns(fd, variant->ns->type), -1);
	ASSERT_EQ(errno, EPERM);
	EXPECT_FALSE(joined(variant, want));
	close(fd);
}

/* Full caps in a new user ns give none over a namespace owned outside it. */
TEST_F(ns, eperm_from_child_userns_toward_initial_namespace)
{
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(unshare(CLONE_NEWUSER), 0);
	ASSERT_EQ(setns(self->current, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

/*
 * security/commoncap.c cap_capable(): the owner of a child user ns has every
 * cap in it.
 */
TEST(root_without_caps_joins_child_userns_it_owns)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWUSER), 0) {
		TH_LOG("setns: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_self_ino("user"), nsfd_fd_ino(fd));
	close(fd);
}

/* mnt: the one entry every config has. */
TEST(closed_fd_is_ebadf)
{
	int fd = nsfd_open_ns(0, "mnt");

	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(fd, CLONE_NEWNS), -1);
	ASSERT_EQ(errno, EBADF);
}

TEST(minus_one_is_ebadf)
{
	ASSERT_EQ(setns(-1, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(-1, CLONE_NEWNS), -1);
	ASSERT_EQ(errno, EBADF);
}

/* Error order: the fd is looked up before the flags are read. */
TEST(minus_one_with_unknown_flag_is_ebadf)
{
	ASSERT_EQ(setns(-1, CLONE_VM), -1);
	ASSERT_EQ(errno, EBADF);
}

/* fdget() does not return O_PATH files (fs/file.c). */
TEST(o_path_fd_of_ns_is_ebadf)
{
	int fd = open("/proc/self/ns/mnt", O_PATH | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(fd, CLONE_NEWNS), -1);
	ASSERT_EQ(errno, EBADF);
	close(fd);
}

static void assert_not_a_namespace(struct __test_metadata *_metadata, int fd,
				   const char *what)
{
	ASSERT_GE(fd, 0) {
		TH_LOG("%s: %s", what, strerror(errno));
	}
	EXPECT_EQ(setns(fd, 0), -1);
	EXPECT_EQ(errno, EINVAL) {
		TH_LOG("%s, nstype 0", what);
	}
	EXPECT_EQ(setns(fd, CLONE_NEWNET), -1);
	EXPECT_EQ(errno, EINVAL) {
		TH_LOG("%s, CLONE_NEWNET", what);
	}
	close(fd);
}

TEST(regular_file_is_einval)
{
	assert_not_a_namespace(_metadata,
			       open("/proc/self/status", O_RDONLY | O_CLOEXEC),
			       "regular file");
}

TEST(socket_is_einval)
{
	assert_not_a_namespace(_metadata,
			       socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				      NETLINK_ROUTE),
			       "socket");
}

TEST(eventfd_is_einval)
{
	assert_not_a_namespace(_metadata, eventfd(0, EFD_CLOEXEC), "eventfd");
}

/* pidfd forms: a child in its own uts and ipc namespaces. */
static int child_own_uts_ipc(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC))
		return -errno;
	return nsfd_err(sethostname("nsfd-pidfd", strlen("nsfd-pidfd")));
}

/* Start that child; a pidfd for it. */
static int pidfd_of_child_own_uts_ipc(struct __test_metadata *_metadata,
				      struct nsfd_child *c)
{
	int pidfd;

	ASSERT_EQ(nsfd_child_start(c, child_own_uts_ipc, NULL), 0);
	pidfd = sys_pidfd_open(c->pid, 0);
	ASSERT_GE(pidfd, 0);
	return pidfd;
}

static bool same_ns_as(pid_t pid, const char *name)
{
	char mine[64], theirs[64];

	return !nsfd_ns_link(0, name, mine, sizeof(mine)) &&
	       !nsfd_ns_link(pid, name, theirs, sizeof(theirs)) &&
	       !strcmp(mine, theirs);
}

TEST(pidfd_with_one_flag_joins_only_that_namespace)
{
	struct nsfd_child c;
	struct utsname u;
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS | CLONE_NEWIPC));
	pidfd = pidfd_of_child_own_uts_ipc(_metadata, &c);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS), 0) {
		TH_LOG("setns(pidfd, CLONE_NEWUTS): %s", strerror(errno));
	}
	EXPECT_TRUE(same_ns_as(c.pid, "uts"));
	ASSERT_EQ(uname(&u), 0);
	EXPECT_STREQ(u.nodename, "nsfd-pidfd");
	EXPECT_FALSE(same_ns_as(c.pid, "ipc"));
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST(pidfd_with_several_flags_joins_each)
{
	struct nsfd_child c;
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS | CLONE_NEWIPC));
	pidfd = pidfd_of_child_own_uts_ipc(_metadata, &c);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS | CLONE_NEWIPC), 0) {
		TH_LOG("setns(pidfd, UTS|IPC): %s", strerror(errno));
	}
	EXPECT_TRUE(same_ns_as(c.pid, "uts"));
	EXPECT_TRUE(same_ns_as(c.pid, "ipc"));
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* check_setns_flags(): a pidfd needs at least one known CLONE_NEW* flag. */
TEST(pidfd_with_flags_zero_or_unknown_is_einval)
{
	struct nsfd_child c;
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS | CLONE_NEWIPC));
	pidfd = pidfd_of_child_own_uts_ipc(_metadata, &c);
	EXPECT_EQ(setns(pidfd, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(setns(pidfd, CLONE_VM), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(setns(pidfd, CLONE_NEWUTS | CLONE_VM), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_FALSE(same_ns_as(c.pid, "uts"));
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST(pidfd_of_reaped_child_is_esrch)
{
	int pidfd = nsfd_pidfd_of_reaped_child();

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS), -1);
	ASSERT_EQ(errno, ESRCH);
	close(pidfd);
}

/* Error order: check_setns_flags() answers before the task is looked up. */
TEST(pidfd_of_reaped_child_with_flags_zero_is_einval)
{
	int pidfd = nsfd_pidfd_of_reaped_child();

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(setns(pidfd, 0), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS | CLONE_VM), -1);
	ASSERT_EQ(errno, EINVAL);
	close(pidfd);
}

/* Error order: a gone task is ESRCH before any permission is checked. */
TEST(pidfd_of_reaped_child_as_uid_65534_is_esrch)
{
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	pidfd = nsfd_pidfd_of_reaped_child();
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS), -1);
	ASSERT_EQ(errno, ESRCH);
	close(pidfd);
}

/* Exited, not yet reaped: the task is there but has no nsproxy any more. */
TEST(pidfd_of_exited_unreaped_child_is_esrch)
{
	struct pollfd p;
	pid_t pid;
	int pidfd;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	pidfd = sys_pidfd_open(pid, 0);
	ASSERT_GE(pidfd, 0);
	p.fd = pidfd;
	p.events = POLLIN;
	ASSERT_EQ(poll(&p, 1, 10000), 1);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS), -1);
	ASSERT_EQ(errno, ESRCH);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	close(pidfd);
}

/*
 * An unprivileged process may join, by pidfd, the user and uts ns of a
 * task of its own uid that created them - unless that task is not
 * dumpable, when ptrace_may_access() refuses (validate_nsset()).
 */
static int nobody_setns_by_pidfd(struct __test_metadata *_metadata,
				 bool dumpable)
{
	struct nsfd_as_nobody how = {
		.flags = CLONE_NEWUSER | CLONE_NEWUTS, .dumpable = dumpable,
	};
	struct nsfd_child c;
	int pidfd, ret;

	ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare_as_nobody, &how), 0);
	pidfd = sys_pidfd_open(c.pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ret = setns(pidfd, CLONE_NEWUSER | CLONE_NEWUTS) ? errno : 0;
	if (!ret) {
		EXPECT_TRUE(same_ns_as(c.pid, "user"));
		EXPECT_TRUE(same_ns_as(c.pid, "uts"));
	}
	close(pidfd);
	nsfd_child_finish(&c);
	return ret;
}

TEST(pidfd_unprivileged_joins_userns_of_own_uid)
{
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS));
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(nobody_setns_by_pidfd(_metadata, true), 0);
}

TEST(pidfd_of_non_dumpable_task_is_eperm)
{
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS));
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(nobody_setns_by_pidfd(_metadata, false), EPERM);
}

/*
 * setns(@fd, CLONE_NEWPID) from a child in a new pid ns below ours, with
 * CAP_SYS_ADMIN lowered first when @lower: the child's errno.
 */
static int setns_pid_from_below(int fd, bool lower)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWPID))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (lower && nsfd_lower_caps(NSFD_CAP(CAP_SYS_ADMIN)))
			_exit(100);
		_exit(setns(fd, CLONE_NEWPID) ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* pidns_install(): only the active pid namespace or one below it. */
TEST(pid_ns_above_the_active_one_is_einval)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	fd = nsfd_open_ns(0, "pid");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_pid_from_below(fd, false), EINVAL);
	close(fd);
}

/*
 * pidns_install(): a pid namespace beside the active one (same level,
 * another branch) is not below it: EINVAL. From its parent it is.
 */
TEST(pid_ns_beside_the_active_one_is_einval)
{
	struct nsfd_child c;
	int fd, orig;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	/* A pid ns below ours, with its init (pid_for_children needs one). */
	orig = nsfd_open_ns(0, "pid");
	ASSERT_GE(orig, 0);
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	fd = nsfd_open_ns(c.pid, "pid");
	ASSERT_GE(fd, 0);
	/* Back to ours for children, so that a sibling can be made. */
	ASSERT_EQ(setns(orig, CLONE_NEWPID), 0);
	ASSERT_EQ(setns_pid_from_below(fd, false), EINVAL);
	ASSERT_EQ(setns(orig, CLONE_NEWPID), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWPID), 0);
	EXPECT_EQ(nsfd_self_ino("pid_for_children"), nsfd_fd_ino(fd));
	close(fd);
	close(orig);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* Error order: pidns_install() checks capabilities before the ancestry. */
TEST(pid_ns_above_without_cap_sys_admin_is_eperm)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	fd = nsfd_open_ns(0, "pid");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_pid_from_below(fd, true), EPERM);
	close(fd);
}

static void *block_on_fd(void *arg)
{
	char c;

	while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * Run setns(@fd, @type) while a second thread exists, with @lower taken
 * out of the effective set first; its errno.
 */
static int setns_with_a_thread_lowered(int fd, int type, __u64 lower)
{
	pthread_t thread;
	int p[2], ret;

	if (pipe(p))
		return -1;
	if (pthread_create(&thread, NULL, block_on_fd, &p[0]))
		return -1;
	/* capset() changes the calling thread only. */
	if (lower && nsfd_lower_caps(lower))
		return -1;
	ret = setns(fd, type) ? errno : 0;
	close(p[1]);
	pthread_join(thread, NULL);
	close(p[0]);
	return ret;
}

static int setns_with_a_thread(int fd, int type)
{
	return setns_with_a_thread_lowered(fd, type, 0);
}

/* timens_install(): EUSERS unless single-threaded. */
TEST(time_ns_from_multithreaded_process_is_eusers)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWTIME));
	fd = nsfd_detached_ns(CLONE_NEWTIME, "time", "time_for_children");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWTIME), EUSERS);
	close(fd);
}

/* Error order: timens_install() counts threads before capabilities. */
TEST(time_ns_multithreaded_without_cap_sys_admin_is_eusers)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWTIME));
	fd = nsfd_detached_ns(CLONE_NEWTIME, "time", "time_for_children");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread_lowered(fd, CLONE_NEWTIME,
					      NSFD_CAP(CAP_SYS_ADMIN)), EUSERS);
	close(fd);
}

/* userns_install(): tasks of one thread group share a user namespace. */
TEST(user_ns_from_multithreaded_process_is_einval)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWUSER), EINVAL);
	close(fd);
}

/*
 * Error order: userns_install() refuses a thread group before it checks
 * CAP_SYS_ADMIN over the target (owned by nobody: no cap there at all).
 */
TEST(user_ns_multithreaded_without_cap_sys_admin_is_einval)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	fd = nsfd_child_userns(true);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread_lowered(fd, CLONE_NEWUSER,
					      NSFD_CAP(CAP_SYS_ADMIN)), EINVAL);
	close(fd);
}

/*
 * userns_install() has two such checks, a thread group and a shared
 * fs_struct, and a thread trips both. Each alone: a thread that has
 * unshared its fs_struct, and a process (not a thread) that shares ours.
 * Once it is gone the same setns() succeeds, so the EINVAL was its doing.
 */
struct fs_thread {
	int ready[2], release[2], err;
};

static void *unshare_fs_and_block(void *arg)
{
	struct fs_thread *t = arg;

	t->err = unshare(CLONE_FS) ? errno : 0;
	if (write(t->ready[1], "r", 1) != 1)
		t->err = errno;
	block_on_fd(&t->release[0]);
	return NULL;
}

TEST(user_ns_with_a_thread_of_its_own_fs_is_einval)
{
	struct fs_thread t = { .err = 0 };
	pthread_t thread;
	char c;
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(t.ready), 0);
	ASSERT_EQ(pipe(t.release), 0);
	ASSERT_EQ(pthread_create(&thread, NULL, unshare_fs_and_block, &t), 0);
	ASSERT_EQ(read(t.ready[0], &c, 1), 1);
	ASSERT_EQ(t.err, 0);
	EXPECT_EQ(setns(fd, CLONE_NEWUSER), -1);
	EXPECT_EQ(errno, EINVAL);
	close(t.release[1]);
	ASSERT_EQ(pthread_join(thread, NULL), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWUSER), 0);
	close(fd);
}

TEST(user_ns_with_fs_struct_shared_by_another_process_is_einval)
{
	int fd, release[2], status;
	char c;
	pid_t pid;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(release), 0);
	/*
	 * No new stack: without CLONE_VM the child runs on a copy, as after
	 * fork().
	 */
	pid = syscall(SYS_clone, CLONE_FS | SIGCHLD, NULL, NULL, NULL, NULL);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(release[1]);
		while (read(release[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	EXPECT_EQ(setns(fd, CLONE_NEWUSER), -1);
	EXPECT_EQ(errno, EINVAL);
	close(release[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(setns(fd, CLONE_NEWUSER), 0);
	close(fd);
}

/* mntns_install(): EINVAL while the fs_struct is shared (threads share it). */
TEST(mnt_ns_with_shared_fs_struct_is_einval)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	fd = nsfd_detached_ns(CLONE_NEWNS, "mnt", "mnt");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWNS), EINVAL);
	close(fd);
}

/* Error order: mntns_install() checks capabilities before fs->users. */
TEST(mnt_ns_shared_fs_struct_without_cap_sys_admin_is_eperm)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	fd = nsfd_detached_ns(CLONE_NEWNS, "mnt", "mnt");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread_lowered(fd, CLONE_NEWNS,
					      NSFD_CAP(CAP_SYS_ADMIN)), EPERM);
	close(fd);
}

/*
 * A pidfd with every CLONE_NEW* flag at once (mainline's
 * pidfd_setns_test pidfd_one_shot_setns): the target is a grandchild in
 * new namespaces of every type the kernel has, all owned by a user ns
 * that root owns, so each install passes. The types and the grandchild's
 * pid are shared through a MAP_SHARED page.
 */
struct every_type {
	int types;	/* the CLONE_NEW* flags of the types the kernel has */
	pid_t pid;	/* the grandchild */
};

static int all_types(void)
{
	int flags = 0;
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++)
		if (!nsfd_ns_missing(nsfd_ns_entries[i].type))
			flags |= nsfd_ns_entries[i].type;
	return flags;
}

static int grandchild_in_new_namespaces(void *arg)
{
	struct every_type *shared = arg;
	pid_t pid;
	int err;

	err = nsfd_unshare_userns(shared->types & ~CLONE_NEWUSER);
	if (err)
		return err;
	if (sethostname("nsfd-all", strlen("nsfd-all")))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		nsfd_child_wait_release();
		_exit(0);
	}
	shared->pid = pid;
	return 0;
}

/*
 * Every entry of ours of the @types names what the target's names (pid:
 * its pid_for_children).
 */
static void assert_in_namespaces_of(struct __test_metadata *_metadata,
				    pid_t pid, int types, bool want)
{
	char mine[64], theirs[64];
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++) {
		const char *name = nsfd_ns_entries[i].name;

		if (!(nsfd_ns_entries[i].type & types) || !strcmp(name, "pid"))
			continue;
		ASSERT_EQ(nsfd_ns_link(0, name, mine, sizeof(mine)), 0);
		ASSERT_EQ(nsfd_ns_link(pid, !strcmp(name, "pid_for_children") ?
					    "pid" : name,
				       theirs, sizeof(theirs)), 0);
		EXPECT_EQ(!strcmp(mine, theirs), want) {
			TH_LOG("%s: ours %s, target's %s", name, mine, theirs);
		}
	}
}

TEST(pidfd_with_every_flag_joins_every_namespace)
{
	struct every_type *target;
	struct nsfd_child c;
	struct utsname u;
	int pidfd, err;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	target = mmap(NULL, sizeof(*target), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(target != MAP_FAILED);
	target->types = all_types();
	err = nsfd_child_start(&c, grandchild_in_new_namespaces, target);
	ASSERT_EQ(err, 0) {
		TH_LOG("child: %s", strerror(-err));
	}
	pidfd = sys_pidfd_open(target->pid, 0);
	ASSERT_GE(pidfd, 0);
	assert_in_namespaces_of(_metadata, target->pid, target->types, false);
	ASSERT_EQ(setns(pidfd, target->types), 0) {
		TH_LOG("setns(pidfd, 0x%x): %s", target->types,
		       strerror(errno));
	}
	assert_in_namespaces_of(_metadata, target->pid, target->types, true);
	ASSERT_EQ(uname(&u), 0);
	EXPECT_STREQ(u.nodename, "nsfd-all");
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
	munmap(target, sizeof(*target));
}

/*
 * All or nothing: validate_nsset() installs user, mnt, uts, ipc, pid,
 * cgroup, net, time in that order into a copy and commits only if every
 * one passed. Here uts and ipc would pass, pid fails (the target's pid
 * ns is above ours: EINVAL), and we must still be where we were.
 */
TEST(pidfd_setns_is_all_or_nothing)
{
	char uts[64], ipc[64], now[64];
	struct nsfd_child c;
	int pidfd, status;
	pid_t pid;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUTS | CLONE_NEWIPC |
					     CLONE_NEWPID));
	ASSERT_EQ(nsfd_child_start(&c, child_own_uts_ipc, NULL), 0);
	pidfd = sys_pidfd_open(c.pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int ret;

		if (nsfd_ns_link(0, "uts", uts, sizeof(uts)) ||
		    nsfd_ns_link(0, "ipc", ipc, sizeof(ipc)))
			_exit(101);
		ret = setns(pidfd,
			    CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID) ?
		      errno : 0;
		if (nsfd_ns_link(0, "uts", now, sizeof(now)) ||
		    strcmp(now, uts))
			_exit(102);
		if (nsfd_ns_link(0, "ipc", now, sizeof(now)) ||
		    strcmp(now, ipc))
			_exit(103);
		_exit(ret);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(WEXITSTATUS(status), 102) {
		TH_LOG("uts changed by a setns that failed");
	}
	EXPECT_NE(WEXITSTATUS(status), 103) {
		TH_LOG("ipc changed by a setns that failed");
	}
	EXPECT_EQ(WEXITSTATUS(status), EINVAL);
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* The same with the last type failing: time from a thread group (EUSERS). */
TEST(pidfd_setns_failing_on_time_changes_nothing)
{
	char uts[64], ipc[64], now[64];
	struct nsfd_child c;
	int pidfd, type = CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWTIME;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(type));
	ASSERT_EQ(nsfd_child_start(&c, nsfd_do_unshare, &type), 0);
	pidfd = sys_pidfd_open(c.pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_ns_link(0, "uts", uts, sizeof(uts)), 0);
	ASSERT_EQ(nsfd_ns_link(0, "ipc", ipc, sizeof(ipc)), 0);
	EXPECT_FALSE(same_ns_as(c.pid, "uts"));
	ASSERT_EQ(setns_with_a_thread(pidfd, type), EUSERS);
	ASSERT_EQ(nsfd_ns_link(0, "uts", now, sizeof(now)), 0);
	EXPECT_STREQ(now, uts);
	ASSERT_EQ(nsfd_ns_link(0, "ipc", now, sizeof(now)), 0);
	EXPECT_STREQ(now, ipc);
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/*
 * SysV semaphores: commit_nsset() calls exit_sem() whenever CLONE_NEWIPC
 * is set, so the SEM_UNDO adjustments are applied at setns, as at exit.
 */
struct sem_worker {
	int semid;
	int fd;
	int type;
};

/* +2 without undo, +1 with SEM_UNDO, then setns(fd, type); stays alive. */
static int sem_worker(void *arg)
{
	struct sem_worker *w = arg;
	struct sembuf plain = { .sem_num = 0, .sem_op = 2 };
	struct sembuf undo = { .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO };

	if (semop(w->semid, &plain, 1) || semop(w->semid, &undo, 1))
		return -errno;
	if (semctl(w->semid, 0, GETVAL) != 3)
		return -EPROTO;
	return nsfd_err(setns(w->fd, w->type));
}

/* The semaphore value after a worker's setns(@fd, @type), seen from here. */
static int semval_after_worker_setns(struct __test_metadata *_metadata,
				     int semid, int fd, int type)
{
	struct sem_worker w = { .semid = semid, .fd = fd, .type = type };
	struct nsfd_child c;
	int val, err;

	err = nsfd_child_start(&c, sem_worker, &w);
	ASSERT_EQ(err, 0) {
		TH_LOG("worker: %s", strerror(-err));
	}
	/* The worker is still alive: any change is the setns's doing. */
	val = semctl(semid, 0, GETVAL);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
	return val;
}

FIXTURE(sem) {
	int other;	/* a fresh IPC namespace nobody is in */
	int here;	/* the private IPC namespace the test is in */
	int semid;
};

FIXTURE_SETUP(sem)
{
	self->other = -1;
	self->here = -1;
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWIPC));
	self->other = nsfd_detached_ns(CLONE_NEWIPC, "ipc", "ipc");
	ASSERT_GE(self->other, 0);
	ASSERT_EQ(unshare(CLONE_NEWIPC), 0);
	self->here = nsfd_open_ns(0, "ipc");
	ASSERT_GE(self->here, 0);
	self->semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	ASSERT_GE(self->semid, 0);
}

FIXTURE_TEARDOWN(sem)
{
	if (self->other >= 0)
		close(self->other);
	if (self->here >= 0)
		close(self->here);
}

TEST_F(sem, setns_to_other_ipc_ns_applies_semadj)
{
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, self->other,
					    CLONE_NEWIPC), 2);
}

TEST_F(sem, setns_to_same_ipc_ns_applies_semadj_too)
{
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, self->here,
					    0), 2);
}

/* The control: a setns of another type leaves the undo pending. */
TEST_F(sem, setns_of_other_type_keeps_semadj)
{
	int cgroup = nsfd_open_ns(0, "cgroup");

	ASSERT_GE(cgroup, 0);
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, cgroup,
					    CLONE_NEWCGROUP), 3);
	close(cgroup);
}

TEST_F(sem, semaphore_is_not_visible_from_other_ipc_ns)
{
	ASSERT_EQ(setns(self->other, CLONE_NEWIPC), 0);
	ASSERT_EQ(semctl(self->semid, 0, GETVAL), -1);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(setns(self->here, CLONE_NEWIPC), 0);
	ASSERT_EQ(semctl(self->semid, 0, GETVAL), 0);
}

TEST_HARNESS_MAIN
