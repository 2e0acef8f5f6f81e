// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the nsfd kselftest guest: a static binary, the only userspace in
 * an initramfs next to the statically linked tests under /tests.
 *
 * It mounts what the tests need, runs every executable in /tests in name
 * order with the timeout of /tests/settings (kselftest's "timeout=N"), and
 * prints the results as KTAP, each test's own TAP nested two spaces in.
 * Every KTAP line goes to the console as "ktap <seconds> | <line>", between
 * the begin and end markers, so the host can tell the stream from kernel
 * messages, time each result and see a stream that was cut short. On a
 * kernel with kmemleak it scans once the tests are done. Then it reboots:
 * QEMU runs with -no-reboot, so that ends the guest (an x86_64 kernel
 * without ACPI cannot power off).
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
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TESTS_DIR	"/tests"
#define MAX_TESTS	256
#define KSFT_SKIP	4

static int console = 1;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	if (write(console, line, n) < 0)
		return;
}

static void say(const char *msg)
{
	if (write(console, msg, strlen(msg)) < 0)
		return;
}

static void mount_one(const char *src, const char *dst, const char *type,
		      unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data) && errno != EBUSY)
		ktap("# init: mount %s on %s: %s", type, dst, strerror(errno));
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

/* Forward the child's output line by line, nested. 0 on EOF, -1 on timeout. */
static int forward_output(int fd, double deadline)
{
	char buf[4096], line[4096];
	size_t len = 0;
	ssize_t r;
	int i;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = (int)((deadline - now()) * 1000);

		if (ms <= 0)
			return -1;
		if (poll(&p, 1, ms) == 0)
			return -1;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (i = 0; i < r; i++) {
			if (buf[i] == '\n' || len == sizeof(line) - 1) {
				line[len] = 0;
				ktap("  %s", line);
				len = 0;
				if (buf[i] == '\n')
					continue;
			}
			line[len++] = buf[i];
		}
	}
	if (len) {
		line[len] = 0;
		ktap("  %s", line);
	}
	return 0;
}

static void run_test(int nr, const char *name, int timeout)
{
	char path[512];
	int pipefd[2], status = 0, timed_out;
	pid_t pid;

	snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
	ktap("# selftests: nsfd: %s", name);
	if (pipe2(pipefd, O_CLOEXEC)) {
		ktap("not ok %d selftests: nsfd: %s # pipe: %s", nr, name, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { "PATH=/tests", "HOME=/tmp", "TMPDIR=/tmp", NULL };

		setpgid(0, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		if (chdir("/tmp"))
			_exit(127);
		execve(path, argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		ktap("not ok %d selftests: nsfd: %s # fork: %s", nr, name, strerror(errno));
		return;
	}
	timed_out = forward_output(pipefd[0], now() + timeout) < 0;
	close(pipefd[0]);
	if (timed_out)
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Grandchildren the test left behind must not outlive it. */
	kill(-pid, SIGKILL);

	if (timed_out)
		ktap("not ok %d selftests: nsfd: %s # TIMEOUT %d seconds", nr, name, timeout);
	else if (WIFSIGNALED(status))
		ktap("not ok %d selftests: nsfd: %s # killed by signal %d", nr, name,
		     WTERMSIG(status));
	else if (WEXITSTATUS(status) == KSFT_SKIP)
		ktap("ok %d selftests: nsfd: %s # SKIP", nr, name);
	else if (WEXITSTATUS(status))
		ktap("not ok %d selftests: nsfd: %s # exit=%d", nr, name, WEXITSTATUS(status));
	else
		ktap("ok %d selftests: nsfd: %s", nr, name);
}

/* Reap orphans reparented to init while the tests run. */
static void reap(int sig)
{
	(void)sig;
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
	sleep(6);
	for (int i = 0; i < 2; i++)
		if (write(fd, "scan", 4) < 0)
			say("nsfd-init: kmemleak scan failed\n");
	close(fd);
	fd = open(ctl, O_RDONLY);
	if (fd < 0)
		return;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (write(console, buf, r) < 0)
			break;
	close(fd);
}

int main(void)
{
	char *names[MAX_TESTS];
	int n, i, timeout, fd;

	mount_one("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	if (fd >= 0)
		console = fd;
	mount_one("proc", "/proc", "proc", 0, NULL);
	mount_one("sysfs", "/sys", "sysfs", 0, NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	mount_one("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	signal(SIGCHLD, reap);
	if (fd >= 0 && access("/sys/kernel/debug/kmemleak", W_OK) == 0) {
		/* Leaks from boot are not ours: report only what the tests leak. */
		int k = open("/sys/kernel/debug/kmemleak", O_WRONLY);

		if (k >= 0 && write(k, "clear", 5) < 0)
			say("nsfd-init: kmemleak clear failed\n");
		if (k >= 0)
			close(k);
	}

	timeout = read_timeout();
	n = list_tests(names);
	say("nsfd-kselftest: begin\n");
	ktap("KTAP version 1");
	ktap("1..%d", n);
	for (i = 0; i < n; i++)
		run_test(i + 1, names[i], timeout);
	say("nsfd-kselftest: end\n");

	kmemleak_scan();
	say("nsfd-init: done\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
