/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every nsfd selftest uses: the table of the /proc/<pid>/ns entries,
 * opening and naming namespace files, credentials (capabilities without
 * libcap, another uid, user namespace maps), a child that holds
 * namespaces until it is released, and the probes that turn a namespace
 * type the kernel lacks, a missing privilege or a user namespace that
 * cannot be had into a SKIP that says what was measured.
 *
 * Functions return 0 or a value on success and -errno on failure, so that
 * a test can assert the exact errno of the step that failed. A probe runs
 * when a test first asks for its answer, and only that test's process
 * remembers it.
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
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/*
 * <linux/pidfd.h> includes <linux/fcntl.h>, whose struct flock clashes
 * with the C library's <fcntl.h>; nothing used here needs it.
 */
#ifndef _LINUX_FCNTL_H
#define _LINUX_FCNTL_H
#define NSFD_UNDEF_LINUX_FCNTL_H
#endif
#include <linux/pidfd.h>
#ifdef NSFD_UNDEF_LINUX_FCNTL_H
#undef _LINUX_FCNTL_H
#undef NSFD_UNDEF_LINUX_FCNTL_H
#endif

/* The pidfd ioctls of 6.11, for uapi headers that predate them. */
#ifndef PIDFS_IOCTL_MAGIC
#define PIDFS_IOCTL_MAGIC	0xFF
#endif
#ifndef PIDFD_GET_CGROUP_NAMESPACE
#define PIDFD_GET_CGROUP_NAMESPACE		_IO(PIDFS_IOCTL_MAGIC, 1)
#define PIDFD_GET_IPC_NAMESPACE			_IO(PIDFS_IOCTL_MAGIC, 2)
#define PIDFD_GET_MNT_NAMESPACE			_IO(PIDFS_IOCTL_MAGIC, 3)
#define PIDFD_GET_NET_NAMESPACE			_IO(PIDFS_IOCTL_MAGIC, 4)
#define PIDFD_GET_PID_NAMESPACE			_IO(PIDFS_IOCTL_MAGIC, 5)
#define PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE	_IO(PIDFS_IOCTL_MAGIC, 6)
#define PIDFD_GET_TIME_NAMESPACE		_IO(PIDFS_IOCTL_MAGIC, 7)
#define PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE	_IO(PIDFS_IOCTL_MAGIC, 8)
#define PIDFD_GET_USER_NAMESPACE		_IO(PIDFS_IOCTL_MAGIC, 9)
#define PIDFD_GET_UTS_NAMESPACE			_IO(PIDFS_IOCTL_MAGIC, 10)
#endif

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
	const char *flag;	/* the name of @type */
	int type;		/* its CLONE_NEW* flag */
	const char *config;	/* NULL: always built in */
	const char *changes;	/* the entry a setns with this fd changes */
	bool has_parent;	/* it has a parent (NS_GET_PARENT) */
	unsigned long pidfd_get; /* PIDFD_GET_<entry>_NAMESPACE */
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
 * Entries of one type (pid and pid_for_children, time and
 * time_for_children) are next to each other.
 */
static const struct nsfd_ns nsfd_ns_entries[NSFD_NS_COUNT] = {
	[NSFD_NS_cgroup] = {
		.name = "cgroup", .real_name = "cgroup",
		.flag = "CLONE_NEWCGROUP", .type = CLONE_NEWCGROUP,
		.config = "CONFIG_CGROUPS", .changes = "cgroup",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_CGROUP_NAMESPACE,
	},
	[NSFD_NS_ipc] = {
		.name = "ipc", .real_name = "ipc",
		.flag = "CLONE_NEWIPC", .type = CLONE_NEWIPC,
		.config = "CONFIG_IPC_NS", .changes = "ipc",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_IPC_NAMESPACE,
	},
	[NSFD_NS_mnt] = {
		.name = "mnt", .real_name = "mnt",
		.flag = "CLONE_NEWNS", .type = CLONE_NEWNS,
		.config = NULL, .changes = "mnt",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_MNT_NAMESPACE,
	},
	[NSFD_NS_net] = {
		.name = "net", .real_name = "net",
		.flag = "CLONE_NEWNET", .type = CLONE_NEWNET,
		.config = "CONFIG_NET_NS", .changes = "net",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_NET_NAMESPACE,
	},
	[NSFD_NS_pid] = {
		.name = "pid", .real_name = "pid",
		.flag = "CLONE_NEWPID", .type = CLONE_NEWPID,
		.config = "CONFIG_PID_NS", .changes = "pid_for_children",
		.has_parent = true,
		.pidfd_get = PIDFD_GET_PID_NAMESPACE,
	},
	[NSFD_NS_pid_for_children] = {
		.name = "pid_for_children", .real_name = "pid",
		.flag = "CLONE_NEWPID", .type = CLONE_NEWPID,
		.config = "CONFIG_PID_NS", .changes = "pid_for_children",
		.has_parent = true,
		.pidfd_get = PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE,
	},
	[NSFD_NS_time] = {
		.name = "time", .real_name = "time",
		.flag = "CLONE_NEWTIME", .type = CLONE_NEWTIME,
		.config = "CONFIG_TIME_NS", .changes = "time_for_children",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_TIME_NAMESPACE,
	},
	[NSFD_NS_time_for_children] = {
		.name = "time_for_children", .real_name = "time",
		.flag = "CLONE_NEWTIME", .type = CLONE_NEWTIME,
		.config = "CONFIG_TIME_NS", .changes = "time_for_children",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE,
	},
	[NSFD_NS_user] = {
		.name = "user", .real_name = "user",
		.flag = "CLONE_NEWUSER", .type = CLONE_NEWUSER,
		.config = "CONFIG_USER_NS", .changes = "user",
		.has_parent = true,
		.pidfd_get = PIDFD_GET_USER_NAMESPACE,
	},
	[NSFD_NS_uts] = {
		.name = "uts", .real_name = "uts",
		.flag = "CLONE_NEWUTS", .type = CLONE_NEWUTS,
		.config = "CONFIG_UTS_NS", .changes = "uts",
		.has_parent = false,
		.pidfd_get = PIDFD_GET_UTS_NAMESPACE,
	},
};

/* The first entry of @type (a CLONE_NEW* flag), NULL if none. */
static inline const struct nsfd_ns *nsfd_ns_of_type(int type)
{
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++)
		if (nsfd_ns_entries[i].type == type)
			return &nsfd_ns_entries[i];
	return NULL;
}

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

#define NSFD_ERRNO(e)	{ e, #e }

/* The name of errno @err ("EPERM"), "ok" for 0, else "errno N". */
static inline const char *nsfd_errname(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		NSFD_ERRNO(EPERM), NSFD_ERRNO(ENOENT), NSFD_ERRNO(ESRCH),
		NSFD_ERRNO(EINTR), NSFD_ERRNO(EIO), NSFD_ERRNO(EBADF),
		NSFD_ERRNO(ECHILD), NSFD_ERRNO(EAGAIN), NSFD_ERRNO(ENOMEM),
		NSFD_ERRNO(EACCES), NSFD_ERRNO(EFAULT), NSFD_ERRNO(EBUSY),
		NSFD_ERRNO(EEXIST), NSFD_ERRNO(ENODEV), NSFD_ERRNO(EINVAL),
		NSFD_ERRNO(ENFILE), NSFD_ERRNO(EMFILE), NSFD_ERRNO(ENOTTY),
		NSFD_ERRNO(ENOSPC), NSFD_ERRNO(EROFS), NSFD_ERRNO(ENOSYS),
		NSFD_ERRNO(EUSERS), NSFD_ERRNO(ENOTSOCK),
		NSFD_ERRNO(EPROTOTYPE), NSFD_ERRNO(EPROTONOSUPPORT),
		NSFD_ERRNO(ESOCKTNOSUPPORT), NSFD_ERRNO(EOPNOTSUPP),
		NSFD_ERRNO(EAFNOSUPPORT), NSFD_ERRNO(ENOBUFS),
		NSFD_ERRNO(ETIMEDOUT), NSFD_ERRNO(ECONNREFUSED),
	};
	static char buf[4][16];
	static unsigned int next;
	unsigned int i;
	char *b;

	if (!err)
		return "ok";
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	b = buf[next++ % ARRAY_SIZE(buf)];
	snprintf(b, sizeof(buf[0]), "errno %d", err);
	return b;
}

static inline int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

/*
 * /proc, opened when the program starts, by whoever started it (root
 * under run_kselftest.sh). The helpers below walk every path under /proc
 * from this fd, never from "/": a walk from "/" needs search permission
 * on the root directory (fs/namei.c may_lookup()), and a cpio initramfs
 * whose "." entry has mode 0700 (packed from a mktemp -d directory) gives
 * the root directory that mode (init/initramfs.c do_name()). There uid
 * 65534 gets EACCES before procfs is asked anything (and so does root in
 * a new user namespace when "/" belongs to the packer's uid), and a test
 * would judge the rootfs instead of procfs. -errno if /proc could not be
 * opened: the helpers then walk from "/".
 */
static int nsfd_proc_dir = -EBADF;

static inline void __attribute__((constructor)) nsfd_open_proc_dir(void)
{
	nsfd_proc_dir = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (nsfd_proc_dir < 0)
		nsfd_proc_dir = -errno;
}

/*
 * The dirfd to walk @path from, for the *at() calls: nsfd_proc_dir, with
 * *@rel the part after "/proc/", for a path under /proc; else AT_FDCWD,
 * with *@rel = @path.
 */
static inline int nsfd_at(const char *path, const char **rel)
{
	static const char proc[] = "/proc/";
	size_t len = sizeof(proc) - 1;

	if (nsfd_proc_dir >= 0 && !strncmp(path, proc, len) && path[len]) {
		*rel = path + len;
		return nsfd_proc_dir;
	}
	*rel = path;
	return AT_FDCWD;
}

/* The path of /proc/<pid>/ns/<name> (pid 0: self) in @buf. */
static inline const char *nsfd_ns_path(pid_t pid, const char *name,
				       char *buf, size_t size)
{
	if (pid)
		snprintf(buf, size, "/proc/%d/ns/%s", pid, name);
	else
		snprintf(buf, size, "/proc/self/ns/%s", name);
	return buf;
}

/* Open /proc/<pid>/ns/<name> (pid 0: self). */
static inline int nsfd_open_ns(pid_t pid, const char *name)
{
	const char *rel;
	char path[64];
	int dir;

	dir = nsfd_at(nsfd_ns_path(pid, name, path, sizeof(path)), &rel);
	return nsfd_err(openat(dir, rel, O_RDONLY | O_CLOEXEC));
}

/* readlink of /proc/<pid>/ns/<name> into buf, NUL-terminated. */
static inline int nsfd_ns_link(pid_t pid, const char *name, char *buf,
			       size_t size)
{
	const char *rel;
	char path[64];
	ssize_t n;
	int dir;

	dir = nsfd_at(nsfd_ns_path(pid, name, path, sizeof(path)), &rel);
	n = readlinkat(dir, rel, buf, size - 1);
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
	const char *rel;
	char path[64];
	struct stat st;
	int dir;

	dir = nsfd_at(nsfd_ns_path(0, name, path, sizeof(path)), &rel);
	return fstatat(dir, rel, &st, 0) ? 0 : st.st_ino;
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
	int dir, fd, err = 0;
	const char *rel;

	dir = nsfd_at(path, &rel);
	fd = openat(dir, rel, O_WRONLY | O_CLOEXEC);
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
	const char *rel;
	int dir, fd;
	ssize_t n;

	dir = nsfd_at(path, &rel);
	fd = openat(dir, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/*
 * Capabilities, as masks of NSFD_CAP(CAP_*), without libcap. Each call
 * changes the calling thread only.
 */
#define NSFD_CAP(c)	(1ULL << (c))

static inline int nsfd_capget(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return nsfd_err(syscall(SYS_capget, &hdr, data));
}

static inline int nsfd_capset(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return nsfd_err(syscall(SYS_capset, &hdr, data));
}

/* The effective set now; 0 if capget() failed. */
static inline __u64 nsfd_get_caps(void)
{
	struct __user_cap_data_struct data[2] = {};

	if (nsfd_capget(data))
		return 0;
	return data[0].effective | (__u64)data[1].effective << 32;
}

/* Effective = permitted = @keep, inheritable = 0. */
static inline int nsfd_set_caps(__u64 keep)
{
	struct __user_cap_data_struct data[2] = {
		{ .effective = (__u32)keep, .permitted = (__u32)keep },
		{ .effective = (__u32)(keep >> 32),
		  .permitted = (__u32)(keep >> 32) },
	};

	return nsfd_capset(data);
}

/* Drop @caps from every set for good, keep the rest. */
static inline int nsfd_drop_caps(__u64 caps)
{
	return nsfd_set_caps(nsfd_get_caps() & ~caps);
}

/*
 * Take @lower out of the effective set and put @raise back into it (as
 * far as the permitted set has them).
 */
static inline int nsfd_change_effective(__u64 lower, __u64 raise)
{
	struct __user_cap_data_struct data[2] = {};
	int err = nsfd_capget(data), i;

	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		data[i].effective &= ~(__u32)(lower >> (32 * i));
		data[i].effective |= (__u32)(raise >> (32 * i)) &
				     data[i].permitted;
	}
	return nsfd_capset(data);
}

/* Lower @caps in the effective set only: nsfd_raise_caps() gets them back. */
static inline int nsfd_lower_caps(__u64 caps)
{
	return nsfd_change_effective(caps, 0);
}

static inline int nsfd_raise_caps(__u64 caps)
{
	return nsfd_change_effective(0, caps);
}

/* What the tests that need root use of it. */
#define NSFD_ROOT_CAPS	(NSFD_CAP(CAP_SYS_ADMIN) | NSFD_CAP(CAP_SETUID) | \
			 NSFD_CAP(CAP_SETGID) | NSFD_CAP(CAP_NET_ADMIN))

static inline bool nsfd_is_root(void)
{
	return geteuid() == 0 &&
	       (nsfd_get_caps() & NSFD_ROOT_CAPS) == NSFD_ROOT_CAPS;
}

/* Why the caller is not root as NSFD_ROOT_CAPS has it, or NULL. */
static inline const char *nsfd_why_not_root(void)
{
	static char why[160];

	if (nsfd_is_root())
		return NULL;
	snprintf(why, sizeof(why),
		 "needs euid 0 with CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and CAP_NET_ADMIN: euid %u, effective capabilities %#llx",
		 geteuid(), (unsigned long long)nsfd_get_caps());
	return why;
}

/*
 * Become uid @uid and gid @gid, with no supplementary groups. Without
 * PR_SET_KEEPCAPS a uid other than 0 has no capabilities left.
 */
static inline int nsfd_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/*
 * Become uid/gid 65534 with no groups and no capabilities, and stay
 * dumpable, so that /proc/self/{uid,gid}_map stay writable by this
 * process.
 */
static inline int nsfd_become_nobody(void)
{
	int err = nsfd_become(NOBODY_UID, NOBODY_GID);

	return err ? err : nsfd_err(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

/*
 * In a new user namespace: map root inside to @uid/@gid outside. 0, or
 * the -errno of the first write that failed; the file it was to is left
 * in *@failed (when @failed is not NULL).
 */
static inline int nsfd_map_root(uid_t uid, gid_t gid, const char **failed)
{
	char map[3][32];
	static const char *const file[] = {
		"/proc/self/setgroups", "/proc/self/uid_map",
		"/proc/self/gid_map",
	};
	unsigned int i;
	int err;

	snprintf(map[0], sizeof(map[0]), "deny");
	snprintf(map[1], sizeof(map[1]), "0 %u 1", uid);
	snprintf(map[2], sizeof(map[2]), "0 %u 1", gid);
	for (i = 0; i < ARRAY_SIZE(file); i++) {
		err = nsfd_write_file(file[i], map[i]);
		if (err) {
			if (failed)
				*failed = file[i];
			return err;
		}
	}
	return 0;
}

/* unshare(CLONE_NEWUSER | @more) and map root inside to who we were. */
static inline int nsfd_unshare_userns(int more)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | more))
		return -errno;
	return nsfd_map_root(uid, gid, NULL);
}

/*
 * A child that sets up namespaces and then holds them until it is
 * released. nsfd_child_start() forks; the child runs @fn (0 or -errno),
 * reports the result, and on success waits until nsfd_child_finish()
 * releases it, or until the process that started it is gone; then it
 * reaps its own children and exits 0. Grandchildren that @fn forks can
 * wait for the same release with nsfd_child_wait_release().
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

/*
 * In a child of nsfd_child_start(), after unshare(CLONE_NEWPID): fork the
 * new pid namespace's init (pid_for_children has no link, and no fd, until
 * it exists), which exits on the child's release. 0 or -errno.
 */
static inline int nsfd_fork_pidns_init(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		nsfd_child_wait_release();
		_exit(0);
	}
	return 0;
}

static inline int nsfd_child_start(struct nsfd_child *c, int (*fn)(void *),
				   void *arg)
{
	int ready[2], release[2], ret = -EPROTO;
	pid_t pid;

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
	/*
	 * Only the parent writes @c: it may sit in memory the child shares
	 * (a FIXTURE_TEARDOWN_PARENT fixture's data is MAP_SHARED).
	 */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(ready[0]);
		close(ready[1]);
		close(release[0]);
		close(release[1]);
		return ret;
	}
	if (pid == 0) {
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
	c->pid = pid;
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

/*
 * Probes. Each runs when a test first asks for its answer, forks at most
 * a child or two, and is remembered by that test's process only: the
 * harness runs every test in a process of its own.
 */

enum { NSFD_NO = 0, NSFD_YES = 1, NSFD_UNKNOWN = -1 };

/* What unshare() in a child says about one namespace type. */
struct nsfd_type_probe {
	int have;	/* NSFD_YES, NSFD_NO or NSFD_UNKNOWN */
	char why[128];	/* for NSFD_NO and NSFD_UNKNOWN: what was seen */
};

static inline int nsfd_probe_unshare(void *flags)
{
	return unshare(*(int *)flags) ? errno : 0;
}

/* The exit code of nsfd_in_child(nsfd_probe_unshare), as a message. */
static inline const char *nsfd_probe_errname(int err)
{
	return err == 255 ? "probe child did not exit" : nsfd_errname(err);
}

static inline const struct nsfd_type_probe *nsfd_type(int type);

/*
 * create_new_namespaces(): the copy_*() of a type that is configured out
 * fails unshare() with EINVAL. Without CAP_SYS_ADMIN an unshare() is
 * EPERM whatever the type; it is asked again inside a new user namespace
 * then. cgroup is told by /proc/self/cgroup (without CONFIG_CGROUPS
 * copy_cgroup_ns() accepts CLONE_NEWCGROUP and does nothing); mnt is
 * always built in.
 */
static inline void nsfd_probe_type(int type, struct nsfd_type_probe *p)
{
	const struct nsfd_ns *ns = nsfd_ns_of_type(type);
	int flags = type, err, err_userns, dir;
	const char *rel;

	p->have = NSFD_YES;
	p->why[0] = '\0';
	if (!ns || type == CLONE_NEWNS)
		return;
	if (type == CLONE_NEWCGROUP) {
		dir = nsfd_at("/proc/self/cgroup", &rel);
		if (faccessat(dir, rel, F_OK, 0)) {
			p->have = NSFD_NO;
			snprintf(p->why, sizeof(p->why),
				 "%s is off (no /proc/self/cgroup: %s)",
				 ns->config, nsfd_errname(errno));
		}
		return;
	}
	err = nsfd_in_child(nsfd_probe_unshare, &flags);
	if (!err)
		return;
	if (err == EINVAL) {
		p->have = NSFD_NO;
		snprintf(p->why, sizeof(p->why), "%s is off (unshare(%s): %s)",
			 ns->config, ns->flag, nsfd_errname(err));
		return;
	}
	if (err != EPERM || type == CLONE_NEWUSER) {
		/*
		 * ENOSPC and the like: the type is there, no new one. EPERM
		 * for user, or no answer: nothing to tell by.
		 */
		if (err == EPERM || err == 255) {
			p->have = NSFD_UNKNOWN;
			snprintf(p->why, sizeof(p->why),
				 "cannot tell whether %s is on: unshare(%s): %s",
				 ns->config, ns->flag, nsfd_probe_errname(err));
		}
		return;
	}
	flags = CLONE_NEWUSER | type;
	err_userns = nsfd_in_child(nsfd_probe_unshare, &flags);
	if (!err_userns)
		return;
	if (err_userns == EINVAL &&
	    nsfd_type(CLONE_NEWUSER)->have == NSFD_YES) {
		p->have = NSFD_NO;
		snprintf(p->why, sizeof(p->why),
			 "%s is off (unshare(CLONE_NEWUSER | %s): %s)",
			 ns->config, ns->flag, nsfd_errname(err_userns));
		return;
	}
	if (err_userns == EINVAL || err_userns == EPERM || err_userns == 255) {
		p->have = NSFD_UNKNOWN;
		snprintf(p->why, sizeof(p->why),
			 "cannot tell whether %s is on: unshare(%s): %s, unshare(CLONE_NEWUSER | %s): %s",
			 ns->config, ns->flag, nsfd_errname(err), ns->flag,
			 nsfd_probe_errname(err_userns));
	}
}

/* The probe of @type (one CLONE_NEW* flag), run on first use. */
static inline const struct nsfd_type_probe *nsfd_type(int type)
{
	static struct nsfd_type_probe probes[32];
	static unsigned int probed;
	struct nsfd_type_probe *p = &probes[ffs(type) - 1];

	if (!(probed & (unsigned int)type)) {
		nsfd_probe_type(type, p);
		probed |= (unsigned int)type;
	}
	return p;
}

/* NSFD_YES, NSFD_NO or NSFD_UNKNOWN: the kernel has namespaces of @type. */
static inline int nsfd_ns_have(int type)
{
	return nsfd_type(type)->have;
}

/*
 * Why the kernel lacks namespaces of one of @types (CLONE_NEW* flags,
 * or'ed: "CONFIG_NET_NS is off (...)"), or NULL. A type that cannot be
 * told is taken to be there.
 */
static inline const char *nsfd_ns_missing(int types)
{
	unsigned int i;

	for (i = 0; i < NSFD_NR_NS; i++) {
		const struct nsfd_type_probe *p;

		if (!(nsfd_ns_entries[i].type & types))
			continue;
		p = nsfd_type(nsfd_ns_entries[i].type);
		if (p->have == NSFD_NO)
			return p->why;
	}
	return NULL;
}

/* Where the user namespace probe's child leaves what it saw. */
struct nsfd_userns_probe {
	char step[128];		/* the step that failed; "" if none did */
	int err;		/* its errno */
	bool unprivileged;	/* no CAP_SYS_ADMIN when it unshared */
};

/*
 * The child's side: become uid 65534 if asked, then what the tests do,
 * step by step: a new user namespace, root in it mapped to who we were,
 * and a capability in it (unshare(CLONE_NEWNS) needs CAP_SYS_ADMIN
 * there; mnt is always built in).
 */
static inline void nsfd_userns_probe_child(struct nsfd_userns_probe *p,
					   bool as_nobody)
{
	const char *file = "";
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int err;

	if (as_nobody) {
		err = nsfd_become_nobody();
		if (err) {
			snprintf(p->step, sizeof(p->step),
				 "becoming uid %u from euid %u", NOBODY_UID,
				 uid);
			p->err = -err;
			return;
		}
		uid = geteuid();
		gid = getegid();
	}
	p->unprivileged = !(nsfd_get_caps() & NSFD_CAP(CAP_SYS_ADMIN));
	if (unshare(CLONE_NEWUSER)) {
		p->err = errno;
		snprintf(p->step, sizeof(p->step),
			 "unshare(CLONE_NEWUSER) as uid %u", uid);
		return;
	}
	err = nsfd_map_root(uid, gid, &file);
	if (err) {
		p->err = -err;
		snprintf(p->step, sizeof(p->step),
			 "writing %s in a new user namespace as uid %u", file,
			 uid);
		return;
	}
	if (unshare(CLONE_NEWNS)) {
		p->err = errno;
		snprintf(p->step, sizeof(p->step),
			 "unshare(CLONE_NEWNS) in a new user namespace as uid %u",
			 uid);
	}
}

/* The sysctls that restrict user namespaces to privileged callers. */
static inline void nsfd_userns_sysctls(char *why, size_t size)
{
	static const struct {
		const char *file, *name, *restricts;
	} knobs[] = {
		{ "/proc/sys/kernel/unprivileged_userns_clone",
		  "kernel.unprivileged_userns_clone", "0" },
		{ "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		  "AppArmor: kernel.apparmor_restrict_unprivileged_userns",
		  "1" },
	};
	size_t len = strlen(why);
	unsigned int i;
	char val[16];

	for (i = 0; i < ARRAY_SIZE(knobs) && len < size; i++) {
		if (nsfd_read_file(knobs[i].file, val, sizeof(val)))
			continue;
		val[strcspn(val, "\n")] = '\0';
		if (strcmp(val, knobs[i].restricts))
			continue;
		len += snprintf(why + len, size - len, " (%s=%s)",
				knobs[i].name, val);
	}
}

/*
 * Run the user namespace probe in a child: NULL if a user namespace with
 * capabilities in it could be had (as uid 65534 with @as_nobody), else
 * the step that failed and its errno in @why.
 */
static inline const char *nsfd_probe_userns(bool as_nobody, char *why,
					    size_t size)
{
	struct nsfd_userns_probe *p;
	const char *ret = why;
	int status = 0;
	pid_t pid;

	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, size, "mmap for the user namespace probe: %s",
			 nsfd_errname(errno));
		return why;
	}
	pid = fork();
	if (pid == 0) {
		nsfd_userns_probe_child(p, as_nobody);
		_exit(0);
	}
	if (pid < 0) {
		snprintf(why, size, "fork for the user namespace probe: %s",
			 nsfd_errname(errno));
	} else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		snprintf(why, size,
			 "the user namespace probe child did not exit (status %#x)",
			 status);
	} else if (!p->step[0]) {
		ret = NULL;
	} else {
		snprintf(why, size, "%s: %s", p->step, nsfd_errname(p->err));
		if (p->unprivileged && (p->err == EPERM || p->err == EACCES))
			nsfd_userns_sysctls(why, size);
		if (p->err == ENOSPC) {
			char val[16] = "";

			nsfd_read_file("/proc/sys/user/max_user_namespaces",
				       val, sizeof(val));
			val[strcspn(val, "\n")] = '\0';
			snprintf(why + strlen(why), size - strlen(why),
				 " (user.max_user_namespaces=%s)", val);
		}
	}
	munmap(p, sizeof(*p));
	return ret;
}

/*
 * Why no user namespace with capabilities in it can be had, by the
 * caller as it is or as uid 65534 (@as_nobody), or NULL.
 */
static inline const char *nsfd_why_no_userns(bool as_nobody)
{
	static char why[2][256];
	static const char *answer[2];
	static bool probed[2];
	const char *missing = nsfd_ns_missing(CLONE_NEWUSER);

	if (missing)
		return missing;
	if (!probed[as_nobody]) {
		answer[as_nobody] = nsfd_probe_userns(as_nobody,
						      why[as_nobody],
						      sizeof(why[0]));
		probed[as_nobody] = true;
	}
	return answer[as_nobody];
}

/*
 * Before nsfs had a compat_ioctl (6.1 has none, 6.12 has compat_ptr_ioctl),
 * every NS_GET_* ioctl from a 32-bit task on a 64-bit kernel is ENOTTY.
 * Asked only of a 32-bit ABI: a native task always has NS_GET_NSTYPE
 * (4.11), so ENOTTY there is a failure, never a reason to skip. NULL, or
 * why the NS_GET_* ioctls cannot be used.
 */
#define NSFD_WHY_NSFS_COMPAT \
	"NS_GET_NSTYPE from this 32-bit ABI: ENOTTY (this kernel's nsfs has no compat_ioctl)"

static inline const char *nsfd_why_no_nsfs_ioctls(void)
{
	static const char *why;
	static bool probed;
	int fd;

	if (probed || sizeof(long) != 4)
		return why;
	probed = true;
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return why;
	if (ioctl(fd, NS_GET_NSTYPE) < 0 && errno == ENOTTY)
		why = NSFD_WHY_NSFS_COMPAT;
	close(fd);
	return why;
}

/*
 * SKIP the test, running @statement (return), when @why (a reason, or
 * NULL) says that it cannot run here:
 * NSFD_SKIP_IF(return, nsfd_ns_missing(CLONE_NEWNET)).
 */
#define NSFD_SKIP_IF(statement, why) do {				\
	const char *__why = (why);					\
									\
	if (__why)							\
		SKIP(statement, "%s", __why);				\
} while (0)

#endif /* NSFD_COMMON_H */
