// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/ns: the set of entries (exactly the types the kernel has),
 * what each one is, of a zombie and of another uid's task; the nsfs
 * ioctls (NS_GET_NSTYPE, NS_GET_USERNS, NS_GET_PARENT, NS_GET_OWNER_UID,
 * NS_GET_MNTNS_ID, the pid translations) and pidfd's
 * PIDFD_GET_*_NAMESPACE; a namespace keeping its owning user ns alive.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/nsfs.h>

/* 6.12's include/uapi/linux/nsfs.h, for older uapi headers. */
#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID		_IOR(NSIO, 0x5, __u64)
#endif
#ifndef NS_GET_PID_FROM_PIDNS
#define NS_GET_PID_FROM_PIDNS	_IOR(NSIO, 0x6, int)
#define NS_GET_TGID_FROM_PIDNS	_IOR(NSIO, 0x7, int)
#define NS_GET_PID_IN_PIDNS	_IOR(NSIO, 0x8, int)
#define NS_GET_TGID_IN_PIDNS	_IOR(NSIO, 0x9, int)
#endif

#include "nsfd_rtnl.h"
#include "../kselftest_harness.h"

/* An ioctl number in nsfs's range that nsfs does not define. */
#define NS_UNKNOWN_IOCTL	_IO(NSIO, 0x7f)

/*
 * The directory holds exactly the entries of the namespace types this
 * kernel has (fs/proc/namespaces.c ns_entries[] is #ifdef'd per option):
 * all ten on a full config, fewer with CONFIG_NET_NS, CONFIG_USER_NS or
 * CONFIG_TIME_NS off. Which types the kernel has comes from unshare()
 * in a child (EINVAL: off), not from the directory itself.
 */
TEST(directory_lists_exactly_the_configured_entries)
{
	bool seen[NSFD_NR_NS] = {};
	unsigned int i;
	struct dirent *de;
	DIR *dir;

	for (i = 0; i < NSFD_NR_NS; i++) {
		const struct nsfd_type_probe *p;

		p = nsfd_type(nsfd_ns_entries[i].type);
		if (p->have == NSFD_UNKNOWN)
			SKIP(return, "%s", p->why);
	}
	dir = opendir("/proc/self/ns");
	ASSERT_TRUE(dir != NULL);
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		for (i = 0; i < NSFD_NR_NS; i++)
			if (!strcmp(de->d_name, nsfd_ns_entries[i].name))
				break;
		EXPECT_LT(i, NSFD_NR_NS) {
			TH_LOG("unexpected entry %s", de->d_name);
		}
		if (i < NSFD_NR_NS)
			seen[i] = true;
	}
	closedir(dir);
	for (i = 0; i < NSFD_NR_NS; i++) {
		const struct nsfd_ns *e = &nsfd_ns_entries[i];
		bool have = nsfd_ns_have(e->type) == NSFD_YES;

		EXPECT_EQ(seen[i], have) {
			TH_LOG("%s: %s, but the kernel %s that type (%s)",
			       e->name, seen[i] ? "listed" : "not listed",
			       have ? "has" : "lacks",
			       e->config ?: "always built in");
		}
	}
}

FIXTURE(entry) {
	int fd;
	char link[64];
};

FIXTURE_VARIANT(entry) {
	const struct nsfd_ns *ns;
};

FIXTURE_VARIANT_ADD(entry, cgroup) {
	.ns = &nsfd_ns_entries[NSFD_NS_cgroup],
};

FIXTURE_VARIANT_ADD(entry, ipc) {
	.ns = &nsfd_ns_entries[NSFD_NS_ipc],
};

FIXTURE_VARIANT_ADD(entry, mnt) {
	.ns = &nsfd_ns_entries[NSFD_NS_mnt],
};

FIXTURE_VARIANT_ADD(entry, net) {
	.ns = &nsfd_ns_entries[NSFD_NS_net],
};

FIXTURE_VARIANT_ADD(entry, pid) {
	.ns = &nsfd_ns_entries[NSFD_NS_pid],
};

FIXTURE_VARIANT_ADD(entry, pid_for_children) {
	.ns = &nsfd_ns_entries[NSFD_NS_pid_for_children],
};

FIXTURE_VARIANT_ADD(entry, time) {
	.ns = &nsfd_ns_entries[NSFD_NS_time],
};

FIXTURE_VARIANT_ADD(entry, time_for_children) {
	.ns = &nsfd_ns_entries[NSFD_NS_time_for_children],
};

FIXTURE_VARIANT_ADD(entry, user) {
	.ns = &nsfd_ns_entries[NSFD_NS_user],
};

FIXTURE_VARIANT_ADD(entry, uts) {
	.ns = &nsfd_ns_entries[NSFD_NS_uts],
};

FIXTURE_SETUP(entry)
{
	self->fd = -1;
	NSFD_SKIP_IF(return, nsfd_ns_missing(variant->ns->type));
	self->fd = nsfd_open_ns(0, variant->ns->name);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("open /proc/self/ns/%s: %s", variant->ns->name,
		       strerror(-self->fd));
	}
	ASSERT_EQ(nsfd_ns_link(0, variant->ns->name, self->link,
			       sizeof(self->link)), 0);
}

FIXTURE_TEARDOWN(entry)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* readlink gives "<type>:[<inode>]", the inode being the nsfs file's. */
TEST_F(entry, link_reads_type_and_inode)
{
	char want[64];

	snprintf(want, sizeof(want), "%s:[%lu]", variant->ns->real_name,
		 (unsigned long)nsfd_fd_ino(self->fd));
	ASSERT_STREQ(want, self->link);
	ASSERT_EQ(nsfd_self_ino(variant->ns->name), nsfd_fd_ino(self->fd));
}

/* Another process in the same namespace shows the same inode. */
TEST_F(entry, process_in_same_namespace_sees_same_inode)
{
	struct nsfd_child c;
	char link[64];
	int fd;

	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_ns_link(c.pid, variant->ns->name, link, sizeof(link)),
		  0);
	EXPECT_STREQ(self->link, link);
	fd = nsfd_open_ns(c.pid, variant->ns->name);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(nsfd_fd_ino(fd), nsfd_fd_ino(self->fd));
	close(fd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/*
 * After unshare(CLONE_NEW*), a new task shows a different inode (for pid
 * and time only the children enter the new namespace, so ask a child).
 */
TEST_F(entry, unshare_gives_a_different_inode)
{
	struct nsfd_child c;
	char link[64];
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	if (variant->ns->type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(unshare(variant->ns->type), 0) {
		TH_LOG("unshare(%s): %s", variant->ns->name, strerror(errno));
	}
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_ns_link(c.pid, variant->ns->name, link, sizeof(link)),
		  0);
	EXPECT_STRNE(self->link, link);
	EXPECT_EQ(strncmp(link, variant->ns->real_name,
			  strlen(variant->ns->real_name)), 0);
	fd = nsfd_open_ns(c.pid, variant->ns->name);
	ASSERT_GE(fd, 0);
	EXPECT_NE(nsfd_fd_ino(fd), nsfd_fd_ino(self->fd));
	close(fd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST_F(entry, ns_get_nstype_is_its_clone_flag)
{
	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	ASSERT_EQ(ioctl(self->fd, NS_GET_NSTYPE), variant->ns->type);
}

/* NS_GET_USERNS: the owning user namespace, EPERM for init_user_ns. */
TEST_F(entry, ns_get_userns_gives_the_owner)
{
	int owner;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	owner = ioctl(self->fd, NS_GET_USERNS);
	/* Without CONFIG_USER_NS no namespace names an owner: EPERM. */
	if (variant->ns->type == CLONE_NEWUSER ||
	    nsfd_ns_missing(CLONE_NEWUSER)) {
		ASSERT_EQ(owner, -1);
		ASSERT_EQ(errno, EPERM);
		return;
	}
	ASSERT_GE(owner, 0) {
		TH_LOG("NS_GET_USERNS: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(owner), nsfd_self_ino("user"));
	EXPECT_EQ(ioctl(owner, NS_GET_NSTYPE), CLONE_NEWUSER);
	close(owner);
}

/* NS_GET_PARENT: EINVAL without a hierarchy, EPERM at the top of one. */
TEST_F(entry, ns_get_parent_in_initial_namespace)
{
	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	ASSERT_EQ(ioctl(self->fd, NS_GET_PARENT), -1);
	ASSERT_EQ(errno, variant->ns->has_parent ? EPERM : EINVAL);
}

/* NS_GET_OWNER_UID: EINVAL on every type but user; init_user_ns is uid 0. */
TEST_F(entry, ns_get_owner_uid_only_on_user_ns)
{
	uid_t uid = 12345;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	if (variant->ns->type != CLONE_NEWUSER) {
		ASSERT_EQ(ioctl(self->fd, NS_GET_OWNER_UID, &uid), -1);
		ASSERT_EQ(errno, EINVAL);
		ASSERT_EQ(uid, (uid_t)12345);
		return;
	}
	ASSERT_EQ(ioctl(self->fd, NS_GET_OWNER_UID, &uid), 0);
	ASSERT_EQ(uid, (uid_t)0);
}

/*
 * Not FIONREAD: fs/ioctl.c do_vfs_ioctl() answers it for every S_IFREG
 * inode, nsfs ones included (0 bytes), before ns_ioctl() is asked.
 */
TEST_F(entry, unknown_ioctl_is_enotty)
{
	struct termios t;

	ASSERT_EQ(ioctl(self->fd, NS_UNKNOWN_IOCTL), -1);
	ASSERT_EQ(errno, ENOTTY);
	ASSERT_EQ(ioctl(self->fd, TCGETS, &t), -1);
	ASSERT_EQ(errno, ENOTTY);
}

/*
 * PIDFD_GET_<entry>_NAMESPACE opens the same namespace as
 * /proc/self/ns/<entry>.
 */
TEST_F(entry, pidfd_get_namespace_opens_the_same_namespace)
{
	int pidfd = sys_pidfd_open(getpid(), 0), fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	ASSERT_GE(pidfd, 0);
	fd = ioctl(pidfd, variant->ns->pidfd_get, 0);
	if (fd < 0 && errno == ENOTTY)
		SKIP(return,
		     "PIDFD_GET_*_NAMESPACE (%s): ENOTTY (kernel before 6.11)",
		     variant->ns->name);
	ASSERT_GE(fd, 0) {
		TH_LOG("PIDFD_GET_%s_NAMESPACE: %s", variant->ns->name,
		       strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(fd), nsfd_fd_ino(self->fd));
	EXPECT_EQ(ioctl(fd, NS_GET_NSTYPE), variant->ns->type);
	EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	close(pidfd);
}

/* The ioctl takes no argument: a non-zero one is EINVAL (pidfd_ioctl()). */
TEST(pidfd_get_namespace_with_argument_is_einval)
{
	int pidfd = sys_pidfd_open(getpid(), 0);

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 1), -1);
	if (errno == ENOTTY)
		SKIP(return,
		     "PIDFD_GET_MNT_NAMESPACE: ENOTTY (kernel before 6.11)");
	ASSERT_EQ(errno, EINVAL);
	close(pidfd);
}

TEST(pidfd_get_namespace_of_reaped_child_is_esrch)
{
	int pidfd = nsfd_pidfd_of_reaped_child();

	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 0), -1);
	if (errno == ENOTTY)
		SKIP(return,
		     "PIDFD_GET_MNT_NAMESPACE: ENOTTY (kernel before 6.11)");
	ASSERT_EQ(errno, ESRCH);
	close(pidfd);
}

/* The ptrace read check (PTRACE_MODE_READ_FSCREDS): EACCES for another uid. */
TEST(pidfd_get_namespace_of_root_task_as_uid_65534_is_eacces)
{
	struct nsfd_child c;
	int pidfd;

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	pidfd = sys_pidfd_open(c.pid, 0);
	ASSERT_GE(pidfd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(ioctl(pidfd, PIDFD_GET_MNT_NAMESPACE, 0), -1);
	if (errno == ENOTTY)
		SKIP(return,
		     "PIDFD_GET_MNT_NAMESPACE: ENOTTY (kernel before 6.11)");
	ASSERT_EQ(errno, EACCES);
	close(pidfd);
	nsfd_child_finish(&c);
}

/* NS_GET_MNTNS_ID: one id per mount namespace; a newer one has a larger id. */
TEST(ns_get_mntns_id_is_per_namespace_and_grows)
{
	__u64 mine = 0, again = 0, fresh = 0;
	int fd, other;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	fd = nsfd_open_ns(0, "mnt");
	ASSERT_GE(fd, 0);
	if (ioctl(fd, NS_GET_MNTNS_ID, &mine) && errno == ENOTTY)
		SKIP(return, "NS_GET_MNTNS_ID: ENOTTY (kernel before 6.10)");
	ASSERT_NE(mine, 0ULL);
	other = nsfd_open_ns(0, "mnt");
	ASSERT_GE(other, 0);
	ASSERT_EQ(ioctl(other, NS_GET_MNTNS_ID, &again), 0);
	EXPECT_EQ(again, mine);
	close(other);
	other = nsfd_detached_ns(CLONE_NEWNS, "mnt", "mnt");
	ASSERT_GE(other, 0);
	ASSERT_EQ(ioctl(other, NS_GET_MNTNS_ID, &fresh), 0);
	EXPECT_GT(fresh, mine);
	close(other);
	close(fd);
}

TEST(ns_get_mntns_id_on_other_types_is_einval)
{
	unsigned int i;
	__u64 id = 7;
	int fd, err;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	/* Whether the kernel has the ioctl at all: ask a mount ns fd. */
	fd = nsfd_open_ns(0, "mnt");
	ASSERT_GE(fd, 0);
	err = ioctl(fd, NS_GET_MNTNS_ID, &id) ? errno : 0;
	close(fd);
	if (err == ENOTTY)
		SKIP(return, "NS_GET_MNTNS_ID: ENOTTY (kernel before 6.10)");
	id = 7;
	for (i = 0; i < NSFD_NR_NS; i++) {
		if (nsfd_ns_entries[i].type == CLONE_NEWNS ||
		    nsfd_ns_have(nsfd_ns_entries[i].type) != NSFD_YES)
			continue;
		fd = nsfd_open_ns(0, nsfd_ns_entries[i].name);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(ioctl(fd, NS_GET_MNTNS_ID, &id), -1);
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("%s: %s", nsfd_ns_entries[i].name,
			       strerror(errno));
		}
		EXPECT_EQ(id, 7ULL);
		close(fd);
	}
}

/*
 * The pid translation ioctls on a child pid ns whose init is our child C:
 * pid 1 there is C here (FROM_PIDNS), C here is 1 there (IN_PIDNS); we
 * are not in it (ESRCH); the argument is the pid itself, not a pointer.
 */
FIXTURE(pidns) {
	struct nsfd_child c;
	int fd;
};

FIXTURE_SETUP(pidns)
{
	self->c.pid = 0;
	self->fd = -1;
	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	ASSERT_EQ(nsfd_child_start(&self->c, NULL, NULL), 0);
	self->fd = nsfd_open_ns(self->c.pid, "pid");
	ASSERT_GE(self->fd, 0);
	if (ioctl(self->fd, NS_GET_PID_FROM_PIDNS, 1) < 0 && errno == ENOTTY)
		SKIP(return,
		     "NS_GET_PID_FROM_PIDNS: ENOTTY (kernel before 6.11)");
}

FIXTURE_TEARDOWN(pidns)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->c.pid > 0)
		nsfd_child_finish(&self->c);
}

TEST_F(pidns, pid_from_pidns_translates_its_pid_1_to_ours)
{
	ASSERT_EQ(ioctl(self->fd, NS_GET_PID_FROM_PIDNS, 1), self->c.pid);
	ASSERT_EQ(ioctl(self->fd, NS_GET_TGID_FROM_PIDNS, 1), self->c.pid);
}

TEST_F(pidns, pid_in_pidns_translates_our_pid_to_its_1)
{
	ASSERT_EQ(ioctl(self->fd, NS_GET_PID_IN_PIDNS, self->c.pid), 1);
	ASSERT_EQ(ioctl(self->fd, NS_GET_TGID_IN_PIDNS, self->c.pid), 1);
}

TEST_F(pidns, pid_in_pidns_of_a_task_outside_it_is_esrch)
{
	ASSERT_EQ(ioctl(self->fd, NS_GET_PID_IN_PIDNS, getpid()), -1);
	ASSERT_EQ(errno, ESRCH);
	ASSERT_EQ(ioctl(self->fd, NS_GET_TGID_IN_PIDNS, getpid()), -1);
	ASSERT_EQ(errno, ESRCH);
}

TEST_F(pidns, pid_from_pidns_of_an_unused_pid_is_esrch)
{
	ASSERT_EQ(ioctl(self->fd, NS_GET_PID_FROM_PIDNS, 2), -1);
	ASSERT_EQ(errno, ESRCH);
}

TEST(pid_translation_on_other_types_is_einval)
{
	int fd = nsfd_open_ns(0, "mnt");

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, NS_GET_PID_FROM_PIDNS, 1), -1);
	if (errno == ENOTTY)
		SKIP(return,
		     "NS_GET_PID_FROM_PIDNS: ENOTTY (kernel before 6.11)");
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(ioctl(fd, NS_GET_PID_IN_PIDNS, getpid()), -1);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
}

/* The fd that NS_GET_USERNS installs is close-on-exec. */
TEST(ns_get_userns_fd_is_cloexec)
{
	int fd = nsfd_open_ns(0, "mnt"), owner;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	ASSERT_GE(fd, 0);
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUSER));
	owner = ioctl(fd, NS_GET_USERNS);
	ASSERT_GE(owner, 0);
	EXPECT_EQ(fcntl(owner, F_GETFD), FD_CLOEXEC);
	close(owner);
	close(fd);
}

/* In a new user namespace, a namespace created there is owned by it. */
TEST(ns_get_userns_from_child_userns_names_it)
{
	int fd, owner;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(unshare(CLONE_NEWUSER | CLONE_NEWNS), 0);
	fd = nsfd_open_ns(0, "mnt");
	ASSERT_GE(fd, 0);
	owner = ioctl(fd, NS_GET_USERNS);
	ASSERT_GE(owner, 0) {
		TH_LOG("NS_GET_USERNS: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(owner), nsfd_self_ino("user"));
	close(owner);
	close(fd);
}

/* From inside a user namespace, an owner above it is not revealed. */
TEST(ns_get_userns_of_outer_namespace_is_eperm_from_child_userns)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_open_ns(0, "mnt");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(unshare(CLONE_NEWUSER), 0);
	ASSERT_EQ(ioctl(fd, NS_GET_USERNS), -1);
	ASSERT_EQ(errno, EPERM);
	close(fd);
}

/* The parent of a child pid namespace is ours; its parent is EPERM. */
TEST(ns_get_parent_of_child_pidns_is_ours)
{
	struct nsfd_child c;
	int fd, parent;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	fd = nsfd_open_ns(c.pid, "pid");
	ASSERT_GE(fd, 0);
	EXPECT_NE(nsfd_fd_ino(fd), nsfd_self_ino("pid"));
	parent = ioctl(fd, NS_GET_PARENT);
	ASSERT_GE(parent, 0) {
		TH_LOG("NS_GET_PARENT: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(parent), nsfd_self_ino("pid"));
	EXPECT_EQ(ioctl(parent, NS_GET_PARENT), -1);
	EXPECT_EQ(errno, EPERM);
	close(parent);
	close(fd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* The parent of a child user namespace is ours; its parent is EPERM. */
TEST(ns_get_parent_of_child_userns_is_ours)
{
	int fd, parent;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	EXPECT_NE(nsfd_fd_ino(fd), nsfd_self_ino("user"));
	parent = ioctl(fd, NS_GET_PARENT);
	ASSERT_GE(parent, 0) {
		TH_LOG("NS_GET_PARENT: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(parent), nsfd_self_ino("user"));
	EXPECT_EQ(ioctl(parent, NS_GET_PARENT), -1);
	EXPECT_EQ(errno, EPERM);
	close(parent);
	close(fd);
}

/* NS_GET_OWNER_UID: the euid of the creator, seen from here. */
TEST(ns_get_owner_uid_of_userns_created_by_root_is_0)
{
	uid_t uid = 12345;
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, NS_GET_OWNER_UID, &uid), 0);
	ASSERT_EQ(uid, (uid_t)0);
	close(fd);
}

TEST(ns_get_owner_uid_of_userns_created_by_nobody_is_65534)
{
	uid_t uid = 12345;
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	fd = nsfd_child_userns(true);
	ASSERT_GE(fd, 0) {
		TH_LOG("uid 65534 unshare(CLONE_NEWUSER): %s", strerror(-fd));
	}
	ASSERT_EQ(ioctl(fd, NS_GET_OWNER_UID, &uid), 0);
	ASSERT_EQ(uid, (uid_t)NOBODY_UID);
	close(fd);
}

TEST(ns_get_owner_uid_to_bad_pointer_is_efault)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWUSER));
	fd = nsfd_open_ns(0, "user");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, NS_GET_OWNER_UID, (uid_t *)8), -1);
	ASSERT_EQ(errno, EFAULT);
	close(fd);
}

/*
 * A new pid namespace has no child reaper until the first fork:
 * pid_for_children has no link (ENOENT) until then, and then names the
 * child's pid namespace.
 */
TEST(pid_for_children_has_no_link_before_first_child)
{
	struct nsfd_child c;
	char mine[64], child_ns[64];

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	ASSERT_EQ(nsfd_ns_link(0, "pid_for_children", mine, sizeof(mine)),
		  -ENOENT);
	ASSERT_EQ(nsfd_open_ns(0, "pid_for_children"), -ENOENT);
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_ns_link(0, "pid_for_children", mine, sizeof(mine)), 0);
	ASSERT_EQ(nsfd_ns_link(c.pid, "pid", child_ns, sizeof(child_ns)), 0);
	EXPECT_STREQ(mine, child_ns);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* A new time namespace is there at once, unlike pid: no reaper needed. */
TEST(time_for_children_differs_right_after_unshare)
{
	char now[64], children[64];

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWTIME));
	ASSERT_EQ(unshare(CLONE_NEWTIME), 0);
	ASSERT_EQ(nsfd_ns_link(0, "time", now, sizeof(now)), 0);
	ASSERT_EQ(nsfd_ns_link(0, "time_for_children", children,
			       sizeof(children)), 0);
	EXPECT_STRNE(now, children);
	EXPECT_EQ(strncmp(children, "time:[", 6), 0);
}

/*
 * From inside a child pid ns, the parent of one's own pid ns is outside
 * it: EPERM (pidns_get_parent()). A pid ns below ours: its parent is ours.
 */
static int parent_from_inside_pidns(void *arg)
{
	struct nsfd_child c;
	int fd, parent, ret = 0;

	(void)arg;
	fd = nsfd_open_ns(0, "pid");
	if (fd < 0)
		return 10;
	if (ioctl(fd, NS_GET_PARENT) != -1 || errno != EPERM)
		return 11;
	if (unshare(CLONE_NEWPID) || nsfd_child_start(&c, NULL, NULL))
		return 12;
	close(fd);
	/* c.pid is a pid of our pid ns; /proc is the outer one's: ask ours. */
	fd = nsfd_open_ns(0, "pid_for_children");
	parent = fd < 0 ? -1 : ioctl(fd, NS_GET_PARENT);
	if (parent < 0 || nsfd_fd_ino(parent) != nsfd_self_ino("pid"))
		ret = 13;
	nsfd_child_finish(&c);
	return ret;
}

TEST(ns_get_parent_from_inside_child_pidns)
{
	int status;
	pid_t pid;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWPID));
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(parent_from_inside_pidns(NULL));
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(WEXITSTATUS(status), 11) {
		TH_LOG("NS_GET_PARENT of our pid ns, from inside: not EPERM");
	}
	EXPECT_NE(WEXITSTATUS(status), 13) {
		TH_LOG("NS_GET_PARENT of a pid ns below ours: not ours");
	}
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/*
 * From inside a child user ns, its parent is outside: EPERM (ns_get_owner()).
 */
TEST(ns_get_parent_of_own_userns_from_inside_is_eperm)
{
	int fd;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(nsfd_unshare_userns(0), 0);
	fd = nsfd_open_ns(0, "user");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, NS_GET_PARENT), -1);
	ASSERT_EQ(errno, EPERM);
	close(fd);
}

/* One level further down, the parent is the user ns we are in. */
TEST(ns_get_parent_from_inside_child_userns_gives_it)
{
	int fd, parent;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(nsfd_unshare_userns(0), 0);
	fd = nsfd_child_userns(false);
	ASSERT_GE(fd, 0);
	parent = ioctl(fd, NS_GET_PARENT);
	ASSERT_GE(parent, 0) {
		TH_LOG("NS_GET_PARENT: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(parent), nsfd_self_ino("user"));
	close(parent);
	close(fd);
}

/*
 * A namespace keeps its owning user ns alive (mainline nsfs/owner.c):
 * a child creates user ns U and a mnt ns in it, and exits; we hold only
 * the mnt ns fd. U is still there, the same inode, owned by uid 65534's
 * creator (ourselves here: 0). The free of a user ns is a work item:
 * flush it first, so that a missing reference cannot hide.
 */
static int make_userns_and_mntns(void *ino)
{
	int err = nsfd_unshare_userns(CLONE_NEWNS);

	if (err)
		return err;
	*(ino_t *)ino = nsfd_self_ino("user");
	return 0;
}

TEST(namespace_keeps_its_owning_userns_alive)
{
	struct nsfd_child c;
	ino_t *owner_ino;
	const char *why;
	uid_t uid = 12345;
	int fd, owner;

	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	owner_ino = mmap(NULL, sizeof(*owner_ino), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(owner_ino != MAP_FAILED);
	ASSERT_EQ(nsfd_child_start(&c, make_userns_and_mntns, owner_ino), 0);
	fd = nsfd_open_ns(c.pid, "mnt");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
	why = nsfd_why_not_root();
	if (!why)
		why = nsfd_flush_netns_cleanup();
	if (why)
		TH_LOG("async frees not flushed (%s)", why);
	owner = ioctl(fd, NS_GET_USERNS);
	ASSERT_GE(owner, 0) {
		TH_LOG("NS_GET_USERNS: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_fd_ino(owner), *owner_ino);
	EXPECT_NE(nsfd_fd_ino(owner), nsfd_self_ino("user"));
	EXPECT_EQ(ioctl(owner, NS_GET_NSTYPE), CLONE_NEWUSER);
	ASSERT_EQ(ioctl(owner, NS_GET_OWNER_UID, &uid), 0);
	EXPECT_EQ(uid, geteuid());
	close(owner);
	close(fd);
}

/*
 * /proc/<pid>/ns of a zombie: exit_task_namespaces() has dropped its
 * nsproxy, so every entry reached through it is ENOENT; user (its creds)
 * and pid (its struct pid) still answer.
 */
TEST_F(entry, zombie_keeps_only_user_and_pid)
{
	bool kept = variant->ns->type == CLONE_NEWUSER ||
		    !strcmp(variant->ns->name, "pid");
	siginfo_t info;
	char link[64];
	pid_t pid;
	int fd;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(waitid(P_PID, pid, &info, WEXITED | WNOWAIT), 0);
	fd = nsfd_open_ns(pid, variant->ns->name);
	if (kept) {
		EXPECT_GE(fd, 0);
		EXPECT_EQ(nsfd_fd_ino(fd), nsfd_fd_ino(self->fd));
		EXPECT_EQ(nsfd_ns_link(pid, variant->ns->name, link,
				       sizeof(link)), 0);
		EXPECT_STREQ(link, self->link);
	} else {
		EXPECT_EQ(fd, -ENOENT);
		EXPECT_EQ(nsfd_ns_link(pid, variant->ns->name, link,
				       sizeof(link)), -ENOENT);
	}
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
}

/*
 * Another uid's task: no PTRACE_MODE_READ_FSCREDS, so EACCES for link and
 * open. Both walk from /proc as opened at start (nsfd_proc_dir): the
 * EACCES is the ptrace check's, not that of a root directory uid 65534
 * may not search.
 */
TEST_F(entry, other_uid_task_entry_is_eacces)
{
	struct nsfd_child c;
	char link[64];

	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	EXPECT_EQ(nsfd_ns_link(c.pid, variant->ns->name, link, sizeof(link)),
		  -EACCES);
	EXPECT_EQ(nsfd_open_ns(c.pid, variant->ns->name), -EACCES);
	nsfd_child_finish(&c);
}

TEST_HARNESS_MAIN
