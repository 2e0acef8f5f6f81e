// SPDX-License-Identifier: GPL-2.0
/*
 * socketat_bench: what one AF_INET/SOCK_DGRAM socket + close costs, made
 * six ways:
 *
 *   (a) socket(2);
 *   (b) socketat(-1, ...), the caller's own netns;
 *   (c) socketat(nsfd, ...), nsfd an nsfs fd of another netns;
 *   (d) the setns dance: setns(nsfd), socket(2), setns(orig), close;
 *   (e) a helper process in the other netns that makes the socket on
 *       request and passes it back over an AF_UNIX socketpair (SCM_RIGHTS);
 *   (f) the dance as real programs do it: a thread that did setns() into
 *       the other netns once (Go's LockOSThread, a per-netns worker) makes
 *       the socket on request and hands the fd number back in-process
 *       (a futex mailbox, what a condition variable costs at best): the
 *       best a user can do today without socketat.
 *
 * The ratios of every case to (a) and to (c) are in one JSON object.
 *
 * Then, not timed: the flaw of the dance (d) that no speed fixes. A signal
 * handler that runs between its two setns() calls and makes a socket of
 * its own gets it in the target netns; around socketat() it stays in the
 * caller's. Reported as "signal_during_dance".
 *
 * Then (c) again with 1, 100 and 1000 further network namespaces alive,
 * pinned by fds, to show that its cost does not grow with their number;
 * (a) is timed alongside, so that a change of the guest itself shows.
 *
 * Each case is warmed up, then timed REPS times over N iterations with
 * CLOCK_MONOTONIC; the cases take turns within each repetition, so that a
 * slow patch of the (TCG) guest hits all of them alike. The result of a
 * case is the median of its REPS per-iteration costs, in ns.
 *
 * The output is KTAP, for the guest's init to nest: one "# bench-json: "
 * line holds every number as one JSON object; the goals are reported, not
 * asserted. Exit 0 when everything was measured, 1 (and "not ok") when a
 * syscall failed unexpectedly. Without socketat cases (b), (c) and the
 * netns-alive runs are null, "skipped" says why, and the rest is still
 * measured. Whether socketat exists is decided by the uapi headers the
 * bench is built with (__NR_socketat; no number is written here: build
 * with -isystem <the tree's installed headers>) and by a probe that must
 * return an AF_INET socket.
 *
 * Runs as root; it creates network namespaces, so it belongs in a guest.
 *
 * usage: socketat_bench [-n N] [-t SECONDS]
 *   -n N  iterations per repetition of (a)-(d) (default 20000); (e) and
 *         (f) run N / 10, being several times slower.
 *   -t S  time budget (default 55, 0 = none): a netns-alive run that would
 *         end past it is skipped and reported as null.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE	71
#endif

#define REPS		5
#define DEFAULT_ITERS	20000
#define HELPER_DIV	10
#define DEFAULT_BUDGET	55	/* s: the guest's kselftest timeout is 60 */
#define MAX_ALIVE	1000
#define BATCH		64	/* netns children alive at once */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const int alive_counts[] = { 1, 100, MAX_ALIVE };
#define NR_ALIVE	((int)ARRAY_SIZE(alive_counts))

static pid_t main_pid;
static int orig_ns = -1;	/* the netns the program started in */
static ino_t orig_ino;
static int target_ns = -1;	/* the helper's netns, target of (c)-(e) */
static int helper_sock = -1;
static pid_t helper_pid = -1;
static int pinned[MAX_ALIVE];	/* fds that keep the extra netns alive */
static int nr_pinned;
static uint64_t home_cookie, target_cookie;

struct bench {
	const char *label;
	int (*op)(void);
	long iters;
	double ns[REPS];
	double median;
	int measured;
};

static void die(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/*
 * A measurement failed: say why, then "not ok". Children only exit: the
 * report is the main process's, and they have nothing to flush.
 */
static void die(int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (getpid() != main_pid)
		_exit(1);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err)
		printf("# error: %s: %s (errno %d)\n", msg, strerror(err), err);
	else
		printf("# error: %s\n", msg);
	printf("not ok 1 socketat_bench\n");
	fflush(stdout);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double secs_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e9;
}

#ifdef __NR_socketat
static int sys_socketat(int nsfd, int family, int type, int protocol)
{
	return (int)syscall(__NR_socketat, nsfd, family, type, protocol);
}
#define SOCKETAT_NR	__NR_socketat
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
#define SOCKETAT_NR	(-1)
#endif

/* The cases: one socket + close each; 0, or -1 with errno set. */

static int op_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	return close(fd);
}

static int op_socketat_self(void)
{
	int fd = sys_socketat(-1, AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	return close(fd);
}

static int op_socketat_nsfd(void)
{
	int fd = sys_socketat(target_ns, AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	return close(fd);
}

/* The socket of the dance, or -1; back in orig_ns whatever happened. */
static int dance_socket(void)
{
	int fd, err;

	if (setns(target_ns, CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	err = errno;
	if (setns(orig_ns, CLONE_NEWNET))
		die(errno, "setns back to the original netns");
	errno = err;
	return fd;
}

static int op_dance(void)
{
	int fd = dance_socket();

	if (fd < 0)
		return -1;
	return close(fd);
}

/* The helper's protocol: one request byte; a reply byte (0 or an errno) with the fd. */

static int send_reply(int sock, int fd, int err)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	unsigned char code = (unsigned char)err;
	struct iovec iov = { .iov_base = &code, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int recv_reply(int sock)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	unsigned char code = 0;
	struct iovec iov = { .iov_base = &code, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t r;
	int fd = -1;

	r = recvmsg(sock, &msg, 0);
	if (r < 0)
		return -1;
	if (r == 0) {
		errno = ECONNRESET;	/* the helper is gone */
		return -1;
	}
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (code) {
		if (fd >= 0)
			close(fd);
		errno = code;
		return -1;
	}
	if (fd < 0) {
		errno = EPROTO;
		return -1;
	}
	return fd;
}

static int helper_socket(void)
{
	char req = 's';
	ssize_t w = write(helper_sock, &req, 1);

	if (w != 1) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return recv_reply(helper_sock);
}

static int op_helper(void)
{
	int fd = helper_socket();

	if (fd < 0)
		return -1;
	return close(fd);
}

/*
 * The helper: unshares a netns, sends back an fd of it, then makes one
 * socket there per request until the main process closes its end.
 */
static void __attribute__((noreturn)) helper_main(int sock)
{
	ssize_t r;
	char req;
	int fd;

	if (unshare(CLONE_NEWNET)) {
		send_reply(sock, -1, errno);
		_exit(1);
	}
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		send_reply(sock, -1, errno);
		_exit(1);
	}
	if (send_reply(sock, fd, 0))
		_exit(1);
	close(fd);
	for (;;) {
		r = read(sock, &req, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(r < 0);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (send_reply(sock, fd, fd < 0 ? errno : 0))
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
}

static void start_helper(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		die(errno, "socketpair(AF_UNIX, SOCK_SEQPACKET)");
	fflush(stdout);
	helper_pid = fork();
	if (helper_pid < 0)
		die(errno, "fork (helper)");
	if (helper_pid == 0) {
		close(sv[0]);
		helper_main(sv[1]);
	}
	close(sv[1]);
	helper_sock = sv[0];
	target_ns = recv_reply(helper_sock);
	if (target_ns < 0)
		die(errno, "helper: unshare(CLONE_NEWNET) or open /proc/self/ns/net");
}

static void stop_helper(void)
{
	int status;

	close(helper_sock);
	helper_sock = -1;
	while (waitpid(helper_pid, &status, 0) < 0)
		if (errno != EINTR)
			die(errno, "waitpid (helper)");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die(0, "helper ended with status 0x%x", status);
}

/*
 * (f): a thread pinned to the target netns. The caller bumps @req and
 * wakes the thread; the thread makes the socket, stores fd and errno,
 * sets @done to the request's number and wakes the caller.
 */
static struct {
	atomic_uint req;
	atomic_uint done;
	atomic_int stop;
	int fd;
	int err;
	int setns_err;
} mbox;
static pthread_t pinned_thread;

static void futex_wait(atomic_uint *addr, unsigned int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *pinned_main(void *arg)
{
	unsigned int seen = 0, r;

	(void)arg;
	/* Once: this thread lives in the target netns from now on. */
	mbox.setns_err = setns(target_ns, CLONE_NEWNET) ? errno : 0;
	for (;;) {
		while ((r = atomic_load(&mbox.req)) == seen)
			futex_wait(&mbox.req, seen);
		if (atomic_load(&mbox.stop))
			break;
		seen = r;
		if (mbox.setns_err) {
			mbox.fd = -1;
			mbox.err = mbox.setns_err;
		} else {
			mbox.fd = socket(AF_INET, SOCK_DGRAM, 0);
			mbox.err = mbox.fd < 0 ? errno : 0;
		}
		atomic_store(&mbox.done, seen);
		futex_wake(&mbox.done);
	}
	return NULL;
}

static int pinned_socket(void)
{
	unsigned int r = atomic_load(&mbox.req) + 1, d;

	atomic_store(&mbox.req, r);
	futex_wake(&mbox.req);
	while ((d = atomic_load(&mbox.done)) != r)
		futex_wait(&mbox.done, d);
	if (mbox.fd < 0)
		errno = mbox.err;
	return mbox.fd;
}

static int op_pinned(void)
{
	int fd = pinned_socket();

	if (fd < 0)
		return -1;
	return close(fd);
}

static void start_pinned(void)
{
	int err = pthread_create(&pinned_thread, NULL, pinned_main, NULL);

	if (err)
		die(err, "pthread_create (pinned thread)");
}

static void stop_pinned(void)
{
	atomic_store(&mbox.stop, 1);
	atomic_fetch_add(&mbox.req, 1);
	futex_wake(&mbox.req);
	pthread_join(pinned_thread, NULL);
}

static uint64_t cookie_of(int fd, const char *what)
{
	socklen_t len = sizeof(uint64_t);
	uint64_t cookie;

	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		die(errno, "getsockopt(SO_NETNS_COOKIE) of the %s socket", what);
	close(fd);
	return cookie;
}

/* The main process is in the netns it started in. */
static void check_home(const char *when)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		die(errno, "socket(2) %s", when);
	if (cookie_of(fd, "socket(2)") != home_cookie)
		die(0, "%s, socket(2) lands outside the original netns", when);
}

/* Before timing anything: each way lands its socket in the netns it should. */
static void check_placement(int have_socketat)
{
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die(errno, "socket(AF_INET, SOCK_DGRAM, 0)");
	home_cookie = cookie_of(fd, "socket(2)");

	fd = helper_socket();
	if (fd < 0)
		die(errno, "helper socket");
	target_cookie = cookie_of(fd, "helper");
	if (target_cookie == home_cookie)
		die(0, "the helper's socket is in the caller's netns");

	fd = dance_socket();
	if (fd < 0)
		die(errno, "setns dance");
	if (cookie_of(fd, "setns dance") != target_cookie)
		die(0, "the setns dance's socket is not in the target netns");
	check_home("after the setns dance");

	fd = pinned_socket();
	if (fd < 0)
		die(errno, "pinned thread: setns into the target netns, or socket(2)");
	if (cookie_of(fd, "pinned thread") != target_cookie)
		die(0, "the pinned thread's socket is not in the target netns");
	check_home("after the pinned thread's socket");

	if (!have_socketat)
		return;
	fd = sys_socketat(-1, AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die(errno, "socketat(-1, AF_INET, SOCK_DGRAM, 0)");
	if (cookie_of(fd, "socketat(-1)") != home_cookie)
		die(0, "socketat(-1)'s socket is not in the caller's netns");
	fd = sys_socketat(target_ns, AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die(errno, "socketat(netns fd, AF_INET, SOCK_DGRAM, 0)");
	if (cookie_of(fd, "socketat(netns fd)") != target_cookie)
		die(0, "socketat(netns fd)'s socket is not in the target netns");
}

/*
 * The dance's flaw, shown: a signal handler that makes a socket while the
 * thread is between the dance's two setns() calls gets it in the target
 * netns; around socketat() it gets it in the caller's. The signal is
 * raised at that moment by the program itself, so the outcome is
 * deterministic. Where each handler socket landed: "target", "caller",
 * "other", or NULL when it was not measured.
 */
static volatile sig_atomic_t handler_fd = -1;

static void make_socket_in_handler(int sig)
{
	(void)sig;
	handler_fd = socket(AF_INET, SOCK_DGRAM, 0);
}

static const char *handler_netns(void)
{
	uint64_t cookie;

	if (handler_fd < 0)
		die(errno, "socket(2) in the signal handler");
	cookie = cookie_of(handler_fd, "signal handler");
	handler_fd = -1;
	return cookie == target_cookie ? "target" : cookie == home_cookie ? "caller" : "other";
}

static void signal_during_dance(int have_socketat, const char **dance, const char **sat)
{
	struct sigaction sa = { .sa_handler = make_socket_in_handler }, old;
	int fd;

	if (sigaction(SIGUSR1, &sa, &old))
		die(errno, "sigaction(SIGUSR1)");
	handler_fd = -1;
	if (setns(target_ns, CLONE_NEWNET))
		die(errno, "setns into the target netns");
	raise(SIGUSR1);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (setns(orig_ns, CLONE_NEWNET))
		die(errno, "setns back to the original netns");
	if (fd < 0)
		die(errno, "socket(2) in the dance");
	close(fd);
	*dance = handler_netns();
	if (have_socketat) {
		fd = sys_socketat(target_ns, AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			die(errno, "socketat(netns fd)");
		/* Where the dance would be between its two setns() calls. */
		raise(SIGUSR1);
		close(fd);
		*sat = handler_netns();
	}
	sigaction(SIGUSR1, &old, NULL);
	check_home("after the signal demonstration");
}

static double timed_loop(const struct bench *b, long iters)
{
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < iters; i++)
		if (b->op())
			die(errno, "%s, iteration %ld of %ld", b->label, i, iters);
	t1 = now_ns();
	return (double)(t1 - t0) / (double)iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static long at_least_one(long n)
{
	return n > 0 ? n : 1;
}

/*
 * Warm each case up with a tenth of its iterations, then REPS rounds in
 * which every case, after a short re-warm (1/50), is timed once.
 */
static void measure(struct bench **set, int n)
{
	double sorted[REPS];
	int r, i;

	for (i = 0; i < n; i++)
		timed_loop(set[i], at_least_one(set[i]->iters / 10));
	for (r = 0; r < REPS; r++) {
		for (i = 0; i < n; i++) {
			timed_loop(set[i], at_least_one(set[i]->iters / 50));
			set[i]->ns[r] = timed_loop(set[i], set[i]->iters);
		}
	}
	for (i = 0; i < n; i++) {
		memcpy(sorted, set[i]->ns, sizeof(sorted));
		qsort(sorted, REPS, sizeof(double), cmp_double);
		set[i]->median = sorted[REPS / 2];
		set[i]->measured = 1;
		printf("# %-40s %10.1f ns  (min %.1f, max %.1f; %d x %ld)\n", set[i]->label,
		       set[i]->median, sorted[0], sorted[REPS - 1], REPS, set[i]->iters);
	}
}

/*
 * n more netns: n children unshare CLONE_NEWNET and report; the parent
 * opens /proc/<pid>/ns/net of each, then lets them all exit. The fds keep
 * the namespaces alive.
 */
static void spawn_netns_batch(int n)
{
	unsigned char codes[BATCH];
	pid_t pids[BATCH];
	int st[2], rel[2], i, got, fd, status;
	char path[64], c;
	struct stat sb;
	ssize_t r;

	if (pipe2(st, O_CLOEXEC) || pipe2(rel, O_CLOEXEC))
		die(errno, "pipe2");
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die(errno, "fork (netns %d)", nr_pinned + i + 1);
		if (pids[i] == 0) {
			unsigned char code = 0;

			close(st[0]);
			close(rel[1]);
			if (unshare(CLONE_NEWNET))
				code = (unsigned char)errno;
			if (write(st[1], &code, 1) != 1)
				_exit(1);
			/* Stay in the netns until the parent holds an fd of it. */
			while (read(rel[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
	}
	close(st[1]);
	close(rel[0]);
	for (got = 0; got < n; got += r) {
		r = read(st[0], codes + got, n - got);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			die(r ? errno : 0, "netns children: %d of %d reports", got, n);
	}
	for (i = 0; i < n; i++)
		if (codes[i])
			die(codes[i], "netns child: unshare(CLONE_NEWNET)");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(errno, "open %s", path);
		if (fstat(fd, &sb))
			die(errno, "fstat %s", path);
		if (sb.st_ino == orig_ino)
			die(0, "%s is the original netns", path);
		pinned[nr_pinned++] = fd;
	}
	close(rel[1]);
	for (i = 0; i < n; i++) {
		while (waitpid(pids[i], &status, 0) < 0)
			if (errno != EINTR)
				die(errno, "waitpid (netns child)");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die(0, "netns child ended with status 0x%x", status);
	}
	close(st[0]);
}

static void grow_netns(int want)
{
	while (nr_pinned < want)
		spawn_netns_batch(want - nr_pinned < BATCH ? want - nr_pinned : BATCH);
}

static void raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		die(errno, "getrlimit(RLIMIT_NOFILE)");
	if (rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die(errno, "setrlimit(RLIMIT_NOFILE, %lu)", (unsigned long)need);
}

/* The JSON line, built in one buffer so that it is printed as one line. */
static char json[4096];
static size_t json_len;

static void __attribute__((format(printf, 1, 2))) jput(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (json_len >= sizeof(json) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(json + json_len, sizeof(json) - json_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		json_len += (size_t)n;
	if (json_len > sizeof(json) - 1)
		json_len = sizeof(json) - 1;
}

static void jnum(const char *key, int valid, double v, int prec)
{
	if (valid)
		jput("\"%s\":%.*f", key, prec, v);
	else
		jput("\"%s\":null", key);
}

/* A string without what would need escaping in JSON. */
static void jstr(const char *key, const char *s)
{
	char buf[256];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20) ?
			 '_' : s[i];
	buf[i] = 0;
	jput("\"%s\":\"%s\"", key, buf);
}

#define NR_RATIOS	11

struct ratio {
	const char *key;
	int valid;
	double v;
};

static struct ratio ratio_of(const char *key, const struct bench *num, const struct bench *den)
{
	struct ratio r = { .key = key };

	r.valid = num->measured && den->measured && den->median > 0;
	if (r.valid)
		r.v = num->median / den->median;
	return r;
}

static void goal(const char *what, const struct ratio *r, int at_most, double bound)
{
	if (!r->valid)
		printf("# goal %s %s %.2f: skipped\n", what, at_most ? "<=" : ">=", bound);
	else
		printf("# goal %s %s %.2f: %.3f %s\n", what, at_most ? "<=" : ">=", bound, r->v,
		       (at_most ? r->v <= bound : r->v >= bound) ? "met" : "not met");
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n ITERATIONS] [-t BUDGET_SECONDS]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct bench b_socket = { .label = "(a) socket(2)", .op = op_socket };
	struct bench b_self = { .label = "(b) socketat(-1)", .op = op_socketat_self };
	struct bench b_nsfd = { .label = "(c) socketat(netns fd)", .op = op_socketat_nsfd };
	struct bench b_dance = { .label = "(d) setns dance", .op = op_dance };
	struct bench b_helper = { .label = "(e) SCM_RIGHTS helper", .op = op_helper };
	struct bench b_pinned = { .label = "(f) thread pinned to the netns", .op = op_pinned };
	struct bench b_alive[NR_ALIVE], b_alive_socket[NR_ALIVE];
	char labels[NR_ALIVE][2][64];
	const char *sig_dance = NULL, *sig_socketat = NULL;
	char probe_msg[160];
	struct bench *set[6];
	struct ratio ratios[NR_RATIOS];
	const char *skipped = NULL;
	char skip_msg[160];
	long iters = DEFAULT_ITERS, budget = DEFAULT_BUDGET;
	uint64_t t_start = now_ns(), t0;
	double create_per_ns = 0, last_measure = 0;
	int have_socketat, opt, fd, n, i;
	struct utsname uts;
	struct stat sb;
	char *end;

	while ((opt = getopt(argc, argv, "n:t:h")) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			iters = strtol(optarg, &end, 10);
			if (errno || *end || iters < 1 || iters > 100000000)
				usage(argv[0]);
			break;
		case 't':
			errno = 0;
			budget = strtol(optarg, &end, 10);
			if (errno || *end || budget < 0)
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);	/* waitpid must see our children */
	main_pid = getpid();
	if (uname(&uts))
		memset(&uts, 0, sizeof(uts));

	printf("TAP version 13\n");
	printf("1..1\n");

	orig_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (orig_ns < 0)
		die(errno, "open /proc/self/ns/net");
	if (fstat(orig_ns, &sb))
		die(errno, "fstat /proc/self/ns/net");
	orig_ino = sb.st_ino;

	/* The probe must give an AF_INET socket: else the number is not socketat's. */
	have_socketat = 0;
	errno = 0;
	fd = sys_socketat(-1, AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0) {
		int domain = -1;
		socklen_t len = sizeof(domain);

		if (!getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) && domain == AF_INET) {
			close(fd);
			have_socketat = 1;
		} else {
			snprintf(probe_msg, sizeof(probe_msg),
				 "syscall %d is not socketat here (probe returned %d: no socket)",
				 SOCKETAT_NR, fd);
			skipped = probe_msg;
		}
	} else if (SOCKETAT_NR < 0) {
		skipped = "socketat not in this tree's uapi headers (no __NR_socketat)";
	} else if (errno == ENOSYS) {
		skipped = "socketat not implemented (ENOSYS)";
	} else {
		snprintf(probe_msg, sizeof(probe_msg),
			 "syscall %d is not socketat here (probe returned %d / errno %d)",
			 SOCKETAT_NR, fd, errno);
		skipped = probe_msg;
	}

	b_socket.iters = iters;
	b_self.iters = iters;
	b_nsfd.iters = iters;
	b_dance.iters = iters;
	b_helper.iters = at_least_one(iters / HELPER_DIV);
	b_pinned.iters = at_least_one(iters / HELPER_DIV);
	printf("# socketat_bench: %s %s, syscall %d, %d reps of %ld (helper, pinned %ld), median\n",
	       uts.release, uts.machine, SOCKETAT_NR, REPS, iters, b_helper.iters);
	if (!have_socketat)
		printf("# %s: cases (b) and (c) skipped\n", skipped);

	start_helper();
	start_pinned();
	check_placement(have_socketat);
	signal_during_dance(have_socketat, &sig_dance, &sig_socketat);
	printf("# signal handler during the setns dance: its socket lands in the %s netns\n",
	       sig_dance);
	if (sig_socketat)
		printf("# signal handler around socketat: its socket lands in the %s netns\n",
		       sig_socketat);

	n = 0;
	set[n++] = &b_socket;
	if (have_socketat) {
		set[n++] = &b_self;
		set[n++] = &b_nsfd;
	}
	set[n++] = &b_dance;
	set[n++] = &b_helper;
	set[n++] = &b_pinned;
	measure(set, n);
	check_home("after the measurements");

	memset(b_alive, 0, sizeof(b_alive));
	memset(b_alive_socket, 0, sizeof(b_alive_socket));
	for (i = 0; i < NR_ALIVE && have_socketat; i++) {
		int want = alive_counts[i];
		double est;

		snprintf(labels[i][0], sizeof(labels[i][0]), "(c) with %d other netns alive", want);
		b_alive[i].label = labels[i][0];
		b_alive[i].op = op_socketat_nsfd;
		b_alive[i].iters = iters;
		snprintf(labels[i][1], sizeof(labels[i][1]), "(a) with %d other netns alive", want);
		b_alive_socket[i].label = labels[i][1];
		b_alive_socket[i].op = op_socket;
		b_alive_socket[i].iters = iters;

		est = create_per_ns * (want - nr_pinned) + last_measure;
		if (budget && i && secs_since(t_start) + est > (double)budget) {
			snprintf(skip_msg, sizeof(skip_msg),
				 "time budget %ld s: %d netns alive would end at ~%.0f s", budget,
				 want, secs_since(t_start) + est);
			skipped = skip_msg;
			printf("# skipped: %s\n", skip_msg);
			break;
		}
		raise_nofile((rlim_t)want + 64);
		t0 = now_ns();
		n = want - nr_pinned;
		grow_netns(want);
		create_per_ns = secs_since(t0) / n;
		printf("# %d netns created in %.2f s (%.2f ms each)\n", n, secs_since(t0),
		       create_per_ns * 1e3);
		t0 = now_ns();
		/* (a) alongside, so that drift of the guest itself shows. */
		set[0] = &b_alive_socket[i];
		set[1] = &b_alive[i];
		measure(set, 2);
		last_measure = secs_since(t0);
	}
	check_home("at the end");
	stop_pinned();
	stop_helper();

	ratios[0] = ratio_of("nsfd_over_socket", &b_nsfd, &b_socket);
	ratios[1] = ratio_of("dance_over_nsfd", &b_dance, &b_nsfd);
	ratios[2] = ratio_of("helper_over_nsfd", &b_helper, &b_nsfd);
	ratios[3] = ratio_of("nsfd_1000_over_1", &b_alive[NR_ALIVE - 1], &b_alive[0]);
	ratios[4] = ratio_of("self_over_socket", &b_self, &b_socket);
	ratios[5] = ratio_of("dance_over_socket", &b_dance, &b_socket);
	ratios[6] = ratio_of("helper_over_socket", &b_helper, &b_socket);
	ratios[7] = ratio_of("pinned_over_nsfd", &b_pinned, &b_nsfd);
	ratios[8] = ratio_of("pinned_over_socket", &b_pinned, &b_socket);
	ratios[9] = ratio_of("pinned_over_dance", &b_pinned, &b_dance);
	ratios[10] = ratio_of("nsfd_1000_over_socket_1000", &b_alive[NR_ALIVE - 1],
			      &b_alive_socket[NR_ALIVE - 1]);
	for (i = 0; i < NR_RATIOS; i++)
		if (ratios[i].valid)
			printf("# ratio %-20s %.3f\n", ratios[i].key, ratios[i].v);
	goal("(c)/(a) socketat_nsfd/socket", &ratios[0], 1, 1.10);
	goal("(d)/(c) setns_dance/socketat_nsfd", &ratios[1], 0, 1.25);
	goal("(e)/(c) scm_rights_helper/socketat_nsfd", &ratios[2], 0, 10);
	goal("(c) 1000/1 netns alive (no growth)", &ratios[3], 1, 1.10);
	goal("(f)/(c) pinned_thread/socketat_nsfd", &ratios[7], 0, 1.0);

	jput("{\"unit\":\"ns_per_socket\",\"iterations\":%ld,", iters);
	jnum("socket", b_socket.measured, b_socket.median, 1);
	jput(",");
	jnum("socketat_self", b_self.measured, b_self.median, 1);
	jput(",");
	jnum("socketat_nsfd", b_nsfd.measured, b_nsfd.median, 1);
	jput(",");
	jnum("setns_dance", b_dance.measured, b_dance.median, 1);
	jput(",");
	jnum("scm_rights_helper", b_helper.measured, b_helper.median, 1);
	jput(",");
	jnum("pinned_thread", b_pinned.measured, b_pinned.median, 1);
	jput(",\"nsfd_with_netns_alive\":{");
	for (i = 0; i < NR_ALIVE; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", alive_counts[i]);
		jnum(key, b_alive[i].measured, b_alive[i].median, 1);
		jput(i < NR_ALIVE - 1 ? "," : "}");
	}
	jput(",\"socket_with_netns_alive\":{");
	for (i = 0; i < NR_ALIVE; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%d", alive_counts[i]);
		jnum(key, b_alive_socket[i].measured, b_alive_socket[i].median, 1);
		jput(i < NR_ALIVE - 1 ? "," : "}");
	}
	jput(",\"ratios\":{");
	for (i = 0; i < NR_RATIOS; i++) {
		jnum(ratios[i].key, ratios[i].valid, ratios[i].v, 3);
		jput(i < NR_RATIOS - 1 ? "," : "}");
	}
	jput(",\"signal_during_dance\":{");
	if (sig_dance)
		jstr("dance_handler_socket", sig_dance);
	else
		jput("\"dance_handler_socket\":null");
	jput(",");
	if (sig_socketat)
		jstr("socketat_handler_socket", sig_socketat);
	else
		jput("\"socketat_handler_socket\":null");
	jput("}");
	jput(",\"helper_iterations\":%ld,\"pinned_iterations\":%ld,\"reps\":%d,", b_helper.iters,
	     b_pinned.iters, REPS);
	jput("\"statistic\":\"median\",");
	jstr("kernel", uts.release);
	jput(",");
	jstr("arch", uts.machine);
	if (skipped) {
		jput(",");
		jstr("skipped", skipped);
	}
	jput(",\"seconds\":%.1f}", secs_since(t_start));

	printf("# socketat_bench: %.1f s in all\n", secs_since(t_start));
	printf("# bench-json: %s\n", json);
	printf("ok 1 socketat_bench\n");
	fflush(stdout);
	return 0;
}
