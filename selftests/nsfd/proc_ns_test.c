// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/ns: the set of entries, what each one is, and the nsfs
 * ioctls (NS_GET_NSTYPE, NS_GET_USERNS, NS_GET_PARENT, NS_GET_OWNER_UID).
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
#include <linux/nsfs.h>

#include "nsfd_helpers.h"
#include "../kselftest_harness.h"

/* An ioctl number in nsfs's range that nsfs does not define. */
#define NS_UNKNOWN_IOCTL	_IO(NSIO, 0x7f)

/* The directory holds exactly the ten entries of a full 6.12 config. */
TEST(directory_lists_exactly_the_known_entries)
{
	unsigned int seen = 0, i;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/proc/self/ns");
	ASSERT_NE(dir, NULL);
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		for (i = 0; i < NSFD_NR_NS; i++)
			if (!strcmp(de->d_name, nsfd_ns_entries[i].name))
				break;
		EXPECT_LT(i, NSFD_NR_NS) {
			TH_LOG("unexpected entry %s", de->d_name);
		}
		seen++;
	}
	closedir(dir);
	EXPECT_EQ(seen, NSFD_NR_NS);
}

FIXTURE(entry) {
	int fd;
	char link[64];
};

FIXTURE_VARIANT(entry) {
	const char *name;
	const char *real_name;
	int type;
	int userns_errno;	/* NS_GET_USERNS from the initial namespaces */
	int parent_errno;	/* NS_GET_PARENT from the initial namespaces */
};

FIXTURE_VARIANT_ADD(entry, cgroup) {
	.name = "cgroup", .real_name = "cgroup", .type = CLONE_NEWCGROUP,
	.parent_errno = EINVAL,
};

FIXTURE_VARIANT_ADD(entry, ipc) {
	.name = "ipc", .real_name = "ipc", .type = CLONE_NEWIPC,
	.parent_errno = EINVAL,
};

FIXTURE_VARIANT_ADD(entry, mnt) {
	.name = "mnt", .real_name = "mnt", .type = CLONE_NEWNS,
	.parent_errno = EINVAL,
};

FIXTURE_VARIANT_ADD(entry, net) {
	.name = "net", .real_name = "net", .type = CLONE_NEWNET,
	.parent_errno = EINVAL,
};

/* pid and user have a parent; at the top NS_GET_PARENT is EPERM. */
FIXTURE_VARIANT_ADD(entry, pid) {
	.name = "pid", .real_name = "pid", .type = CLONE_NEWPID,
	.parent_errno = EPERM,
};

FIXTURE_VARIANT_ADD(entry, pid_for_children) {
	.name = "pid_for_children", .real_name = "pid", .type = CLONE_NEWPID,
	.parent_errno = EPERM,
};

FIXTURE_VARIANT_ADD(entry, time) {
	.name = "time", .real_name = "time", .type = CLONE_NEWTIME,
	.parent_errno = EINVAL,
};

FIXTURE_VARIANT_ADD(entry, time_for_children) {
	.name = "time_for_children", .real_name = "time", .type = CLONE_NEWTIME,
	.parent_errno = EINVAL,
};

/* The initial user namespace has no owner: NS_GET_USERNS is EPERM. */
FIXTURE_VARIANT_ADD(entry, user) {
	.name = "user", .real_name = "user", .type = CLONE_NEWUSER,
	.userns_errno = EPERM, .parent_errno = EPERM,
};

FIXTURE_VARIANT_ADD(entry, uts) {
	.name = "uts", .real_name = "uts", .type = CLONE_NEWUTS,
	.parent_errno = EINVAL,
};

FIXTURE_SETUP(entry)
{
	self->fd = nsfd_open_ns(0, variant->name);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("open /proc/self/ns/%s: %s", variant->name, strerror(-self->fd));
	}
	ASSERT_EQ(nsfd_ns_link(0, variant->name, self->link, sizeof(self->link)), 0);
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

	snprintf(want, sizeof(want), "%s:[%lu]", variant->real_name,
		 (unsigned long)nsfd_fd_ino(self->fd));
	ASSERT_STREQ(want, self->link);
	ASSERT_EQ(nsfd_self_ino(variant->name), nsfd_fd_ino(self->fd));
}

/* Another process in the same namespace shows the same inode. */
TEST_F(entry, process_in_same_namespace_sees_same_inode)
{
	struct nsfd_child c;
	char link[64];
	int fd;

	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_ns_link(c.pid, variant->name, link, sizeof(link)), 0);
	EXPECT_STREQ(self->link, link);
	fd = nsfd_open_ns(c.pid, variant->name);
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

	ASSERT_EQ(unshare(variant->type), 0) {
		TH_LOG("unshare(%s): %s", variant->name, strerror(errno));
	}
	ASSERT_EQ(nsfd_child_start(&c, NULL, NULL), 0);
	ASSERT_EQ(nsfd_ns_link(c.pid, variant->name, link, sizeof(link)), 0);
	EXPECT_STRNE(self->link, link);
	EXPECT_EQ(strncmp(link, variant->real_name, strlen(variant->real_name)), 0);
	fd = nsfd_open_ns(c.pid, variant->name);
	ASSERT_GE(fd, 0);
	EXPECT_NE(nsfd_fd_ino(fd), nsfd_fd_ino(self->fd));
	close(fd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST_F(entry, ns_get_nstype_is_its_clone_flag)
{
	ASSERT_EQ(ioctl(self->fd, NS_GET_NSTYPE), variant->type);
}

/* NS_GET_USERNS: the owning user namespace, EPERM for init_user_ns. */
TEST_F(entry, ns_get_userns_gives_the_owner)
{
	int owner = ioctl(self->fd, NS_GET_USERNS);

	if (variant->userns_errno) {
		ASSERT_EQ(owner, -1);
		ASSERT_EQ(errno, variant->userns_errno);
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
	ASSERT_EQ(ioctl(self->fd, NS_GET_PARENT), -1);
	ASSERT_EQ(errno, variant->parent_errno);
}

/* NS_GET_OWNER_UID: EINVAL on every type but user; init_user_ns is uid 0. */
TEST_F(entry, ns_get_owner_uid_only_on_user_ns)
{
	uid_t uid = 12345;

	if (variant->type != CLONE_NEWUSER) {
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

/* The fd that NS_GET_USERNS installs is close-on-exec. */
TEST(ns_get_userns_fd_is_cloexec)
{
	int fd = nsfd_open_ns(0, "uts"), owner;

	ASSERT_GE(fd, 0);
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

	ASSERT_EQ(unshare(CLONE_NEWUSER | CLONE_NEWUTS), 0);
	fd = nsfd_open_ns(0, "uts");
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
	int fd = nsfd_open_ns(0, "uts");

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
	int fd = nsfd_child_userns(false), parent;

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
	int fd = nsfd_child_userns(false);
	uid_t uid = 12345;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, NS_GET_OWNER_UID, &uid), 0);
	ASSERT_EQ(uid, (uid_t)0);
	close(fd);
}

TEST(ns_get_owner_uid_of_userns_created_by_nobody_is_65534)
{
	uid_t uid = 12345;
	int fd;

	if (!nsfd_unpriv_userns_allowed())
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
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
	int fd = nsfd_open_ns(0, "user");

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

	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	ASSERT_EQ(nsfd_ns_link(0, "pid_for_children", mine, sizeof(mine)), -ENOENT);
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

	ASSERT_EQ(unshare(CLONE_NEWTIME), 0);
	ASSERT_EQ(nsfd_ns_link(0, "time", now, sizeof(now)), 0);
	ASSERT_EQ(nsfd_ns_link(0, "time_for_children", children, sizeof(children)), 0);
	EXPECT_STRNE(now, children);
	EXPECT_EQ(strncmp(children, "time:[", 6), 0);
}

TEST_HARNESS_MAIN
