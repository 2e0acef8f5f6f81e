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
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "nsfd_helpers.h"
#include "../kselftest_harness.h"

FIXTURE(ns) {
	int current;		/* /proc/self/ns/<name> before the test changed anything */
	char current_link[64];
};

FIXTURE_VARIANT(ns) {
	const char *name;
	const char *real_name;
	int type;
	const char *changes;	/* the entry a setns with this fd changes */
	int rejoin_errno;	/* setns into the namespace we are in */
};

FIXTURE_VARIANT_ADD(ns, cgroup) {
	.name = "cgroup", .real_name = "cgroup", .type = CLONE_NEWCGROUP,
	.changes = "cgroup",
};

FIXTURE_VARIANT_ADD(ns, ipc) {
	.name = "ipc", .real_name = "ipc", .type = CLONE_NEWIPC, .changes = "ipc",
};

FIXTURE_VARIANT_ADD(ns, mnt) {
	.name = "mnt", .real_name = "mnt", .type = CLONE_NEWNS, .changes = "mnt",
};

FIXTURE_VARIANT_ADD(ns, net) {
	.name = "net", .real_name = "net", .type = CLONE_NEWNET, .changes = "net",
};

/* A pid ns fd sets pid_for_children (kernel/pid_namespace.c pidns_install). */
FIXTURE_VARIANT_ADD(ns, pid) {
	.name = "pid", .real_name = "pid", .type = CLONE_NEWPID,
	.changes = "pid_for_children",
};

FIXTURE_VARIANT_ADD(ns, pid_for_children) {
	.name = "pid_for_children", .real_name = "pid", .type = CLONE_NEWPID,
	.changes = "pid_for_children",
};

/* A time ns fd sets both time and time_for_children (timens_install). */
FIXTURE_VARIANT_ADD(ns, time) {
	.name = "time", .real_name = "time", .type = CLONE_NEWTIME,
	.changes = "time_for_children",
};

FIXTURE_VARIANT_ADD(ns, time_for_children) {
	.name = "time_for_children", .real_name = "time", .type = CLONE_NEWTIME,
	.changes = "time_for_children",
};

/* Re-entering one's own user ns would regain caps: EINVAL (userns_install). */
FIXTURE_VARIANT_ADD(ns, user) {
	.name = "user", .real_name = "user", .type = CLONE_NEWUSER,
	.changes = "user", .rejoin_errno = EINVAL,
};

FIXTURE_VARIANT_ADD(ns, uts) {
	.name = "uts", .real_name = "uts", .type = CLONE_NEWUTS, .changes = "uts",
};

FIXTURE_SETUP(ns)
{
	self->current = nsfd_open_ns(0, variant->name);
	ASSERT_GE(self->current, 0);
	ASSERT_EQ(nsfd_ns_link(0, variant->name, self->current_link,
			       sizeof(self->current_link)), 0);
}

FIXTURE_TEARDOWN(ns)
{
	close(self->current);
}

/*
 * An fd to a namespace of the variant's type other than the one the
 * caller is in, and the link that variant->changes reads once joined.
 * user: a new user ns from a child (owned by root, or by nobody with
 * @nobody_user); every other type: the current one, after unshare moved
 * the caller (or its children, for pid and time) to a new one.
 */
static int other_ns(struct __test_metadata *_metadata,
		    const FIXTURE_VARIANT(ns) * variant, char *want, size_t size,
		    bool nobody_user)
{
	char now[64];
	int fd;

	if (variant->type == CLONE_NEWUSER) {
		if (nobody_user && !nsfd_unpriv_userns_allowed())
			return -EOPNOTSUPP;
		fd = nsfd_child_userns(nobody_user);
	} else {
		fd = nsfd_open_ns(0, variant->name);
		if (fd >= 0 && unshare(variant->type))
			fd = -errno;
	}
	if (fd < 0) {
		TH_LOG("no other %s namespace: %s", variant->name, strerror(-fd));
		return fd;
	}
	snprintf(want, size, "%s:[%lu]", variant->real_name, (unsigned long)nsfd_fd_ino(fd));
	/* Not joined yet (a fresh pid ns without a reaper has no link). */
	if (!nsfd_ns_link(0, variant->changes, now, sizeof(now)) && !strcmp(now, want)) {
		TH_LOG("%s is already %s", variant->changes, want);
		close(fd);
		return -EEXIST;
	}
	return fd;
}

static bool joined(const FIXTURE_VARIANT(ns) * variant, const char *want)
{
	char now[64];

	return !nsfd_ns_link(0, variant->changes, now, sizeof(now)) && !strcmp(now, want);
}

TEST_F(ns, joins_with_nstype_zero)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, 0), 0) {
		TH_LOG("setns(%s, 0): %s", variant->name, strerror(errno));
	}
	EXPECT_TRUE(joined(variant, want));
	close(fd);
}

TEST_F(ns, joins_with_its_own_clone_flag)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, variant->type), 0) {
		TH_LOG("setns(%s, 0x%x): %s", variant->name, variant->type, strerror(errno));
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
	for (i = 0; i < NSFD_NR_FLAGS; i++) {
		if (nsfd_clone_flags[i].flag == variant->type)
			continue;
		EXPECT_EQ(setns(fd, nsfd_clone_flags[i].flag), -1) {
			TH_LOG("setns(%s, %s) succeeded", variant->name, nsfd_clone_flags[i].name);
		}
		EXPECT_EQ(errno, EINVAL) {
			TH_LOG("setns(%s, %s): %s", variant->name, nsfd_clone_flags[i].name,
			       strerror(errno));
		}
	}
	EXPECT_EQ(setns(fd, CLONE_VM), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(setns(fd, variant->type | (variant->type == CLONE_NEWUTS ?
					     CLONE_NEWNET : CLONE_NEWUTS)), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_FALSE(joined(variant, want));
	close(fd);
}

/* The namespace one is in: accepted, except user (EINVAL). */
TEST_F(ns, rejoining_current_namespace)
{
	char now[64];

	if (variant->rejoin_errno) {
		ASSERT_EQ(setns(self->current, 0), -1);
		ASSERT_EQ(errno, variant->rejoin_errno);
	} else {
		ASSERT_EQ(setns(self->current, 0), 0) {
			TH_LOG("setns(%s, 0): %s", variant->name, strerror(errno));
		}
	}
	ASSERT_EQ(nsfd_ns_link(0, variant->name, now, sizeof(now)), 0);
	EXPECT_STREQ(now, self->current_link);
}

/*
 * uid 0 without capabilities. The user variant's target is owned by
 * nobody: a user ns that uid 0 created is enterable by uid 0 even without
 * caps (see root_without_caps_joins_child_userns_it_owns).
 */
TEST_F(ns, eperm_with_capabilities_dropped)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), true);

	if (fd == -EOPNOTSUPP)
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	ASSERT_EQ(nsfd_get_caps(), 0ULL);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EPERM);
	EXPECT_FALSE(joined(variant, want));
	close(fd);
}

TEST_F(ns, eperm_as_uid_65534)
{
	char want[64];
	int fd = other_ns(_metadata, variant, want, sizeof(want), false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_become_nobody(), 0);
	ASSERT_EQ(setns(fd, variant->type), -1);
	ASSERT_EQ(errno, EPERM);
	EXPECT_FALSE(joined(variant, want));
	close(fd);
}

/* Full caps in a new user ns give none over a namespace owned outside it. */
TEST_F(ns, eperm_from_child_userns_toward_initial_namespace)
{
	ASSERT_EQ(unshare(CLONE_NEWUSER), 0);
	ASSERT_EQ(setns(self->current, 0), -1);
	ASSERT_EQ(errno, EPERM);
}

/* security/commoncap.c cap_capable(): the owner of a child user ns has every cap in it. */
TEST(root_without_caps_joins_child_userns_it_owns)
{
	int fd = nsfd_child_userns(false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(nsfd_set_caps(0), 0);
	ASSERT_EQ(setns(fd, CLONE_NEWUSER), 0) {
		TH_LOG("setns: %s", strerror(errno));
	}
	EXPECT_EQ(nsfd_self_ino("user"), nsfd_fd_ino(fd));
	close(fd);
}

TEST(closed_fd_is_ebadf)
{
	int fd = nsfd_open_ns(0, "net");

	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(fd, CLONE_NEWNET), -1);
	ASSERT_EQ(errno, EBADF);
}

TEST(minus_one_is_ebadf)
{
	ASSERT_EQ(setns(-1, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(-1, CLONE_NEWNET), -1);
	ASSERT_EQ(errno, EBADF);
}

/* fdget() does not return O_PATH files (fs/file.c). */
TEST(o_path_fd_of_netns_is_ebadf)
{
	int fd = open("/proc/self/ns/net", O_PATH | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns(fd, 0), -1);
	ASSERT_EQ(errno, EBADF);
	ASSERT_EQ(setns(fd, CLONE_NEWNET), -1);
	ASSERT_EQ(errno, EBADF);
	close(fd);
}

static void assert_not_a_namespace(struct __test_metadata *_metadata, int fd, const char *what)
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
	assert_not_a_namespace(_metadata, open("/proc/self/status", O_RDONLY | O_CLOEXEC),
			       "regular file");
}

TEST(socket_is_einval)
{
	assert_not_a_namespace(_metadata, socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0),
			       "socket");
}

TEST(eventfd_is_einval)
{
	assert_not_a_namespace(_metadata, eventfd(0, EFD_CLOEXEC), "eventfd");
}

/* pidfd forms: a child in its own uts, ipc and net namespaces. */
static int child_own_uts_ipc_net(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET))
		return -errno;
	return nsfd_err(sethostname("nsfd-pidfd", strlen("nsfd-pidfd")));
}

/* Start that child; a pidfd for it. */
static int pidfd_of_child_own_uts_ipc_net(struct __test_metadata *_metadata,
					  struct nsfd_child *c)
{
	int pidfd;

	ASSERT_EQ(nsfd_child_start(c, child_own_uts_ipc_net, NULL), 0);
	pidfd = sys_pidfd_open(c->pid, 0);
	ASSERT_GE(pidfd, 0);
	return pidfd;
}

static bool same_ns_as(pid_t pid, const char *name)
{
	char mine[64], theirs[64];

	return !nsfd_ns_link(0, name, mine, sizeof(mine)) &&
	       !nsfd_ns_link(pid, name, theirs, sizeof(theirs)) && !strcmp(mine, theirs);
}

TEST(pidfd_with_one_flag_joins_only_that_namespace)
{
	struct nsfd_child c;
	struct utsname u;
	int pidfd;

	pidfd = pidfd_of_child_own_uts_ipc_net(_metadata, &c);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS), 0) {
		TH_LOG("setns(pidfd, CLONE_NEWUTS): %s", strerror(errno));
	}
	EXPECT_TRUE(same_ns_as(c.pid, "uts"));
	ASSERT_EQ(uname(&u), 0);
	EXPECT_STREQ(u.nodename, "nsfd-pidfd");
	EXPECT_FALSE(same_ns_as(c.pid, "ipc"));
	EXPECT_FALSE(same_ns_as(c.pid, "net"));
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

TEST(pidfd_with_several_flags_joins_each)
{
	struct nsfd_child c;
	int pidfd;

	pidfd = pidfd_of_child_own_uts_ipc_net(_metadata, &c);
	ASSERT_EQ(setns(pidfd, CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET), 0) {
		TH_LOG("setns(pidfd, UTS|IPC|NET): %s", strerror(errno));
	}
	EXPECT_TRUE(same_ns_as(c.pid, "uts"));
	EXPECT_TRUE(same_ns_as(c.pid, "ipc"));
	EXPECT_TRUE(same_ns_as(c.pid, "net"));
	close(pidfd);
	ASSERT_EQ(nsfd_child_finish(&c), 0);
}

/* check_setns_flags(): a pidfd needs at least one known CLONE_NEW* flag. */
TEST(pidfd_with_flags_zero_or_unknown_is_einval)
{
	struct nsfd_child c;
	int pidfd;

	pidfd = pidfd_of_child_own_uts_ipc_net(_metadata, &c);
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
static int nobody_setns_by_pidfd(struct __test_metadata *_metadata, bool dumpable)
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
	if (!nsfd_unpriv_userns_allowed())
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
	ASSERT_EQ(nobody_setns_by_pidfd(_metadata, true), 0);
}

TEST(pidfd_of_non_dumpable_task_is_eperm)
{
	if (!nsfd_unpriv_userns_allowed())
		SKIP(return, "kernel.unprivileged_userns_clone is 0");
	ASSERT_EQ(nobody_setns_by_pidfd(_metadata, false), EPERM);
}

/* pidns_install(): only the active pid namespace or one below it. */
TEST(pid_ns_above_the_active_one_is_einval)
{
	int fd = nsfd_open_ns(0, "pid"), status;
	pid_t pid;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(unshare(CLONE_NEWPID), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(setns(fd, CLONE_NEWPID) ? errno : 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), EINVAL);
	close(fd);
}

static void *block_on_fd(void *arg)
{
	char c;

	while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Run setns(@fd, @type) while a second thread exists; its errno. */
static int setns_with_a_thread(int fd, int type)
{
	pthread_t thread;
	int p[2], ret;

	if (pipe(p))
		return -1;
	if (pthread_create(&thread, NULL, block_on_fd, &p[0]))
		return -1;
	ret = setns(fd, type) ? errno : 0;
	close(p[1]);
	pthread_join(thread, NULL);
	close(p[0]);
	return ret;
}

/* timens_install(): EUSERS unless single-threaded. */
TEST(time_ns_from_multithreaded_process_is_eusers)
{
	int fd = nsfd_detached_ns(CLONE_NEWTIME, "time", "time_for_children");

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWTIME), EUSERS);
	close(fd);
}

/* userns_install(): tasks of one thread group share a user namespace. */
TEST(user_ns_from_multithreaded_process_is_einval)
{
	int fd = nsfd_child_userns(false);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWUSER), EINVAL);
	close(fd);
}

/* mntns_install(): EINVAL while the fs_struct is shared (threads share it). */
TEST(mnt_ns_with_shared_fs_struct_is_einval)
{
	int fd = nsfd_detached_ns(CLONE_NEWNS, "mnt", "mnt");

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setns_with_a_thread(fd, CLONE_NEWNS), EINVAL);
	close(fd);
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
static int semval_after_worker_setns(struct __test_metadata *_metadata, int semid,
				     int fd, int type)
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
	close(self->other);
	close(self->here);
}

TEST_F(sem, setns_to_other_ipc_ns_applies_semadj)
{
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, self->other,
					    CLONE_NEWIPC), 2);
}

TEST_F(sem, setns_to_same_ipc_ns_applies_semadj_too)
{
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, self->here, 0), 2);
}

/* The control: a setns of another type leaves the undo pending. */
TEST_F(sem, setns_of_other_type_keeps_semadj)
{
	int uts = nsfd_open_ns(0, "uts");

	ASSERT_GE(uts, 0);
	ASSERT_EQ(semval_after_worker_setns(_metadata, self->semid, uts, CLONE_NEWUTS), 3);
	close(uts);
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
