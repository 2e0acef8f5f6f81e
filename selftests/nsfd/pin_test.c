// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime: a namespace outlives its last task while an fd to its nsfs
 * file is open, or while that file is bind-mounted (also after the fd is
 * closed), and is freed once both are gone.
 *
 * What shows that a namespace is alive, per type: the state a task left
 * in it is still there when we setns into it (hostname, a SysV shm
 * segment, a tmpfs mount, time offsets, a cgroup root, a user ns owner, a
 * pid ns whose init is gone). What shows that one is freed: a veth pair
 * with one end in the netns is destroyed with it, so the peer left in our
 * netns disappears (RTM_DELLINK on an RTNLGRP_LINK socket).
 *
 * Each test runs in a private mount namespace with / private and a fresh
 * tmpfs on /tmp, where the bind mounts are made: it needs nothing of the
 * rootfs but an empty /tmp directory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "nsfd_rtnl.h"
#include "../kselftest_harness.h"

#define PIN_FILE	"/tmp/nsfd-pin"
#define PIN_HOSTNAME	"nsfd-pinned"
#define PIN_SHM_KEY	0x6e736664
#define PIN_SHM_MAGIC	"nsfd shm still here"
#define PIN_MNT_DIR	"/tmp/nsfd-pin-mnt"
#define PIN_MNT_STAMP	PIN_MNT_DIR "/stamp"
#define PIN_CG_MOUNT	"/tmp/nsfd-cgroup2"
#define PIN_TIME_OFFSET	1000
#define DELLINK_TIMEOUT_MS	20000

/*
 * A private mount namespace in which / is private and /tmp is a fresh
 * tmpfs: nothing a test mounts reaches the mount table it started in.
 */
static int nsfd_private_mounts(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	return nsfd_err(mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"));
}

/* An empty regular file at @path, for a bind mount target. */
static int nsfd_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Bind /proc/<pid>/ns/<name> onto the file @target (created first). */
static int nsfd_bind_ns(pid_t pid, const char *name, const char *target)
{
	char path[64];
	int err = nsfd_touch(target);

	if (err)
		return err;
	return nsfd_err(mount(nsfd_ns_path(pid, name, path, sizeof(path)),
			      target, NULL, MS_BIND, NULL));
}

/*
 * Before a "still alive" check: ipc, pid, user and net namespaces are
 * freed asynchronously (work items, RCU, cleanup_net()), so a broken pin
 * could still pass if we looked too early. Release a sentinel netns and
 * wait for its death first (nsfd_flush_netns_cleanup()): a namespace
 * whose last reference went before it has been freed by then.
 */
static void flush_async_frees(struct __test_metadata *_metadata)
{
	const char *why = nsfd_flush_netns_cleanup();

	if (why)
		TH_LOG("async frees not flushed (%s): a broken pin may pass",
		       why);
}

/*
 * The cgroup the cgroup variant makes, PIN_CG_MOUNT/<name> (the name is
 * in the fixture): the child moves into it. The teardown removes it.
 */
static char pin_cg_dir[96];

/* The cgroup2 hierarchy at PIN_CG_MOUNT, on a private /tmp. */
static int pin_mount_cgroup2(void)
{
	if (mkdir(PIN_CG_MOUNT, 0755))
		return -errno;
	return nsfd_err(mount("cgroup2", PIN_CG_MOUNT, "cgroup2", 0, NULL));
}

/*
 * How long a wait for an event may take before the test fails instead of
 * hanging: an event that has not come by then is not coming.
 */
#define PIN_EVENT_TIMEOUT_MS	20000

/*
 * Wait until no task is left in the cgroup @dir: 0 or -errno. The kernel
 * says so in cgroup.events, and a change of that file is an event that
 * poll(2) reports as POLLPRI (Documentation/admin-guide/cgroup-v2.rst):
 * read it, and while "populated 1", wait for its next change. A change
 * between the read and the poll is not lost: the poll sees the open
 * file's event count behind the file's and returns at once.
 */
static int pin_cgroup_wait_empty(const char *dir)
{
	struct pollfd p = { .events = POLLPRI };
	char path[128], events[256];
	ssize_t n;
	int err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	p.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0)
		return -errno;
	for (;;) {
		n = pread(p.fd, events, sizeof(events) - 1, 0);
		if (n < 0) {
			err = -errno;
			break;
		}
		events[n] = '\0';
		if (strstr(events, "populated 0"))
			break;
		n = poll(&p, 1, PIN_EVENT_TIMEOUT_MS);
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (n == 0) {
			err = -ETIMEDOUT;
			break;
		}
	}
	close(p.fd);
	return err;
}

/* The child's side: create the namespace and leave a mark in it. */

static int mark_uts(void)
{
	if (unshare(CLONE_NEWUTS))
		return -errno;
	return nsfd_err(sethostname(PIN_HOSTNAME, strlen(PIN_HOSTNAME)));
}

static int mark_ipc(void)
{
	char *p;
	int id;

	if (unshare(CLONE_NEWIPC))
		return -errno;
	id = shmget(PIN_SHM_KEY, sizeof(PIN_SHM_MAGIC),
		    IPC_CREAT | IPC_EXCL | 0600);
	if (id < 0)
		return -errno;
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		return -errno;
	memcpy(p, PIN_SHM_MAGIC, sizeof(PIN_SHM_MAGIC));
	return nsfd_err(shmdt(p));
}

static int mark_mnt(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("tmpfs", PIN_MNT_DIR, "tmpfs", 0, "size=64k"))
		return -errno;
	return nsfd_touch(PIN_MNT_STAMP);
}

/* Offsets can be set until the first task enters: the child never does. */
static int mark_time(void)
{
	char offsets[64];

	if (unshare(CLONE_NEWTIME))
		return -errno;
	snprintf(offsets, sizeof(offsets), "monotonic %d 0", PIN_TIME_OFFSET);
	return nsfd_write_file("/proc/self/timens_offsets", offsets);
}

static int mark_user(void)
{
	int err = nsfd_become_nobody();

	return err ? err : nsfd_err(unshare(CLONE_NEWUSER));
}

/* The new pid ns's init (a grandchild) exits on release, before the child. */
static int mark_pid(void)
{
	if (unshare(CLONE_NEWPID))
		return -errno;
	return nsfd_fork_pidns_init();
}

/* A cgroup ns rooted at pin_cg_dir, which the child moved into. */
static int mark_cgroup(void)
{
	char procs[sizeof(pin_cg_dir) + sizeof("/cgroup.procs")];
	int err;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", pin_cg_dir);
	err = nsfd_write_file(procs, "0");

	return err ? err : nsfd_err(unshare(CLONE_NEWCGROUP));
}

/* Our side, after setns into the pinned namespace: is the mark there? */

static int read_back_uts(void)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	return strcmp(u.nodename, PIN_HOSTNAME) ? -ENOENT : 0;
}

static int read_back_ipc(void)
{
	int id = shmget(PIN_SHM_KEY, 0, 0), err;
	char *p;

	if (id < 0)
		return -errno;
	p = shmat(id, NULL, SHM_RDONLY);
	if (p == (void *)-1)
		return -errno;
	err = strcmp(p, PIN_SHM_MAGIC) ? -EBADMSG : 0;
	shmdt(p);
	return err;
}

/* The tmpfs is mounted there (a device of its own) and holds the stamp. */
static int read_back_mnt(void)
{
	struct stat dir, parent, stamp;

	if (stat(PIN_MNT_DIR, &dir) || stat("/tmp", &parent) ||
	    stat(PIN_MNT_STAMP, &stamp))
		return -errno;
	return dir.st_dev != parent.st_dev && stamp.st_dev == dir.st_dev ?
	       0 : -ENOENT;
}

/* The cgroup v2 line of /proc/self/cgroup, without "0::" and the newline. */
static int cgroup_v2_path(char *path, size_t size)
{
	char buf[4096], *line;
	int err = nsfd_read_file("/proc/self/cgroup", buf, sizeof(buf));

	if (err)
		return err;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "0::", 3)) {
			snprintf(path, size, "%s", line + 3);
			return 0;
		}
	return -ENOENT;
}

static char cgroup_before[256];	/* ours, before any cgroup ns change */

/*
 * The ns root is pin_cg_dir, a child of the hierarchy root: we are "/.." below
 * it.
 */
static int read_back_cgroup(void)
{
	char now[256], want[300];
	int err = cgroup_v2_path(now, sizeof(now));

	if (err)
		return err;
	snprintf(want, sizeof(want), "/..%s",
		 strcmp(cgroup_before, "/") ? cgroup_before : "");
	return strcmp(now, want) ? -EBADMSG : 0;
}

struct pin_kind {
	const struct nsfd_ns *ns;	/* the entry that is pinned */
	int (*mark)(void);
	/* Is the mark here? NULL: assert_mark_is_there() looks itself. */
	int (*read_back)(void);
};

FIXTURE(pin) {
	struct nsfd_child child;
	char cg_name[32];	/* the cgroup that setup made, "" if none */
	int cgns;		/* the cgroup namespace setup made it in */
	pid_t setup_pid;
};

FIXTURE_VARIANT(pin) {
	struct pin_kind kind;
};

FIXTURE_VARIANT_ADD(pin, uts) {
	.kind = { &nsfd_ns_entries[NSFD_NS_uts], mark_uts, read_back_uts },
};

FIXTURE_VARIANT_ADD(pin, ipc) {
	.kind = { &nsfd_ns_entries[NSFD_NS_ipc], mark_ipc, read_back_ipc },
};

FIXTURE_VARIANT_ADD(pin, mnt) {
	.kind = { &nsfd_ns_entries[NSFD_NS_mnt], mark_mnt, read_back_mnt },
};

FIXTURE_VARIANT_ADD(pin, time) {
	.kind = { &nsfd_ns_entries[NSFD_NS_time_for_children], mark_time },
};

FIXTURE_VARIANT_ADD(pin, user) {
	.kind = { &nsfd_ns_entries[NSFD_NS_user], mark_user },
};

FIXTURE_VARIANT_ADD(pin, pid) {
	.kind = { &nsfd_ns_entries[NSFD_NS_pid_for_children], mark_pid },
};

FIXTURE_VARIANT_ADD(pin, cgroup) {
	.kind = {
		.ns = &nsfd_ns_entries[NSFD_NS_cgroup],
		.mark = mark_cgroup,
		.read_back = read_back_cgroup,
	},
};

static int mark(void *arg)
{
	const struct pin_kind *kind = arg;

	return kind->mark();
}

FIXTURE_SETUP(pin)
{
	int type = variant->kind.ns->type, err, mine = 0;

	self->child.pid = 0;
	self->cg_name[0] = '\0';
	self->cgns = -1;
	self->setup_pid = getpid();
	/* assert_mark_is_there() asks NS_GET_NSTYPE and NS_GET_OWNER_UID. */
	NSFD_SKIP_IF(return, nsfd_why_no_nsfs_ioctls());
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(type));
	if (type == CLONE_NEWUSER)
		NSFD_SKIP_IF(return, nsfd_why_no_userns(true));
	ASSERT_EQ(nsfd_private_mounts(), 0);
	/* Our own uts and ipc: the marks cannot be ours by accident. */
	if (!nsfd_ns_missing(CLONE_NEWUTS))
		mine |= CLONE_NEWUTS;
	if (!nsfd_ns_missing(CLONE_NEWIPC))
		mine |= CLONE_NEWIPC;
	ASSERT_EQ(unshare(mine), 0);
	ASSERT_EQ(mkdir(PIN_MNT_DIR, 0755), 0);
	if (type == CLONE_NEWCGROUP) {
		err = pin_mount_cgroup2();
		ASSERT_EQ(err, 0) {
			TH_LOG("cgroup2 on %s: %s", PIN_CG_MOUNT,
			       strerror(-err));
		}
		ASSERT_EQ(cgroup_v2_path(cgroup_before, sizeof(cgroup_before)),
			  0);
		self->cgns = nsfd_open_ns(0, "cgroup");
		ASSERT_GE(self->cgns, 0);
	}
	if (variant->kind.read_back)
		ASSERT_NE(variant->kind.read_back(), 0);
	/*
	 * From the mkdir on, nothing may ASSERT before the child runs: the
	 * harness runs no teardown after a setup that failed.
	 */
	if (type == CLONE_NEWCGROUP) {
		snprintf(pin_cg_dir, sizeof(pin_cg_dir), "%s/nsfd-pin-%d",
			 PIN_CG_MOUNT, getpid());
		ASSERT_EQ(mkdir(pin_cg_dir, 0755), 0) {
			TH_LOG("mkdir %s: %s", pin_cg_dir, strerror(errno));
		}
		snprintf(self->cg_name, sizeof(self->cg_name), "nsfd-pin-%d",
			 getpid());
	}
	err = nsfd_child_start(&self->child, mark, (void *)&variant->kind);
	/* The child has been reaped: its cgroup is empty. */
	if (err && self->cg_name[0]) {
		EXPECT_EQ(rmdir(pin_cg_dir), 0) {
			TH_LOG("rmdir %s: %s", pin_cg_dir, strerror(errno));
		}
		self->cg_name[0] = '\0';
	}
	ASSERT_EQ(err, 0) {
		TH_LOG("child: %s: %s", variant->kind.ns->name, strerror(-err));
	}
}

/*
 * In the process that waited for the test's: the test's process and its
 * child (the cgroup's only task, which exits once that process is gone)
 * may have ended any way. Once the cgroup is empty, remove it, through a
 * cgroup2 mount in a private mount namespace of this process.
 */
FIXTURE_TEARDOWN_PARENT(pin)
{
	char dir[96];
	int err;

	if (!self->cg_name[0])
		return;
	snprintf(dir, sizeof(dir), "%s/%s", PIN_CG_MOUNT, self->cg_name);
	err = 0;
	/*
	 * A harness without a parent teardown (before 6.9) runs this in the
	 * test's own process, which has joined the pinned cgroup namespace:
	 * back to the one the cgroup was made in, or it is out of sight.
	 */
	if (getpid() == self->setup_pid && setns(self->cgns, CLONE_NEWCGROUP))
		err = -errno;
	if (!err)
		err = nsfd_private_mounts();
	if (!err)
		err = pin_mount_cgroup2();
	EXPECT_EQ(err, 0) {
		TH_LOG("cgroup2 on %s, to remove %s: %s", PIN_CG_MOUNT,
		       self->cg_name, strerror(-err));
	}
	if (err)
		return;
	err = pin_cgroup_wait_empty(dir);
	EXPECT_EQ(err, 0) {
		TH_LOG("%s still has tasks: %s", dir, strerror(-err));
	}
	EXPECT_EQ(rmdir(dir), 0) {
		TH_LOG("rmdir %s: %s", dir, strerror(errno));
	}
}

/*
 * setns into the pinned namespace and find the child's mark. time: the
 * offset shows in CLOCK_MONOTONIC; user: its owner is still nobody; pid:
 * it can be joined, but its init is gone, so fork() into it is ENOMEM.
 */
static void assert_mark_is_there(struct __test_metadata *_metadata,
				 const struct pin_kind *kind, int fd)
{
	struct timespec before, after;
	uid_t uid;
	pid_t pid;

	ASSERT_EQ(ioctl(fd, NS_GET_NSTYPE), kind->ns->type);
	switch (kind->ns->type) {
	case CLONE_NEWTIME:
		ASSERT_EQ(clock_gettime(CLOCK_MONOTONIC, &before), 0);
		ASSERT_EQ(setns(fd, kind->ns->type), 0);
		ASSERT_EQ(clock_gettime(CLOCK_MONOTONIC, &after), 0);
		EXPECT_GE(after.tv_sec - before.tv_sec, PIN_TIME_OFFSET - 1);
		EXPECT_LT(after.tv_sec - before.tv_sec, PIN_TIME_OFFSET + 30);
		return;
	case CLONE_NEWUSER:
		ASSERT_EQ(ioctl(fd, NS_GET_OWNER_UID, &uid), 0);
		EXPECT_EQ(uid, (uid_t)NOBODY_UID);
		ASSERT_EQ(setns(fd, kind->ns->type), 0);
		EXPECT_EQ(nsfd_self_ino("user"), nsfd_fd_ino(fd));
		return;
	case CLONE_NEWPID:
		ASSERT_EQ(setns(fd, kind->ns->type), 0);
		EXPECT_EQ(nsfd_self_ino("pid_for_children"), nsfd_fd_ino(fd));
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		ASSERT_EQ(pid, -1);
		ASSERT_EQ(errno, ENOMEM);
		return;
	}
	ASSERT_EQ(setns(fd, kind->ns->type), 0);
	ASSERT_EQ(kind->read_back(), 0) {
		TH_LOG("%s: the mark is gone", kind->ns->name);
	}
}

TEST_F(pin, fd_keeps_namespace_after_last_task_exits)
{
	int fd = nsfd_open_ns(self->child.pid, variant->kind.ns->name);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	flush_async_frees(_metadata);
	assert_mark_is_there(_metadata, &variant->kind, fd);
	close(fd);
}

TEST_F(pin, bind_mount_keeps_namespace_after_fd_closed)
{
	int fd = nsfd_open_ns(self->child.pid, variant->kind.ns->name);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_bind_ns(self->child.pid, variant->kind.ns->name,
			       PIN_FILE), 0) {
		TH_LOG("bind /proc/%d/ns/%s: %s", self->child.pid,
		       variant->kind.ns->name, strerror(errno));
	}
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	flush_async_frees(_metadata);
	fd = open(PIN_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	assert_mark_is_there(_metadata, &variant->kind, fd);
	close(fd);
}

/*
 * Freed: each namespace counts against its owner's
 * /proc/sys/user/max_<type>_namespaces until it is freed. In a user ns of
 * our own with the limit at what exists plus one, the pinned namespace
 * makes the next unshare ENOSPC until the pin goes. The unshare runs in a
 * child, so that it changes nothing here (a user namespace would move us
 * into it). uts, time, cgroup and mnt are freed by their last put. ipc
 * is freed from a work item, but at the limit unshare itself waits for
 * pending ipc frees (create_ipc_ns() flushes free_ipc_work). pid is
 * freed from RCU callbacks (two stages: the struct pid, then the
 * namespace), user from a work item of its own: nothing in userspace
 * waits for either directly. For those each retry first waits for a
 * network namespace's teardown (nsfd_flush_netns_cleanup(): an event,
 * the sentinel's RTM_DELLINK), which runs an rcu_barrier() and is a work
 * item; teardowns run one after the other, so at the third retry two
 * whole teardowns have run since the pin went. No sleep, and no
 * deadline: at most UCOUNT_FREE_ROUNDS teardowns.
 */
#define UCOUNT_FREE_ROUNDS	6

FIXTURE(ucount) {
	struct nsfd_child child;
};

FIXTURE_VARIANT(ucount) {
	const struct nsfd_ns *ns;	/* user.max_<real_name>_namespaces */
	const char *limit;		/* ours counts too for mnt */
	bool async;			/* freed after the last put */
};

FIXTURE_VARIANT_ADD(ucount, uts) {
	.ns = &nsfd_ns_entries[NSFD_NS_uts], .limit = "1",
};

FIXTURE_VARIANT_ADD(ucount, time) {
	.ns = &nsfd_ns_entries[NSFD_NS_time_for_children], .limit = "1",
};

FIXTURE_VARIANT_ADD(ucount, cgroup) {
	.ns = &nsfd_ns_entries[NSFD_NS_cgroup], .limit = "1",
};

FIXTURE_VARIANT_ADD(ucount, mnt) {
	.ns = &nsfd_ns_entries[NSFD_NS_mnt], .limit = "2",
};

FIXTURE_VARIANT_ADD(ucount, ipc) {
	.ns = &nsfd_ns_entries[NSFD_NS_ipc], .limit = "1", .async = true,
};

FIXTURE_VARIANT_ADD(ucount, pid) {
	.ns = &nsfd_ns_entries[NSFD_NS_pid_for_children], .limit = "1",
	.async = true,
};

FIXTURE_VARIANT_ADD(ucount, user) {
	.ns = &nsfd_ns_entries[NSFD_NS_user], .limit = "1", .async = true,
};

/*
 * The child: unshare the type; for pid also fork the new namespace's
 * init, without which pid_for_children cannot be opened.
 */
static int ucount_child(void *arg)
{
	const struct nsfd_ns *ns = arg;

	if (unshare(ns->type))
		return -errno;
	return ns->type == CLONE_NEWPID ? nsfd_fork_pidns_init() : 0;
}

FIXTURE_SETUP(ucount)
{
	char path[64];
	int err;

	self->child.pid = 0;
	NSFD_SKIP_IF(return, nsfd_ns_missing(variant->ns->type));
	NSFD_SKIP_IF(return, nsfd_why_no_userns(false));
	ASSERT_EQ(nsfd_unshare_userns(CLONE_NEWNS), 0);
	ASSERT_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ASSERT_EQ(mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"), 0);
	snprintf(path, sizeof(path), "/proc/sys/user/max_%s_namespaces",
		 variant->ns->real_name);
	err = nsfd_write_file(path, variant->limit);
	ASSERT_EQ(err, 0) {
		TH_LOG("%s: %s", path, strerror(-err));
	}
	ASSERT_EQ(nsfd_child_start(&self->child, ucount_child,
				   (void *)variant->ns), 0);
}

FIXTURE_TEARDOWN(ucount)
{
	if (self->child.pid > 0)
		nsfd_child_finish(&self->child);
}

/* What unshare() of @type says in a child: 0 or the errno. */
static int ucount_unshare(int type)
{
	return nsfd_in_child(nsfd_probe_unshare, &type);
}

static void assert_still_counted(struct __test_metadata *_metadata, int type)
{
	ASSERT_EQ(ucount_unshare(type), ENOSPC);
}

/* The pinned namespace is freed: a new one fits under the limit again. */
static void assert_freed(struct __test_metadata *_metadata,
			 const struct nsfd_ns *ns, bool async)
{
	const char *why = NULL;
	int err, rounds = 0;

	while ((err = ucount_unshare(ns->type)) == ENOSPC && async && !why &&
	       rounds < UCOUNT_FREE_ROUNDS) {
		why = nsfd_flush_netns_cleanup();
		rounds++;
	}
	ASSERT_EQ(err, 0) {
		TH_LOG("%s still counted after %d netns teardowns since its last pin went%s%s: %s",
		       ns->name, rounds, why ? "; then " : "", why ? why : "",
		       strerror(err));
	}
}

TEST_F(ucount, fd_pin_is_freed_when_closed)
{
	int fd = nsfd_open_ns(self->child.pid, variant->ns->name);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	assert_still_counted(_metadata, variant->ns->type);
	ASSERT_EQ(close(fd), 0);
	assert_freed(_metadata, variant->ns, variant->async);
}

TEST_F(ucount, bind_mount_pin_is_freed_when_unmounted)
{
	ASSERT_EQ(nsfd_bind_ns(self->child.pid, variant->ns->name, PIN_FILE),
		  0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	assert_still_counted(_metadata, variant->ns->type);
	ASSERT_EQ(umount(PIN_FILE), 0);
	assert_freed(_metadata, variant->ns, variant->async);
}

/* A namespace fd from PIDFD_GET_*_NAMESPACE pins it until it is closed. */
TEST_F(ucount, pidfd_ns_fd_pin_is_freed_when_closed)
{
	int pidfd = sys_pidfd_open(self->child.pid, 0), fd;

	ASSERT_GE(pidfd, 0);
	fd = ioctl(pidfd, variant->ns->pidfd_get, 0);
	if (fd < 0 && errno == ENOTTY)
		SKIP(return,
		     "PIDFD_GET_*_NAMESPACE: ENOTTY (kernel before 6.11)");
	close(pidfd);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	assert_still_counted(_metadata, variant->ns->type);
	ASSERT_EQ(close(fd), 0);
	assert_freed(_metadata, variant->ns, variant->async);
}

/* fs/namespace.c mnt_ns_loop(): a mnt ns file may not be bound into itself. */
TEST(bind_mount_of_own_mnt_ns_is_einval)
{
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	ASSERT_EQ(nsfd_private_mounts(), 0);
	ASSERT_EQ(nsfd_touch(PIN_FILE), 0);
	ASSERT_EQ(mount("/proc/self/ns/mnt", PIN_FILE, NULL, MS_BIND, NULL),
		  -1);
	ASSERT_EQ(errno, EINVAL);
}

/*
 * netns: the child's netns N holds one end of a veth pair, the other end
 * stays in our (private) netns. While N lives, our end is there; when N
 * is freed its devices are destroyed, ours with it.
 */
FIXTURE(netpin) {
	struct nsfd_child child;
	int nl;		/* rtnetlink, our netns */
	int mon;	/* RTNLGRP_LINK, our netns */
	int ifindex;	/* our end */
	int fd;		/* N */
};

FIXTURE_SETUP(netpin)
{
	int flags = CLONE_NEWNET, err;

	self->child.pid = 0;
	self->fd = -1;
	self->nl = -1;
	self->mon = -1;
	NSFD_SKIP_IF(return, nsfd_why_not_root());
	NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWNET));
	ASSERT_EQ(nsfd_private_mounts(), 0);
	ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	self->nl = nsfd_nl_open(0);
	ASSERT_GE(self->nl, 0);
	self->mon = nsfd_nl_open(RTMGRP_LINK);
	ASSERT_GE(self->mon, 0);
	ASSERT_EQ(nsfd_child_start(&self->child, nsfd_do_unshare, &flags), 0);
	self->fd = nsfd_open_ns(self->child.pid, "net");
	ASSERT_GE(self->fd, 0);
	err = nsfd_link_add(self->nl, "nsfd-here", "veth", -1, "nsfd-there",
			    self->fd);
	NSFD_SKIP_IF(return,
		     nsfd_link_kind_missing(err, "veth", "CONFIG_VETH"));
	ASSERT_EQ(err, 0) {
		TH_LOG("veth: %s", strerror(-err));
	}
	self->ifindex = nsfd_link_index(self->nl, "nsfd-here");
	ASSERT_GT(self->ifindex, 0);
}

FIXTURE_TEARDOWN(netpin)
{
	if (self->child.pid > 0)
		nsfd_child_finish(&self->child);
	if (self->fd >= 0)
		close(self->fd);
	if (self->mon >= 0)
		close(self->mon);
	if (self->nl >= 0)
		close(self->nl);
}

/* N is alive: its end of the pair is in it (rtnetlink from inside N). */
static void assert_netns_alive(struct __test_metadata *_metadata, int fd,
			       int ifindex, int mon)
{
	int here = nsfd_open_ns(0, "net"), nl;

	flush_async_frees(_metadata);
	ASSERT_GE(here, 0);
	ASSERT_EQ(setns(fd, CLONE_NEWNET), 0);
	nl = nsfd_nl_open(0);
	ASSERT_EQ(setns(here, CLONE_NEWNET), 0);
	ASSERT_GE(nl, 0);
	EXPECT_GT(nsfd_link_index(nl, "nsfd-there"), 0);
	close(nl);
	close(here);
	EXPECT_FALSE(nsfd_dellink_queued(mon, ifindex));
	EXPECT_EQ(if_nametoindex("nsfd-here"), (unsigned int)ifindex);
}

static void assert_netns_freed(struct __test_metadata *_metadata, int mon,
			       int ifindex)
{
	ASSERT_EQ(nsfd_wait_dellink(mon, ifindex, DELLINK_TIMEOUT_MS), 0) {
		TH_LOG("no RTM_DELLINK for our veth end within %d ms",
		       DELLINK_TIMEOUT_MS);
	}
	EXPECT_EQ(if_nametoindex("nsfd-here"), 0U);
}

/* The observable itself: unpinned, N dies with its task. */
TEST_F(netpin, netns_without_pin_is_freed_when_its_task_exits)
{
	ASSERT_EQ(close(self->fd), 0);
	self->fd = -1;
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	assert_netns_freed(_metadata, self->mon, self->ifindex);
}

TEST_F(netpin, fd_keeps_netns_until_closed)
{
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	assert_netns_alive(_metadata, self->fd, self->ifindex, self->mon);
	ASSERT_EQ(close(self->fd), 0);
	self->fd = -1;
	assert_netns_freed(_metadata, self->mon, self->ifindex);
}

/* Bind mount made, fd closed, task gone: alive until the umount. */
TEST_F(netpin, bind_mount_keeps_netns_until_umount)
{
	int fd;

	ASSERT_EQ(nsfd_bind_ns(self->child.pid, "net", PIN_FILE), 0);
	ASSERT_EQ(close(self->fd), 0);
	self->fd = -1;
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	fd = open(PIN_FILE, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	assert_netns_alive(_metadata, fd, self->ifindex, self->mon);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(umount(PIN_FILE), 0);
	assert_netns_freed(_metadata, self->mon, self->ifindex);
}

/* Both pins: the umount alone does not free it, the last close does. */
TEST_F(netpin, netns_freed_only_when_bind_mount_and_fd_are_gone)
{
	ASSERT_EQ(nsfd_bind_ns(self->child.pid, "net", PIN_FILE), 0);
	ASSERT_EQ(nsfd_child_finish(&self->child), 0);
	ASSERT_EQ(umount(PIN_FILE), 0);
	assert_netns_alive(_metadata, self->fd, self->ifindex, self->mon);
	ASSERT_EQ(close(self->fd), 0);
	self->fd = -1;
	assert_netns_freed(_metadata, self->mon, self->ifindex);
}

TEST_HARNESS_MAIN
