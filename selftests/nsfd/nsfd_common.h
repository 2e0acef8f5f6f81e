/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every nsfd selftest uses: the table of the /proc/<pid>/ns entries,
 * opening and naming namespace files, credentials (capset without libcap,
 * an unprivileged uid, user namespace maps), a child that holds
 * namespaces until it is released, and the probes that turn a missing
 * CONFIG option, a missing privilege or a user namespace restriction into
 * a SKIP that names it.
 *
 * Functions return 0 or a value on success and -errno on failure, so that
 * a test can assert the exact errno of the step that failed.
 */
#ifndef NSFD_COMMON_H
#define NSFD_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <linux/types.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define NOBODY_UID	65534
#define NOBODY_GID	65534

struct nsfd_ns {
	const char *name;	/* the /proc/<pid>/ns entry */
	const char *real_name;	/* what readlink shows before ":[" */
	int type;
	const char *config;	/* NULL: always there */
	const char *changes;	/* the entry a setns with this fd changes */
	bool has_parent;	/* it has a parent (NS_GET_PARENT) */
};

/* Every entry of /proc/<pid>/ns in 6.12 (fs/proc/namespaces.c ns_entries[]). */
enum {
	NSFD_NS_cgroup,
	NSFD_NS_ipc,
	NSFD_NS_mnt,
	NSFD_NS_net,
	NSFD_NS_pid,
	NSFD_NS_pid_for_children,
	NSFD_NS_time,
	NSFD_NS_time_for_children,
	NSFD_NS_user,
	NSFD_NS_uts,
	NSFD_NS_COUNT
};

#define NSFD_NR_NS	((unsigned int)NSFD_NS_COUNT)

/*
 * The one table of them, indexed by NSFD_NS_*. A fixture with a variant
 * per entry names each variant after its entry:
 * FIXTURE_VARIANT_ADD(f, cgroup) { .ns = &nsfd_ns_entries[NSFD_NS_cgroup] }.
 */
static const struct nsfd_ns nsfd_ns_entries[NSFD_NS_COUNT] = {
	[NSFD_NS_cgroup] = {
		.name = "cgroup", .real_name = "cgroup",
		.type = CLONE_NEWCGROUP, .config = "CONFIG_CGROUPS",
		.changes = "cgroup", .has_parent = false,
	},
	[NSFD_NS_ipc] = {
		.name = "ipc", .real_name = "ipc",
		.type = CLONE_NEWIPC, .config = "CONFIG_IPC_NS",
		.changes = "ipc", .has_parent = false,
	},
	[NSFD_NS_mnt] = {
		.name = "mnt", .real_name = "mnt",
		.type = CLONE_NEWNS, .config = NULL,
		.changes = "mnt", .has_parent = false,
	},
	[NSFD_NS_net] = {
		.name = "net", .real_name = "net",
		.type = CLONE_NEWNET, .config = "CONFIG_NET_NS",
		.changes = "net", .has_parent = false,
	},
	[NSFD_NS_pid] = {
		.name = "pid", .real_name = "pid",
		.type = CLONE_NEWPID, .config = "CONFIG_PID_NS",
		.changes = "pid_for_children", .has_parent = true,
	},
	[NSFD_NS_pid_for_children] = {
		.name = "pid_for_children", .real_name = "pid",
		.type = CLONE_NEWPID, .config = "CONFIG_PID_NS",
		.changes = "pid_for_children", .has_parent = true,
	},
	[NSFD_NS_time] = {
		.name = "time", .real_name = "time",
		.type = CLONE_NEWTIME, .config = "CONFIG_TIME_NS",
		.changes = "time_for_children", .has_parent = false,
	},
	[NSFD_NS_time_for_children] = {
		.name = "time_for_children", .real_name = "time",
		.type = CLONE_NEWTIME, .config = "CONFIG_TIME_NS",
		.changes = "time_for_children", .has_parent = false,
	},
	[NSFD_NS_user] = {
		.name = "user", .real_name = "user",
		.type = CLONE_NEWUSER, .config = "CONFIG_USER_NS",
		.changes = "user", .has_parent = true,
	},
	[NSFD_NS_uts] = {
		.name = "uts", .real_name = "uts",
		.type = CLONE_NEWUTS, .config = "CONFIG_UTS_NS",
		.changes = "uts", .has_parent = false,
	},
};

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
static inline int nsfd_ns_link(pid_t pid, const char *name, char *buf,
			       size_t size)
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
static inline int nsfd_detached_ns(int type, const char *name,
				   const char *entry)
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

	if (nsfd_read_file("/proc/sys/kernel/unprivileged_userns_clone", buf,
			   sizeof(buf)))
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
		{ .effective = (__u32)(keep >> 32),
		  .permitted = (__u32)(keep >> 32) },
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
	if (setgroups(0, NULL) ||
	    setresgid(NOBODY_GID, NOBODY_GID, NOBODY_GID) ||
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

static inline int nsfd_child_start(struct nsfd_child *c, int (*fn)(void *),
				   void *arg)
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

/* One byte down @fd; a reader that is gone already is no SIGPIPE. */
static inline void nsfd_child_poke(int fd)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	ssize_t n;

	sigaction(SIGPIPE, &ign, &old);
	n = write(fd, "", 1);
	sigaction(SIGPIPE, &old, NULL);
	(void)n;
}

/* Release the child, wait until it is reaped; its wait status. */
static inline int nsfd_child_finish(struct nsfd_child *c)
{
	int status = -1;

	if (c->pid <= 0)
		return -1;
	/*
	 * A byte, not just EOF: children forked since hold copies of this
	 * write end (O_CLOEXEC closes nothing at fork), so the close alone
	 * would not wake this child while another one lives.
	 */
	nsfd_child_poke(c->release);
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

/*
 * Probes, run once when the binary starts (the harness forks every test
 * from the process that ran them), so that each test can SKIP with the
 * reason: a namespace type the kernel lacks, no root, or a user namespace
 * that cannot be had.
 */

/* A child runs @fn; its exit code (0..255), or 255 if it did not exit. */
static inline int nsfd_in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 255;
	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

static inline int nsfd_probe_unshare(void *flags)
{
	return unshare(*(int *)flags) ? errno : 0;
}

enum { NSFD_NO = 0, NSFD_YES = 1, NSFD_UNKNOWN = -1 };

/* 1: the kernel has namespaces of @type, 0: it has not, -1: cannot tell. */
static int nsfd_have_type[NSFD_NR_NS];

static inline int nsfd_probe_type(int type)
{
	int flags = type, err;

	/* Without CONFIG_CGROUPS there is no /proc/self/cgroup. */
	if (type == CLONE_NEWCGROUP)
		return access("/proc/self/cgroup", F_OK) ? NSFD_NO : NSFD_YES;
	if (type == CLONE_NEWNS)
		return NSFD_YES;
	/*
	 * create_new_namespaces(): each copy_*() of a type that is off is
	 * EINVAL.
	 */
	err = nsfd_in_child(nsfd_probe_unshare, &flags);
	if (err == EPERM && type != CLONE_NEWUSER) {
		flags = CLONE_NEWUSER | type;
		err = nsfd_in_child(nsfd_probe_unshare, &flags);
		if (err == EINVAL && nsfd_probe_type(CLONE_NEWUSER) != NSFD_YES)
			return NSFD_UNKNOWN;
	}
	if (!err)
		return NSFD_YES;
	if (err == EINVAL)
		return NSFD_NO;
	/* EPERM, ENOSPC, ...: the type exists, we may not make one. */
	return err == EPERM ? NSFD_UNKNOWN : NSFD_YES;
}

static inline bool nsfd_is_root(void);

/*
 * Why a user namespace in which we hold capabilities cannot be had
 * (from root, or from uid 65534 with @as_nobody), or NULL.
 */
static char nsfd_userns_why[2][160];

static inline int nsfd_probe_userns(void *nobody)
{
	uid_t uid;
	gid_t gid;
	int err;

	if (*(bool *)nobody && nsfd_become_nobody())
		return 100;
	uid = geteuid();
	gid = getegid();
	if (unshare(CLONE_NEWUSER))
		return errno;
	err = nsfd_map_root_to(uid, gid);
	if (err)
		return 101;
	/*
	 * An LSM (AppArmor) may let the unshare pass and deny the caps in it.
	 */
	if (unshare(CLONE_NEWUTS) && errno == EPERM)
		return 102;
	return 0;
}

#define NSFD_WHY_APPARMOR \
	"AppArmor restricts user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"

static inline const char *nsfd_probe_userns_why(bool as_nobody, char *buf,
						size_t size)
{
	char val[32] = "";
	int err;

	if (as_nobody && !nsfd_is_root())
		return "needs root to become uid 65534";
	err = nsfd_in_child(nsfd_probe_userns, &as_nobody);
	switch (err) {
	case 0:
		return NULL;
	case EINVAL:
		return "CONFIG_USER_NS is off";
	case ENOSPC:
		nsfd_read_file("/proc/sys/user/max_user_namespaces", val,
			       sizeof(val));
		val[strcspn(val, "\n")] = '\0';
		snprintf(buf, size,
			 "no user namespace left (user.max_user_namespaces=%s)",
			 val);
		return buf;
	case EPERM:
		if (!nsfd_read_file("/proc/sys/kernel/unprivileged_userns_clone",
				    val, sizeof(val)) && val[0] == '0')
			return "kernel.unprivileged_userns_clone is 0";
		return "unshare(CLONE_NEWUSER) is EPERM (an LSM restricts user namespaces)";
	case 101:
	case 102:
		if (!nsfd_read_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
				    val, sizeof(val)) && val[0] == '1')
			return NSFD_WHY_APPARMOR;
		return "no capabilities in a new user namespace (an LSM restricts it)";
	}
	snprintf(buf, size, "cannot make a user namespace (%s)",
		 err < 100 ? strerror(err) : "setup failed");
	return buf;
}

static const char *nsfd_userns_reason[2];

/*
 * Before nsfs had a compat_ioctl (6.1 has none, 6.12 has compat_ptr_ioctl),
 * every NS_GET_* ioctl from a 32-bit task on a 64-bit kernel is ENOTTY.
 * Asked only of a 32-bit ABI: a native task always has NS_GET_NSTYPE
 * (4.11), so ENOTTY there is a failure, never a reason to skip.
 */
#define NSFD_WHY_NSFS_COMPAT \
	"nsfs ioctls are ENOTTY to this 32-bit ABI (this kernel's nsfs has no compat_ioctl)"

static const char *nsfd_nsfs_ioctl_reason;

static inline const char *nsfd_probe_nsfs_ioctl(void)
{
	const char *why = NULL;
	int fd;

	if (sizeof(long) != 4)
		return NULL;
	fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (ioctl(fd, NS_GET_NSTYPE) < 0 && errno == ENOTTY)
		why = NSFD_WHY_NSFS_COMPAT;
	close(fd);
	return why;
}

/* CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and CAP_NET_ADMIN, as uid 0. */
static inline bool nsfd_is_root(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	__u32 need = 1U << CAP_SYS_ADMIN | 1U << CAP_SETUID | 1U << CAP_SETGID |
		     1U << CAP_NET_ADMIN;

	if (geteuid() != 0 || syscall(SYS_capget, &hdr, data))
		return false;
	return (data[0].effective & need) == need;
}

static void __attribute__((constructor)) nsfd_probe(void)
{
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++)
		nsfd_have_type[i] = i && nsfd_ns_entries[i].type ==
					 nsfd_ns_entries[i - 1].type ?
				    nsfd_have_type[i - 1] :
				    nsfd_probe_type(nsfd_ns_entries[i].type);
	for (i = 0; i < 2; i++)
		nsfd_userns_reason[i] =
			nsfd_probe_userns_why(i, nsfd_userns_why[i],
					      sizeof(nsfd_userns_why[i]));
	nsfd_nsfs_ioctl_reason = nsfd_probe_nsfs_ioctl();
}

/* "CONFIG_X is off" if the kernel has no namespaces of @type, else NULL. */
static inline const char *nsfd_ns_missing(int type)
{
	static char why[64];
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++)
		if (nsfd_ns_entries[i].type == type &&
		    nsfd_have_type[i] == NSFD_NO) {
			snprintf(why, sizeof(why), "%s is off",
				 nsfd_ns_entries[i].config);
			return why;
		}
	return NULL;
}

/* SKIP (and return) when a namespace type of @types is not built in. */
#define NSFD_REQUIRE_NS(types) do {					\
	unsigned int __i;						\
	for (__i = 0; __i < NSFD_NR_NS; __i++) {			\
		const char *__why;					\
		if (!(nsfd_ns_entries[__i].type & (types)))		\
			continue;					\
		__why = nsfd_ns_missing(nsfd_ns_entries[__i].type);	\
		if (__why)						\
			SKIP(return, "%s", __why);		\
	}								\
} while (0)

#define NSFD_REQUIRE_ROOT() do {					\
	if (!nsfd_is_root())						\
		SKIP(return,					\
		     "needs root with CAP_SYS_ADMIN (euid %u)",		\
		     geteuid());					\
} while (0)

/* A user namespace of our own with caps in it (as root, or as uid 65534). */
#define NSFD_REQUIRE_USERNS(as_nobody) do {				\
	const char *__userns_why;					\
									\
	NSFD_REQUIRE_NS(CLONE_NEWUSER);					\
	__userns_why = nsfd_userns_reason[!!(as_nobody)];		\
	if (__userns_why)						\
		SKIP(return, "%s", __userns_why);		\
} while (0)

/* SKIP (and return) when this ABI cannot use the NS_GET_* ioctls at all. */
#define NSFD_REQUIRE_NSFS_IOCTLS() do {					\
	if (nsfd_nsfs_ioctl_reason)					\
		SKIP(return, "%s", nsfd_nsfs_ioctl_reason);	\
} while (0)

#endif /* NSFD_COMMON_H */
