// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for nsfs. fs/nsfs.c includes this file, so that the cases
 * see its mount and dentry operations.
 *
 * Every case works on a private uts namespace, so that reference counts
 * are exact; every reference, path and file it takes is released by a
 * KUnit action, so a failed assertion leaks nothing into the next case.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>

KUNIT_DEFINE_ACTION_WRAPPER(nsfs_kunit_put_uts_ns, put_uts_ns,
			    struct uts_namespace *);
KUNIT_DEFINE_ACTION_WRAPPER(nsfs_kunit_path_put, path_put, const struct path *);
KUNIT_DEFINE_ACTION_WRAPPER(nsfs_kunit_fput, fput, struct file *);
KUNIT_DEFINE_ACTION_WRAPPER(nsfs_kunit_put_cred, put_cred,
			    const struct cred *);

static struct ns_common *nsfs_kunit_get_same(void *data)
{
	struct ns_common *ns = data;

	refcount_inc(&ns->count);
	return ns;
}

static struct ns_common *nsfs_kunit_get_same_related(struct ns_common *ns)
{
	return nsfs_kunit_get_same(ns);
}

static int nsfs_test_init(struct kunit *test)
{
	/* fds go to a table of the case's own, not init's shared one. */
	return unshare_files();
}

/* A private uts namespace owned by @owner. */
static struct uts_namespace *
nsfs_kunit_uts_owned_by(struct kunit *test, struct user_namespace *owner)
{
	struct uts_namespace *uts;

	if (!IS_ENABLED(CONFIG_UTS_NS))
		kunit_skip(test, "CONFIG_UTS_NS is off");
	uts = copy_utsname(CLONE_NEWUTS, owner, &init_uts_ns);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uts);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_put_uts_ns,
						  uts));
	return uts;
}

static struct uts_namespace *nsfs_kunit_private_uts(struct kunit *test)
{
	return nsfs_kunit_uts_owned_by(test, &init_user_ns);
}

/* A cred in a new user namespace, a child of init_user_ns. */
static struct cred *nsfs_kunit_child_userns_cred(struct kunit *test)
{
	struct cred *cred;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is off");
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_put_cred,
						  cred));
	KUNIT_ASSERT_EQ(test, create_user_ns(cred), 0);
	KUNIT_ASSERT_PTR_EQ(test, cred->user_ns->parent, &init_user_ns);
	return cred;
}

static struct path *nsfs_kunit_path(struct kunit *test, struct ns_common *ns)
{
	struct path *path = kunit_kzalloc(test, sizeof(*path), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, path);
	KUNIT_ASSERT_EQ(test, ns_get_path_cb(path, nsfs_kunit_get_same, ns), 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_path_put,
						  path));
	return path;
}

/*
 * Two opens of one namespace share one dentry and inode (stashed in
 * ns->stashed) on the nsfs mount; the inode holds one reference, dropped
 * when the last path goes.
 */
static void nsfs_same_namespace_gives_same_inode(struct kunit *test)
{
	struct uts_namespace *uts = nsfs_kunit_private_uts(test);
	unsigned int base = refcount_read(&uts->ns.count);
	struct path *a, *b;

	a = nsfs_kunit_path(test, &uts->ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	b = nsfs_kunit_path(test, &uts->ns);
	KUNIT_EXPECT_PTR_EQ(test, a->dentry, b->dentry);
	KUNIT_EXPECT_PTR_EQ(test, a->mnt, nsfs_mnt);
	KUNIT_EXPECT_PTR_EQ(test, a->dentry->d_op, &ns_dentry_operations);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(uts->ns.stashed), a->dentry);
	KUNIT_EXPECT_EQ(test, d_inode(a->dentry)->i_ino,
			(unsigned long)uts->ns.inum);
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(d_inode(a->dentry)), &uts->ns);
	/* The second open reused the inode and dropped its extra reference. */
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);

	kunit_release_action(test, nsfs_kunit_path_put, b);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	kunit_release_action(test, nsfs_kunit_path_put, a);
	/*
	 * The last path is gone: dentry and inode with it, and their reference.
	 */
	KUNIT_EXPECT_NULL(test, READ_ONCE(uts->ns.stashed));
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base);
}

/*
 * open_related_ns() consumes the reference its callback took, and gives a
 * read-only, close-on-exec fd on the namespace's nsfs file.
 */
static void nsfs_open_related_ns_opens_the_namespace(struct kunit *test)
{
	struct uts_namespace *uts = nsfs_kunit_private_uts(test);
	unsigned int base = refcount_read(&uts->ns.count);
	struct file *file;
	bool cloexec;
	int fd;

	fd = open_related_ns(&uts->ns, nsfs_kunit_get_same_related);
	KUNIT_ASSERT_GE(test, fd, 0);
	/* The fdtable is read under RCU, as get_close_on_exec() does. */
	rcu_read_lock();
	cloexec = close_on_exec(fd, current->files);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, cloexec);
	file = fget(fd);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_fput, file));
	KUNIT_EXPECT_TRUE(test, proc_ns_file(file));
	/* fmode_t is __bitwise: compare it as the unsigned int it is. */
	KUNIT_EXPECT_EQ(test,
			(__force unsigned int)(file->f_mode &
					       (FMODE_READ | FMODE_WRITE)),
			(__force unsigned int)FMODE_READ);
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(file_inode(file)), &uts->ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base + 1);
	close_fd(fd);
	kunit_release_action(test, nsfs_kunit_fput, file);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, refcount_read(&uts->ns.count), base);
}

/*
 * The file an ioctl opened as @fd, now ours alone: the fd is closed, the
 * file put by a KUnit action.
 */
static struct file *nsfs_kunit_file_of_fd(struct kunit *test, long fd)
{
	struct file *file;

	KUNIT_ASSERT_GE(test, fd, 0);
	file = fget(fd);
	close_fd(fd);
	KUNIT_ASSERT_NOT_NULL(test, file);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_fput, file));
	return file;
}

/* An open file of @ns, closed by a KUnit action. */
static struct file *nsfs_kunit_open(struct kunit *test, struct ns_common *ns)
{
	struct file *file = dentry_open(nsfs_kunit_path(test, ns), O_RDONLY,
					current_cred());

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, nsfs_kunit_fput, file));
	return file;
}

/* The nsfs ioctls on an open namespace file. */
static void nsfs_ioctls_answer_for_uts(struct kunit *test)
{
	struct uts_namespace *uts = nsfs_kunit_private_uts(test);
	struct file *file = nsfs_kunit_open(test, &uts->ns), *owner;
	long fd;

	KUNIT_EXPECT_TRUE(test, proc_ns_file(file));

	KUNIT_EXPECT_EQ(test,
			file->f_op->unlocked_ioctl(file, NS_GET_NSTYPE, 0),
			(long)CLONE_NEWUTS);
	KUNIT_EXPECT_EQ(test,
			file->f_op->unlocked_ioctl(file, NS_GET_OWNER_UID, 0),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test,
			file->f_op->unlocked_ioctl(file, NS_GET_PARENT, 0),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test,
			file->f_op->unlocked_ioctl(file, _IO(NSIO, 0x7f), 0),
			(long)-ENOTTY);

	/* NS_GET_USERNS opens the owner: init_user_ns, a descendant of ours. */
	fd = file->f_op->unlocked_ioctl(file, NS_GET_USERNS, 0);
	if (!IS_ENABLED(CONFIG_USER_NS)) {
		/* No user namespace files: nothing names an owner. */
		KUNIT_EXPECT_EQ(test, fd, (long)-EPERM);
		return;
	}
	owner = nsfs_kunit_file_of_fd(test, fd);
	KUNIT_EXPECT_TRUE(test, proc_ns_file(owner));
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(file_inode(owner)),
			    &init_user_ns.ns);
}

/*
 * NS_GET_USERNS on a namespace owned by a child user namespace opens that
 * child, with a reference of its own.
 */
static void nsfs_get_userns_opens_a_child_owner(struct kunit *test)
{
	struct cred *cred = nsfs_kunit_child_userns_cred(test);
	struct user_namespace *child = cred->user_ns;
	struct uts_namespace *uts = nsfs_kunit_uts_owned_by(test, child);
	struct file *file = nsfs_kunit_open(test, &uts->ns);
	unsigned int base = refcount_read(&child->ns.count);
	struct file *owner;
	long fd;

	fd = file->f_op->unlocked_ioctl(file, NS_GET_USERNS, 0);
	owner = nsfs_kunit_file_of_fd(test, fd);
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(file_inode(owner)), &child->ns);
	KUNIT_EXPECT_EQ(test, refcount_read(&child->ns.count), base + 1);
}

/*
 * From inside a child user namespace, the owner of a namespace that its
 * parent owns is out of reach: NS_GET_USERNS is EPERM.
 */
static void nsfs_get_userns_of_an_ancestor_owner_is_eperm(struct kunit *test)
{
	struct cred *cred = nsfs_kunit_child_userns_cred(test);
	struct uts_namespace *uts = nsfs_kunit_private_uts(test);
	struct file *file = nsfs_kunit_open(test, &uts->ns);
	const struct cred *old;
	long fd;

	old = override_creds(cred);
	fd = file->f_op->unlocked_ioctl(file, NS_GET_USERNS, 0);
	revert_creds(old);
	if (fd >= 0)
		close_fd(fd);
	KUNIT_EXPECT_EQ(test, fd, (long)-EPERM);
}

static struct kunit_case nsfs_test_cases[] = {
	KUNIT_CASE(nsfs_same_namespace_gives_same_inode),
	KUNIT_CASE(nsfs_open_related_ns_opens_the_namespace),
	KUNIT_CASE(nsfs_ioctls_answer_for_uts),
	KUNIT_CASE(nsfs_get_userns_opens_a_child_owner),
	KUNIT_CASE(nsfs_get_userns_of_an_ancestor_owner_is_eperm),
	{}
};

static struct kunit_suite nsfs_test_suite = {
	.name = "nsfs",
	.init = nsfs_test_init,
	.test_cases = nsfs_test_cases,
};

kunit_test_suite(nsfs_test_suite);
