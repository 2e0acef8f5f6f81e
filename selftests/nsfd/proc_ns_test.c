// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/ns: the set of entries, and what each one is.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "../kselftest_harness.h"

static const struct {
	const char *name;
	int type;
} ns_entries[] = {
	{ "cgroup", CLONE_NEWCGROUP },
	{ "ipc", CLONE_NEWIPC },
	{ "mnt", CLONE_NEWNS },
	{ "net", CLONE_NEWNET },
	{ "pid", CLONE_NEWPID },
	{ "pid_for_children", CLONE_NEWPID },
	{ "time", CLONE_NEWTIME },
	{ "time_for_children", CLONE_NEWTIME },
	{ "user", CLONE_NEWUSER },
	{ "uts", CLONE_NEWUTS },
};

#define NR_NS_ENTRIES (sizeof(ns_entries) / sizeof(ns_entries[0]))

/* Each entry opens, and NS_GET_NSTYPE answers its CLONE_NEW* value. */
TEST(every_entry_opens_and_reports_its_type)
{
	char path[64];
	unsigned int i;
	int fd;

	for (i = 0; i < NR_NS_ENTRIES; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_entries[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_GE(fd, 0) {
			TH_LOG("open %s: %s", path, strerror(errno));
		}
		EXPECT_EQ(ioctl(fd, NS_GET_NSTYPE), ns_entries[i].type) {
			TH_LOG("%s", path);
		}
		close(fd);
	}
}

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
		for (i = 0; i < NR_NS_ENTRIES; i++)
			if (!strcmp(de->d_name, ns_entries[i].name))
				break;
		EXPECT_LT(i, NR_NS_ENTRIES) {
			TH_LOG("unexpected entry %s", de->d_name);
		}
		seen++;
	}
	closedir(dir);
	EXPECT_EQ(seen, NR_NS_ENTRIES);
}

TEST_HARNESS_MAIN
