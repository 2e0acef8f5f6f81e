// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the nsfd kselftest guest: a static binary, the only userspace in
 * an initramfs next to the statically linked tests under /tests.
 *
 * It mounts what the tests need, runs every executable in /tests in name
 * order with the timeout of /tests/settings (kselftest's "timeout=N"), and
 * prints the results as KTAP, each test's own TAP nested two spaces in.
 *
 * The KTAP has a channel of its own, so that no kernel message can split or
 * hide a test line: the device named by "nsfd.ktap=DEV" on the kernel
 * command line (a second serial port, a virtio console; the host's QEMU
 * writes it to a file). The console then carries kernel messages and a few
 * "nsfd-init:" lines only. Without nsfd.ktap, or when DEV cannot be opened
 * (then it says so on the console), the KTAP goes to the console.
 * Every KTAP line is "ktap <seconds> | <line>", between the lines
 * "nsfd-kselftest: begin" and "nsfd-kselftest: end", so the host can time
 * each result and see a stream that was cut short.
 *
 * A test that outlives its timeout gets SIGTERM, then SIGKILL after a grace
 * period, and is reported "not ok ... # TIMEOUT after N s"; no signal
 * interrupts the wait (EINTR is retried with the time left recomputed), and
 * whatever a test left behind is killed and reaped before the next one.
 *
 * With "nsfd.uid=N" on the command line every test runs as uid and gid N
 * with no supplementary groups and no capabilities: the suite as an
 * unprivileged user, where each test must pass or SKIP saying why.
 *
 * With "nsfd.failfast=1" the binaries after the first that fails are
 * reported as skipped, not run (make mutants: the verdict is known).
 *
 * On a kernel with kmemleak it scans once the tests are done. Then it
 * reboots: QEMU runs with -no-reboot, so that ends the guest (an x86_64
 * kernel without ACPI cannot power off).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <grp.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define TESTS_DIR	"/tests"
#define MAX_TESTS	256
#define KSFT_SKIP	4
#define TERM_GRACE	5	/* s between SIGTERM and SIGKILL on a timeout */
#define KILL_WAIT	10	/* s to wait for a SIGKILLed test to be reaped */
#define DRAIN_WAIT	2	/* s to read what a test's leftovers still print */

static int run_as = -1;		/* "nsfd.uid=N": the tests' uid and gid, no groups */
static int console = 1;		/* kernel messages and init's own notes */
static int out = 1;		/* the KTAP channel */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= w;
	}
}

/* One KTAP line, written with one write(2) so that it is not split. */
static void ktap(const char *fmt, ...)
{
	char line[4096];
	int n, m;
	va_list ap;

	n = snprintf(line, sizeof(line), "ktap %.6f | ", now());
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	write_all(out, line, n);
}

/* A note on the console (and nowhere else). */
static void say(const char *fmt, ...)
{
	char line[1024];
	int n;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	write_all(console, line, n);
}

static void mount_one(const char *src, const char *dst, const char *type,
		      unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	/* debugfs is optional: a kernel without it has no /sys/kernel/debug. */
	if (mount(src, dst, type, flags, data) && errno != EBUSY &&
	    !(errno == ENOENT && !strcmp(type, "debugfs")))
		say("nsfd-init: mount %s on %s: %s", type, dst, strerror(errno));
}

/* The value of "key=" on the kernel command line, or NULL. */
static char *cmdline_value(const char *key)
{
	static char buf[4096];
	size_t klen = strlen(key);
	char *tok, *save;
	ssize_t r;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd < 0)
		return NULL;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return NULL;
	buf[r] = 0;
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(tok, key, klen) && tok[klen] == '=')
			return tok + klen + 1;
	return NULL;
}

/* Open the KTAP channel named on the command line; the console otherwise. */
static void open_channel(void)
{
	struct termios t;
	char *dev = cmdline_value("nsfd.ktap");
	int fd;

	if (!dev)
		return;
	fd = open(dev, O_WRONLY | O_NOCTTY);
	if (fd < 0) {
		say("nsfd-init: cannot open the KTAP channel %s (%s): KTAP on the console",
		    dev, strerror(errno));
		return;
	}
	/* Raw and fast: no \r\n mapping, no 9600 baud serial line. */
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	out = fd;
	say("nsfd-init: KTAP on %s", dev);
}

static int read_timeout(void)
{
	char buf[64];
	int timeout = 45;	/* kselftest runner's default */
	FILE *f = fopen(TESTS_DIR "/settings", "r");

	if (!f)
		return timeout;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "timeout=%d", &timeout) == 1)
			break;
	fclose(f);
	return timeout > 0 ? timeout : 45;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static int list_tests(char **names)
{
	struct dirent *de;
	struct stat st;
	char path[512];
	int n = 0;
	DIR *d = opendir(TESTS_DIR);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAX_TESTS) {
		snprintf(path, sizeof(path), TESTS_DIR "/%s", de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	return n;
}

/* A test's output, forwarded line by line, nested. */
struct fwd {
	int fd;			/* -1 once at EOF */
	char line[4096];
	size_t len;
};

static void fwd_flush(struct fwd *f)
{
	if (f->len) {
		f->line[f->len] = 0;
		ktap("  %s", f->line);
		f->len = 0;
	}
}

/* Read what is there; EOF closes the pipe. */
static void fwd_read(struct fwd *f)
{
	char buf[4096];
	ssize_t r = read(f->fd, buf, sizeof(buf));
	int i;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		fwd_flush(f);
		close(f->fd);
		f->fd = -1;
		return;
	}
	for (i = 0; i < r; i++) {
		if (buf[i] == '\n') {
			f->line[f->len] = 0;
			ktap("  %s", f->line);
			f->len = 0;
			continue;
		}
		if (f->len == sizeof(f->line) - 1)
			fwd_flush(f);
		f->line[f->len++] = buf[i];
	}
}

/*
 * Reap every child that has ended; note the test's own status. Orphans the
 * tests leave are reparented to init and reaped here too.
 */
static void reap(pid_t pid, int *status, int *done)
{
	pid_t w;
	int st;

	while ((w = waitpid(-1, &st, WNOHANG)) > 0)
		if (w == pid) {
			*status = st;
			*done = 1;
		}
}

/*
 * Forward output and wait for the test until `until` (absolute): returns
 * when the test has ended and its output is closed, or when time is up.
 * The wait is a poll() that wakes at least every 200 ms; EINTR (SIGCHLD,
 * any signal) only goes round the loop, with the time left recomputed.
 */
static void wait_test(struct fwd *f, pid_t pid, int *status, int *done, double until)
{
	double drain_until = 0;

	for (;;) {
		double left;
		int ms;

		reap(pid, status, done);
		if (*done && f->fd < 0)
			return;
		if (*done && !drain_until)
			drain_until = now() + DRAIN_WAIT;
		left = until - now();
		if (drain_until && drain_until - now() < left)
			left = drain_until - now();
		if (left <= 0)
			return;
		ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
		if (f->fd >= 0) {
			struct pollfd p = { .fd = f->fd, .events = POLLIN };
			int r = poll(&p, 1, ms);

			if (r > 0)
				fwd_read(f);
			/* r == 0: time to look again; r < 0 (EINTR): the same. */
		} else {
			struct timespec ts = { 0, ms * 1000000L };

			nanosleep(&ts, NULL);	/* EINTR: round the loop */
		}
	}
}

/* Kill every process but init, and reap them. */
static void kill_all(int sig)
{
	kill(-1, sig);
}

/* Runs one test binary; returns 1 if it failed, else 0. */
static int run_test(int nr, const char *name, int timeout)
{
	char path[512];
	int pipefd[2], status = 0, done = 0, timed_out = 0;
	struct fwd f = { 0 };
	double t0;
	pid_t pid;

	snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
	say("nsfd-init: test %d %s: start", nr, name);
	ktap("# selftests: nsfd: %s", name);
	if (pipe2(pipefd, O_CLOEXEC)) {
		ktap("not ok %d selftests: nsfd: %s # pipe: %s", nr, name, strerror(errno));
		return 1;
	}
	t0 = now();
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { "PATH=/tests", "HOME=/tmp", "TMPDIR=/tmp", NULL };
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGCHLD, SIG_DFL);
		setpgid(0, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		if (chdir("/tmp"))
			_exit(127);
		if (run_as >= 0 && (setgroups(0, NULL) || setgid(run_as) || setuid(run_as))) {
			dprintf(2, "nsfd-init: cannot become uid %d: %s\n", run_as, strerror(errno));
			_exit(127);
		}
		execve(path, argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		ktap("not ok %d selftests: nsfd: %s # fork: %s", nr, name, strerror(errno));
		return 1;
	}
	setpgid(pid, pid);	/* no race with the child's own setpgid */
	f.fd = pipefd[0];
	wait_test(&f, pid, &status, &done, t0 + timeout);
	if (!done) {
		timed_out = 1;
		say("nsfd-init: test %d %s: timeout after %d s: SIGTERM", nr, name, timeout);
		kill(-pid, SIGTERM);
		kill(pid, SIGTERM);
		wait_test(&f, pid, &status, &done, now() + TERM_GRACE);
	}
	/* The test, its process group and whatever else it left behind. */
	kill_all(SIGKILL);
	if (!done)
		wait_test(&f, pid, &status, &done, now() + KILL_WAIT);
	if (f.fd >= 0) {
		fwd_flush(&f);
		close(f.fd);
	}
	reap(pid, &status, &done);
	say("nsfd-init: test %d %s: end (%.1f s)", nr, name, now() - t0);

	if (timed_out)
		ktap("not ok %d selftests: nsfd: %s # TIMEOUT after %d s%s", nr, name, timeout,
		     done ? "" : " (still not reaped after SIGKILL)");
	else if (WIFSIGNALED(status))
		ktap("not ok %d selftests: nsfd: %s # killed by signal %d", nr, name,
		     WTERMSIG(status));
	else if (WEXITSTATUS(status) == KSFT_SKIP)
		ktap("ok %d selftests: nsfd: %s # SKIP", nr, name);
	else if (WEXITSTATUS(status))
		ktap("not ok %d selftests: nsfd: %s # exit=%d", nr, name, WEXITSTATUS(status));
	else
		ktap("ok %d selftests: nsfd: %s", nr, name);
	return timed_out || WIFSIGNALED(status) ||
	       (WEXITSTATUS(status) && WEXITSTATUS(status) != KSFT_SKIP);
}

/* SIGCHLD only wakes poll(); the children are reaped in reap(). */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* Sleep @s seconds in full: a signal (SIGCHLD) would cut sleep() short. */
static void sleep_fully(unsigned int s)
{
	struct timespec left = { .tv_sec = s };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

static void kmemleak_scan(void)
{
	const char *ctl = "/sys/kernel/debug/kmemleak";
	char buf[4096];
	ssize_t r;
	int fd = open(ctl, O_RDWR);

	if (fd < 0)
		return;
	/* Objects younger than 5 s are never reported: let the last ones age. */
	sleep_fully(6);
	for (int i = 0; i < 2; i++)
		if (write(fd, "scan", 4) < 0)
			say("nsfd-init: kmemleak scan failed");
	close(fd);
	fd = open(ctl, O_RDONLY);
	if (fd < 0)
		return;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		write_all(console, buf, r);
	close(fd);
}

/*
 * What this boot runs, for the host to match against what it built: the
 * GNU build-id note of the running kernel (/sys/kernel/notes) and the id
 * build-initramfs.sh packed into this initramfs. A boot that cannot say
 * prints "none": the host then refuses to take its results as a verdict.
 */
static void say_identity(void)
{
	unsigned char notes[4096];
	char hex[2 * 64 + 1] = "none", id[129] = "none";
	ssize_t len = 0;
	size_t pos = 0;
	int fd;

	fd = open("/sys/kernel/notes", O_RDONLY);
	if (fd >= 0) {
		len = read(fd, notes, sizeof(notes));
		close(fd);
	}
	while (len > 0 && pos + 12 <= (size_t)len) {
		unsigned int namesz, descsz, type, i;
		size_t name_at = pos + 12, desc_at;

		memcpy(&namesz, notes + pos, 4);
		memcpy(&descsz, notes + pos + 4, 4);
		memcpy(&type, notes + pos + 8, 4);
		desc_at = name_at + (namesz + 3) / 4 * 4;
		if (desc_at + descsz > (size_t)len)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_at, "GNU", 4) &&
		    descsz <= 64) {
			for (i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", notes[desc_at + i]);
			break;
		}
		pos = desc_at + (descsz + 3) / 4 * 4;
	}
	say("nsfd-init: kernel build-id %s", hex);

	fd = open("/nsfd-initramfs.id", O_RDONLY);
	if (fd >= 0) {
		len = read(fd, id, sizeof(id) - 1);
		close(fd);
		id[len > 0 ? len : 0] = 0;
		id[strcspn(id, "\n")] = 0;
		if (!id[0])
			strcpy(id, "none");
	}
	say("nsfd-init: initramfs %s", id);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_sigchld };	/* no SA_RESTART */
	char *names[MAX_TESTS];
	int n, i, timeout, fd, failed = 0, fail_fast;

	mount_one("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	if (fd >= 0)
		console = out = fd;
	mount_one("proc", "/proc", "proc", 0, NULL);
	mount_one("sysfs", "/sys", "sysfs", 0, NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	mount_one("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	say_identity();
	open_channel();
	fail_fast = cmdline_value("nsfd.failfast") != NULL;
	if (cmdline_value("nsfd.uid")) {
		run_as = atoi(cmdline_value("nsfd.uid"));
		say("nsfd-init: the tests run as uid %d, gid %d, no capabilities", run_as, run_as);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	if (fd >= 0 && access("/sys/kernel/debug/kmemleak", W_OK) == 0) {
		/* Leaks from boot are not ours: report only what the tests leak. */
		int k = open("/sys/kernel/debug/kmemleak", O_WRONLY);

		if (k >= 0 && write(k, "clear", 5) < 0)
			say("nsfd-init: kmemleak clear failed");
		if (k >= 0)
			close(k);
	}

	timeout = read_timeout();
	n = list_tests(names);
	write_all(out, "nsfd-kselftest: begin\n", 22);
	ktap("KTAP version 1");
	ktap("1..%d", n);
	for (i = 0; i < n; i++) {
		if (failed && fail_fast) {
			ktap("ok %d selftests: nsfd: %s # SKIP nsfd.failfast=1: an earlier test binary failed",
			     i + 1, names[i]);
			continue;
		}
		failed |= run_test(i + 1, names[i], timeout);
	}
	write_all(out, "nsfd-kselftest: end\n", 20);
	if (out != console)
		tcdrain(out);	/* the channel's last bytes before the reboot */

	kmemleak_scan();
	say("nsfd-init: done");
	sync();
	tcdrain(console);
	reboot(RB_AUTOBOOT);
	return 0;
}
