// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the proc_ns_operations instances behind /proc/<pid>/ns.
 *
 * fs/proc/namespaces.c includes this file, so that the cases iterate the
 * kernel's own ns_entries[]: one parameter per /proc/<pid>/ns entry the
 * configuration builds, and nothing else.
 *
 * Every operation is checked on a private namespace of the entry's type,
 * created for the case and owned by a user namespace that is a child of
 * init_user_ns (without CONFIG_USER_NS: init_user_ns). So a reference
 * count is exact, an owner() that answers init_user_ns is caught, and the
 * two capability checks of each install (over the target's owner, and in
 * the caller's user namespace) fail one at a time. pid entries need a task
 * whose active pid namespace is the target: each such case forks one, the
 * init of the target, which waits until the case lets it go.
 *
 * Everything a case takes is released by a KUnit action, so a failed
 * assertion leaks nothing into the next case.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/ipc_namespace.h>
#include <linux/mman.h>
#include <linux/mnt_namespace.h>
#include <linux/mount.h>
#include <linux/pid_namespace.h>
#include <linux/proc_ns.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/net_namespace.h>

KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_put_cred, put_cred,
			    const struct cred *);
KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_put_nsproxy, put_nsproxy,
			    struct nsproxy *);
#ifdef CONFIG_USER_NS
KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_put_ucounts, put_ucounts,
			    struct ucounts *);
#endif
KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_free_fs, free_fs_struct,
			    struct fs_struct *);
KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_path_put, path_put,
			    const struct path *);

static const struct proc_ns_operations *proc_ns_kunit_ops(struct kunit *test)
{
	const struct proc_ns_operations *const *entry = test->param_value;

	return *entry;
}

static void proc_ns_kunit_entry_desc(const struct proc_ns_operations **entry,
				     char *desc)
{
	strscpy(desc, (*entry)->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(proc_ns_entry, ns_entries, proc_ns_kunit_entry_desc);

static unsigned int proc_ns_kunit_count(struct ns_common *ns)
{
	return refcount_read(&ns->count);
}

/*
 * The namespace of @ops's entry in @nsp. Only entries the configuration
 * builds can be asked for: they are the ones in ns_entries[].
 */
static struct ns_common *
proc_ns_kunit_nsproxy_ns(struct nsproxy *nsp,
			 const struct proc_ns_operations *ops)
{
	switch (ops->type) {
#ifdef CONFIG_UTS_NS
	case CLONE_NEWUTS:
		return &nsp->uts_ns->ns;
#endif
#ifdef CONFIG_IPC_NS
	case CLONE_NEWIPC:
		return &nsp->ipc_ns->ns;
#endif
#ifdef CONFIG_NET_NS
	case CLONE_NEWNET:
		return &nsp->net_ns->ns;
#endif
#ifdef CONFIG_CGROUPS
	case CLONE_NEWCGROUP:
		return &nsp->cgroup_ns->ns;
#endif
#ifdef CONFIG_PID_NS
	case CLONE_NEWPID:
		return &nsp->pid_ns_for_children->ns;
#endif
#ifdef CONFIG_TIME_NS
	case CLONE_NEWTIME:
		/* time_for_children reads as "time" */
		return ops->real_ns_name ? &nsp->time_ns_for_children->ns :
		       &nsp->time_ns->ns;
#endif
	case CLONE_NEWNS:
		return from_mnt_ns(nsp->mnt_ns);
	}
	return NULL;
}

/* Every namespace of @a but those of @type is @b's. */
static void proc_ns_kunit_expect_only_type_differs(struct kunit *test,
						   struct nsproxy *a,
						   struct nsproxy *b, int type)
{
	if (type != CLONE_NEWUTS)
		KUNIT_EXPECT_PTR_EQ(test, a->uts_ns, b->uts_ns);
	if (type != CLONE_NEWIPC)
		KUNIT_EXPECT_PTR_EQ(test, a->ipc_ns, b->ipc_ns);
	if (type != CLONE_NEWNS)
		KUNIT_EXPECT_PTR_EQ(test, a->mnt_ns, b->mnt_ns);
	if (type != CLONE_NEWPID)
		KUNIT_EXPECT_PTR_EQ(test, a->pid_ns_for_children,
				    b->pid_ns_for_children);
	if (type != CLONE_NEWNET)
		KUNIT_EXPECT_PTR_EQ(test, a->net_ns, b->net_ns);
	if (type != CLONE_NEWTIME) {
		KUNIT_EXPECT_PTR_EQ(test, a->time_ns, b->time_ns);
		KUNIT_EXPECT_PTR_EQ(test, a->time_ns_for_children,
				    b->time_ns_for_children);
	}
	if (type != CLONE_NEWCGROUP)
		KUNIT_EXPECT_PTR_EQ(test, a->cgroup_ns, b->cgroup_ns);
}

/*
 * A copy of @from (NULL: the current subjective cred), moved into a new
 * user namespace that is a child of @from's, with all capabilities there.
 */
static struct cred *proc_ns_kunit_userns_cred(struct kunit *test,
					      const struct cred *from)
{
	const struct cred *old = NULL;
	struct cred *cred;
	int err;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is off");
	/* prepare_creds() copies current's: nothing may abort in between. */
	if (from)
		old = override_creds(from);
	cred = prepare_creds();
	if (from)
		revert_creds(old);
	KUNIT_ASSERT_NOT_NULL(test, cred);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, proc_ns_kunit_put_cred,
						  cred));
	err = create_user_ns(cred);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "create_user_ns");
	return cred;
}

/*
 * A task forked for the case (as the usermode helper forks, a kernel
 * function in place of an exec), so that an entry can be read from a task
 * whose objective cred or active pid namespace is private: with
 * CLONE_NEWPID it is the init of a new pid namespace, and makes a child
 * pid namespace of its own (@inner). It waits until the case lets it go.
 * Forked with CLONE_PARENT, as the async usermode helper is: it is
 * kthreadd's child, which ignores SIGCHLD, so it is reaped when it exits.
 * With @reap it is the case's own child instead, as the sync usermode
 * helper's is, and the case reaps it with kernel_wait(), the one event
 * that says a task is gone with everything do_exit() drops (its mm, its
 * namespaces, its pid): proc_ns_kunit_child_reap(). Such a child must be
 * reaped by the case's own kthread; if the case aborts first, it is
 * re-parented to init, as any orphan is.
 * Let go, it still wakes in @release and decrements release.done: the
 * case waits for @exited before it frees @c, or that late write would land
 * in whatever reuses the memory, such as a KUnit action (at its kref).
 */
struct proc_ns_kunit_child {
	struct completion ready, release, exited;
	struct task_struct *task;
	struct pid_namespace *inner;
	/* pidns get_parent of its own and of @inner, called by the child */
	struct ns_common *own_parent, *inner_parent;
	/*
	 * With @unshare_pid: its pid_for_children, made by unshare, and the
	 * grandchild forked into it, that namespace's init (its reaper).
	 */
	struct pid_namespace *for_children;
	struct completion gc_ready, gc_release, gc_exited;
	pid_t gc_pid;
	int unshare_err;
	bool unshare_pid;
	bool reap;
	unsigned long flags;
	pid_t pid;
};

#ifdef CONFIG_PID_NS
/*
 * pidns get_parent of @ns as the child sees it, from inside its active pid
 * namespace. Only the pointer is kept: the child drops the reference at
 * once, and @ns's parent outlives the child's wait.
 */
static struct ns_common *proc_ns_kunit_parent_seen_inside(struct ns_common *ns)
{
	struct ns_common *got = pidns_operations.get_parent(ns);

	if (!IS_ERR_OR_NULL(got))
		pidns_operations.put(got);
	return got;
}

static int proc_ns_kunit_grandchild_fn(void *data)
{
	struct proc_ns_kunit_child *c = data;

	complete(&c->gc_ready);
	wait_for_completion(&c->gc_release);
	complete(&c->gc_exited);
	do_exit(0);
}
#endif

static int proc_ns_kunit_child_fn(void *data)
{
	struct proc_ns_kunit_child *c = data;

#ifdef CONFIG_PID_NS
	if (c->flags & CLONE_NEWPID) {
		struct pid_namespace *active = task_active_pid_ns(current);

		c->inner = copy_pid_ns(CLONE_NEWPID, current_user_ns(), active);
		c->own_parent = proc_ns_kunit_parent_seen_inside(&active->ns);
		if (!IS_ERR(c->inner))
			c->inner_parent =
				proc_ns_kunit_parent_seen_inside(&c->inner->ns);
	}
	if (c->unshare_pid) {
		struct nsproxy *nsp = NULL;

		/*
		 * unshare(CLONE_NEWPID): a new pid_for_children, same active ns
		 */
		c->unshare_err = unshare_nsproxy_namespaces(CLONE_NEWPID, &nsp,
							    NULL, current->fs);
		if (!c->unshare_err && nsp) {
			c->for_children = nsp->pid_ns_for_children;
			switch_task_namespaces(current, nsp);
			/* Kthreadd's child too: reaped when it exits. */
			c->gc_pid =
				user_mode_thread(proc_ns_kunit_grandchild_fn, c,
						 CLONE_PARENT | SIGCHLD);
			if (c->gc_pid > 0)
				wait_for_completion(&c->gc_ready);
		}
	}
#endif
	complete(&c->ready);
	wait_for_completion(&c->release);
	if (c->gc_pid > 0) {
		complete(&c->gc_release);
		wait_for_completion(&c->gc_exited);
	}
	/* The last access to @c: the case may free it from here on. */
	complete(&c->exited);
	do_exit(0);
}

/*
 * Let the child go, wait until it is done with @c, and drop the pid
 * namespace it made for the case (@inner, which the case owns).
 */
static void proc_ns_kunit_child_release(struct proc_ns_kunit_child *c)
{
	complete(&c->release);
	wait_for_completion(&c->exited);
#ifdef CONFIG_PID_NS
	if (!IS_ERR_OR_NULL(c->inner))
		put_pid_ns(c->inner);
	c->inner = NULL;
#endif
}

static void proc_ns_kunit_child_stop(void *data)
{
	struct proc_ns_kunit_child *c = data;

	proc_ns_kunit_child_release(c);
	put_task_struct(c->task);
}

/*
 * Fork a child with @cred (copied as its own) and @flags; with
 * @unshare_pid it then unshares CLONE_NEWPID, as unshare(2) does; with
 * @reap it is the case's child, for proc_ns_kunit_child_reap().
 */
static struct proc_ns_kunit_child *
proc_ns_kunit_child_start(struct kunit *test, struct cred *cred,
			  unsigned long flags, bool unshare_pid, bool reap)
{
	struct proc_ns_kunit_child *c =
		kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	const struct cred *old = NULL;

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->ready);
	init_completion(&c->release);
	init_completion(&c->exited);
	c->flags = flags;
	c->unshare_pid = unshare_pid;
	c->reap = reap;
	init_completion(&c->gc_ready);
	init_completion(&c->gc_release);
	init_completion(&c->gc_exited);
	/*
	 * A kthread ignores SIGCHLD, so its children reap themselves. To
	 * wait for one, as call_usermodehelper_exec_sync() does, the case's
	 * kthread takes the default action, which leaves the exited child
	 * for kernel_wait(). The kthread is the case's alone and ends with
	 * it: nothing else sees this.
	 */
	if (reap)
		kernel_sigaction(SIGCHLD, SIG_DFL);
	if (cred)
		old = override_creds(cred);
	c->pid = user_mode_thread(proc_ns_kunit_child_fn, c,
				  flags | (reap ? 0 : CLONE_PARENT) | SIGCHLD);
	if (cred)
		revert_creds(old);
	KUNIT_ASSERT_GT_MSG(test, c->pid, 0, "fork");
	c->task = find_get_task_by_vpid(c->pid);
	if (!c->task) {
		proc_ns_kunit_child_release(c);
		KUNIT_FAIL_AND_ABORT(test, "forked child %d not found", c->pid);
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_child_stop, c));
	wait_for_completion(&c->ready);
#ifdef CONFIG_PID_NS
	if (flags & CLONE_NEWPID)
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->inner);
#endif
	return c;
}

#ifdef CONFIG_USER_NS
/*
 * Let @c, a child forked with @reap, go and reap it: once kernel_wait()
 * has it, the child has been through all of do_exit() (exit_mm() and
 * exit_task_namespaces() come before exit_notify()) and release_task(),
 * so nothing of it holds the case's mm or a namespace any more, but
 * for what RCU callbacks free after it (its struct pid and task_struct,
 * and with the latter its cred).
 */
static void proc_ns_kunit_child_reap(struct kunit *test,
				     struct proc_ns_kunit_child *c)
{
	int status = 0;

	KUNIT_ASSERT_TRUE(test, c->reap);
	kunit_release_action(test, proc_ns_kunit_child_stop, c);
	KUNIT_ASSERT_EQ_MSG(test, kernel_wait(c->pid, &status), c->pid,
			    "reap child %d", c->pid);
	KUNIT_EXPECT_EQ(test, status, 0);
}

KUNIT_DEFINE_ACTION_WRAPPER(proc_ns_kunit_kern_unmount, kern_unmount,
			    struct vfsmount *);

/*
 * Map root of @cred's user namespace to its creator, root: fork a task with
 * @cred and write "0 0 1" to its /proc/<pid>/uid_map and gid_map on a
 * private mount of proc, as a privileged parent writes them, so that
 * map_write() applies its own rules. A user namespace can only be created
 * by a uid that is mapped in its parent.
 */
static void proc_ns_kunit_map_root(struct kunit *test, struct cred *cred)
{
	struct proc_ns_kunit_child *child =
		proc_ns_kunit_child_start(test, cred, 0, false, true);
	static const char map[] = "0 0 1\n";
	static const char *const files[] = { "uid_map", "gid_map" };
	struct file_system_type *proc = get_fs_type("proc");
	struct vfsmount *mnt;
	unsigned long buf;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, proc);
	mnt = kern_mount(proc);
	put_filesystem(proc);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mnt);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_kern_unmount,
						  mnt));
	buf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_FALSE(test, !buf || IS_ERR_VALUE(buf));
	KUNIT_ASSERT_EQ(test, 0UL,
			copy_to_user((void __user *)buf, map, strlen(map)));

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char path[32];
		struct file *file;
		loff_t pos = 0;
		ssize_t n;

		snprintf(path, sizeof(path), "%d/%s", child->pid, files[i]);
		file = file_open_root_mnt(mnt, path, O_WRONLY, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, file, "open %s", path);
		n = vfs_write(file, (const char __user *)buf, strlen(map),
			      &pos);
		fput(file);
		KUNIT_EXPECT_EQ_MSG(test, n, (ssize_t)strlen(map), "write %s",
				    path);
	}
	/*
	 * The child shares the case's mm (user_mode_thread() is CLONE_VM):
	 * timens_install() refuses a task that is not single-threaded in
	 * that sense, so the child must be gone, mm and all, before the case:
	 * reaped.
	 */
	kunit_release_action(test, proc_ns_kunit_kern_unmount, mnt);
	proc_ns_kunit_child_reap(test, child);
}
#endif

/* A private namespace of one entry's type, and how the entry reaches it. */
struct proc_ns_kunit_target {
	const struct proc_ns_operations *ops;
	struct cred *owner_cred; /* a cred in @owner; NULL without USER_NS */
	struct user_namespace *owner; /* what ops->owner(target) must answer */
	struct cred *user_cred;		/* user: a cred in the target */
	struct nsproxy *nsp;		/* the others: holds the target */
	struct proc_ns_kunit_child *child; /* pid, user: a task in the target */
	struct ns_common *target;
	bool reap;			/* @child is the case's to reap */
};

/* The target of the case's entry; with @reap, a @child the case reaps. */
static struct proc_ns_kunit_target *__proc_ns_kunit_target(struct kunit *test,
							   bool reap)
{
	struct proc_ns_kunit_target *t =
		kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const struct proc_ns_operations *ops = proc_ns_kunit_ops(test);
	struct fs_struct *fs = NULL;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->ops = ops;
	t->reap = reap;
	t->owner = &init_user_ns;
#ifdef CONFIG_USER_NS
	t->owner_cred = proc_ns_kunit_userns_cred(test, NULL);
	t->owner = t->owner_cred->user_ns;
	proc_ns_kunit_map_root(test, t->owner_cred);
	KUNIT_ASSERT_PTR_EQ(test, t->owner->parent, &init_user_ns);
#endif

	switch (ops->type) {
#ifdef CONFIG_USER_NS
	case CLONE_NEWUSER: {
		/*
		 * A grandchild of init_user_ns: its owner is not init_user_ns.
		 */
		t->user_cred = proc_ns_kunit_userns_cred(test, t->owner_cred);
		t->target = &t->user_cred->user_ns->ns;
		/* userns_get() reads the objective cred: a task of its own. */
		t->child = proc_ns_kunit_child_start(test, t->user_cred, 0,
						     false, t->reap);
		KUNIT_ASSERT_PTR_EQ(test,
				    &task_cred_xxx(t->child->task, user_ns)->ns,
				    t->target);
		return t;
	}
#endif
#ifdef CONFIG_PID_NS
	case CLONE_NEWPID:
		t->child = proc_ns_kunit_child_start(test, t->owner_cred,
						     CLONE_NEWPID, false,
						     t->reap);
		t->target = &task_active_pid_ns(t->child->task)->ns;
		KUNIT_ASSERT_PTR_NE(test, t->target, &init_pid_ns.ns);
		return t;
#endif
	case CLONE_NEWNS:
		/* copy_mnt_ns() re-roots this copy, never the task's fs. */
		fs = copy_fs_struct(current->fs);
		KUNIT_ASSERT_NOT_NULL(test, fs);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test,
							  proc_ns_kunit_free_fs,
							  fs));
		break;
	}

	err = unshare_nsproxy_namespaces(ops->type, &t->nsp, t->owner_cred,
					 fs ?: current->fs);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "unshare %s", ops->name);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_put_nsproxy,
						  t->nsp));
#ifdef CONFIG_TIME_NS
	if (ops->type == CLONE_NEWTIME) {
		/*
		 * unshare made time_for_children; time follows at the next
		 * exec.
		 */
		struct time_namespace *ns = t->nsp->time_ns_for_children;

		get_time_ns(ns);
		put_time_ns(t->nsp->time_ns);
		t->nsp->time_ns = ns;
	}
#endif
	t->target = proc_ns_kunit_nsproxy_ns(t->nsp, ops);
	KUNIT_ASSERT_PTR_NE(test, t->target,
			    proc_ns_kunit_nsproxy_ns(current->nsproxy, ops));
	return t;
}

static struct proc_ns_kunit_target *proc_ns_kunit_target(struct kunit *test)
{
	return __proc_ns_kunit_target(test, false);
}

/* The task whose entry is the target, while the case is inside it. */
struct proc_ns_kunit_inside {
	struct nsproxy *old_nsp;
};

static struct task_struct *proc_ns_kunit_enter(struct proc_ns_kunit_target *t,
					       struct proc_ns_kunit_inside *in)
{
	if (t->child)
		return t->child->task;
	in->old_nsp = current->nsproxy;
	get_nsproxy(in->old_nsp);
	get_nsproxy(t->nsp);
	switch_task_namespaces(current, t->nsp);
	return current;
}

static void proc_ns_kunit_leave(struct proc_ns_kunit_target *t,
				struct proc_ns_kunit_inside *in)
{
	if (in->old_nsp)
		switch_task_namespaces(current, in->old_nsp);
}

/*
 * /proc/<pid>/ns lists exactly the configured types, under the names and
 * CLONE_NEW* types of the ABI, the "for children" entries reading as the
 * type they install.
 */
static void proc_ns_entries_are_exactly_the_configured_types(struct kunit *test)
{
	static const struct {
		const char *name, *real_name;
		int type;
		bool configured;
	} abi[] = {
		{ "net", NULL, CLONE_NEWNET, IS_ENABLED(CONFIG_NET_NS) },
		{ "uts", NULL, CLONE_NEWUTS, IS_ENABLED(CONFIG_UTS_NS) },
		{ "ipc", NULL, CLONE_NEWIPC, IS_ENABLED(CONFIG_IPC_NS) },
		{ "pid", NULL, CLONE_NEWPID, IS_ENABLED(CONFIG_PID_NS) },
		{ "pid_for_children", "pid", CLONE_NEWPID,
		  IS_ENABLED(CONFIG_PID_NS) },
		{ "user", NULL, CLONE_NEWUSER, IS_ENABLED(CONFIG_USER_NS) },
		{ "mnt", NULL, CLONE_NEWNS, true },
		{ "cgroup", NULL, CLONE_NEWCGROUP, IS_ENABLED(CONFIG_CGROUPS) },
		{ "time", NULL, CLONE_NEWTIME, IS_ENABLED(CONFIG_TIME_NS) },
		{ "time_for_children", "time", CLONE_NEWTIME,
		  IS_ENABLED(CONFIG_TIME_NS) },
	};
	unsigned int i, j, found = 0, configured = 0;

	for (i = 0; i < ARRAY_SIZE(abi); i++) {
		const struct proc_ns_operations *ops = NULL;

		configured += abi[i].configured;
		for (j = 0; j < ARRAY_SIZE(ns_entries); j++) {
			if (strcmp(ns_entries[j]->name, abi[i].name))
				continue;
			KUNIT_EXPECT_NULL_MSG(test, ops, "%s listed twice",
					      abi[i].name);
			ops = ns_entries[j];
		}
		KUNIT_EXPECT_EQ_MSG(test, !!ops, abi[i].configured,
				    "%s listed: %d, configured: %d",
				    abi[i].name, !!ops, abi[i].configured);
		if (!ops)
			continue;
		found++;
		KUNIT_EXPECT_EQ_MSG(test, ops->type, abi[i].type, "%s",
				    abi[i].name);
		if (abi[i].real_name)
			KUNIT_EXPECT_STREQ(test, ops->real_ns_name ?: "(none)",
					   abi[i].real_name);
		else
			KUNIT_EXPECT_NULL_MSG(test, ops->real_ns_name, "%s",
					      abi[i].name);
	}
	KUNIT_EXPECT_EQ(test, found, configured);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(ns_entries), configured);
}

/* get on a task takes exactly one reference on the entry's namespace. */
static void proc_ns_get_takes_one_reference(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	struct proc_ns_kunit_inside in = {};
	unsigned int base = proc_ns_kunit_count(t->target);
	struct ns_common *ns;

	ns = t->ops->get(proc_ns_kunit_enter(t, &in));
	proc_ns_kunit_leave(t, &in);
	KUNIT_EXPECT_PTR_EQ(test, ns, t->target);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base + 1);
	if (!IS_ERR_OR_NULL(ns))
		t->ops->put(ns);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
}

/* The entry called @name, or NULL if the configuration leaves it out. */
static const struct proc_ns_operations *
proc_ns_kunit_entry_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ns_entries); i++)
		if (!strcmp(ns_entries[i]->name, name))
			return ns_entries[i];
	return NULL;
}

/*
 * pid and time have two entries: the namespace the task is in and the one
 * its children will get (@pair[0] and @pair[1]). After unshare(2) of the
 * type the two differ, and each entry's get must return its own: @want.
 * The gets ran with the task in place; only the results are judged here.
 */
static void
proc_ns_kunit_expect_pair(struct kunit *test,
			  const struct proc_ns_operations *const pair[2],
			  struct ns_common *const got[2],
			  struct ns_common *const want[2])
{
	int i;

	KUNIT_EXPECT_PTR_NE(test, want[0], want[1]);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, got[i], want[i], "%s",
					pair[i]->name);
		if (!IS_ERR_OR_NULL(got[i]))
			pair[i]->put(got[i]);
	}
}

/* Both entries of @name, or skip naming the option that leaves them out. */
static void proc_ns_kunit_pair(struct kunit *test, const char *name,
			       const char *option,
			       const struct proc_ns_operations *pair[2])
{
	char children[32];

	snprintf(children, sizeof(children), "%s_for_children", name);
	pair[0] = proc_ns_kunit_entry_named(name);
	pair[1] = proc_ns_kunit_entry_named(children);
	/* The ABI test above fails if an entry of a configured type is gone. */
	if (!pair[0] || !pair[1])
		kunit_skip(test, "no %s entry in ns_entries[] (%s is not set)",
			   pair[0] ? children : name, option);
}

/*
 * /proc/<pid>/ns/pid is the task's active pid namespace, pid_for_children
 * the one unshare(CLONE_NEWPID) made for its children (once its first
 * child, the namespace's init, exists).
 */
static void
proc_ns_pid_and_pid_for_children_get_their_own_namespace(struct kunit *test)
{
	const struct proc_ns_operations *pair[2];
	struct ns_common *got[2] = {}, *want[2] = {};
	struct proc_ns_kunit_child *c;

	proc_ns_kunit_pair(test, "pid", "CONFIG_PID_NS", pair);
	c = proc_ns_kunit_child_start(test, NULL, 0, true, false);
	KUNIT_ASSERT_EQ(test, c->unshare_err, 0);
	KUNIT_ASSERT_GT_MSG(test, c->gc_pid, 0, "fork into pid_for_children");
	want[0] = &task_active_pid_ns(c->task)->ns;
	want[1] = &c->for_children->ns;
	got[0] = pair[0]->get(c->task);
	got[1] = pair[1]->get(c->task);
	proc_ns_kunit_expect_pair(test, pair, got, want);
}

/*
 * /proc/<pid>/ns/time is the task's time namespace, time_for_children the
 * one unshare(CLONE_NEWTIME) made (the task enters it at its next exec).
 */
static void
proc_ns_time_and_time_for_children_get_their_own_namespace(struct kunit *test)
{
	const struct proc_ns_operations *pair[2];
	struct ns_common *got[2] = {}, *want[2] = {};
	struct nsproxy *nsp = NULL, *old;
	int err;

	proc_ns_kunit_pair(test, "time", "CONFIG_TIME_NS", pair);
	err = unshare_nsproxy_namespaces(CLONE_NEWTIME, &nsp, NULL,
					 current->fs);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_put_nsproxy,
						  nsp));
	want[0] = proc_ns_kunit_nsproxy_ns(nsp, pair[0]);
	want[1] = proc_ns_kunit_nsproxy_ns(nsp, pair[1]);

	old = current->nsproxy;
	get_nsproxy(old);
	get_nsproxy(nsp);
	switch_task_namespaces(current, nsp);
	got[0] = pair[0]->get(current);
	got[1] = pair[1]->get(current);
	switch_task_namespaces(current, old);
	proc_ns_kunit_expect_pair(test, pair, got, want);
}

/* put drops exactly one reference (and frees nothing still referenced). */
static void proc_ns_put_drops_one_reference(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	unsigned int base = proc_ns_kunit_count(t->target);

	refcount_inc(&t->target->count);
	t->ops->put(t->target);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
	refcount_inc(&t->target->count);
	refcount_inc(&t->target->count);
	t->ops->put(t->target);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base + 1);
	t->ops->put(t->target);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
}

#ifdef CONFIG_USER_NS
/* The ucount that charges a namespace of @type to its owner. */
static enum ucount_type proc_ns_kunit_ucount_type(int type)
{
	switch (type) {
	case CLONE_NEWUSER:
		return UCOUNT_USER_NAMESPACES;
	case CLONE_NEWPID:
		return UCOUNT_PID_NAMESPACES;
	case CLONE_NEWUTS:
		return UCOUNT_UTS_NAMESPACES;
	case CLONE_NEWIPC:
		return UCOUNT_IPC_NAMESPACES;
	case CLONE_NEWNET:
		return UCOUNT_NET_NAMESPACES;
	case CLONE_NEWCGROUP:
		return UCOUNT_CGROUP_NAMESPACES;
	case CLONE_NEWTIME:
		return UCOUNT_TIME_NAMESPACES;
	}
	return UCOUNT_MNT_NAMESPACES;
}

/*
 * Drop everything that holds the target, as the KUnit actions would; its
 * task, if it has one, is reaped (a target made with @reap).
 */
static void proc_ns_kunit_target_release(struct kunit *test,
					 struct proc_ns_kunit_target *t)
{
	if (t->nsp)
		kunit_release_action(test, proc_ns_kunit_put_nsproxy, t->nsp);
	if (t->child)
		proc_ns_kunit_child_reap(test, t->child);
	if (t->user_cred)
		kunit_release_action(test, proc_ns_kunit_put_cred,
				     t->user_cred);
}

/*
 * After the last put, a struct pid puts its pid namespace, a task_struct
 * its cred, a cred its user namespace and a pid namespace its charge
 * from RCU callbacks, each stage queued by the one before it. In 6.12
 * the chains are two stages deep (struct pid, then pid namespace;
 * task_struct, then cred); the bound leaves room for a deeper one.
 */
#define PROC_NS_KUNIT_RCU_STAGES 4

/*
 * Wait, event by event, for what the release of @t set off:
 * - uts, mnt, cgroup and time namespaces are freed by the last put
 *   itself;
 * - a task in the target (pid, user) was reaped by
 *   proc_ns_kunit_target_release();
 * - the RCU callbacks those leave behind: rcu_barrier() returns once
 *   every callback queued before it has run, so one per stage;
 * - ipc and net namespaces are freed from a work item, free_ipc_work and
 *   cleanup_net() on netns_wq: waited for by flushing that work
 *   (ipc_ns_kunit_flush_free(), net_ns_kunit_flush_cleanup());
 * - a user namespace is freed by its own work item, which frees the
 *   work with it: the case holds the last reference and runs that work
 *   itself (proc_ns_last_put_frees_the_namespace()).
 * Then what the free does last, dec_ucount(), has been done.
 */
static void proc_ns_kunit_wait_freed(struct proc_ns_kunit_target *t)
{
	int i;

	for (i = 0; i < PROC_NS_KUNIT_RCU_STAGES; i++)
		rcu_barrier();
#ifdef CONFIG_IPC_NS
	if (t->ops->type == CLONE_NEWIPC)
		ipc_ns_kunit_flush_free();
#endif
#ifdef CONFIG_NET_NS
	if (t->ops->type == CLONE_NEWNET)
		net_ns_kunit_flush_cleanup();
#endif
}
#endif

/*
 * The last put frees the namespace: the count of namespaces of its type
 * charged to its owner (the ucount that user.max_*_namespaces limits; the
 * owner is the case's own) is back to zero once everything that held the
 * target, and for pid its child namespace, is gone.
 */
static void proc_ns_last_put_frees_the_namespace(struct kunit *test)
{
#ifdef CONFIG_USER_NS
	struct proc_ns_kunit_target *t = __proc_ns_kunit_target(test, true);
	enum ucount_type type = proc_ns_kunit_ucount_type(t->ops->type);
	struct user_namespace *userns = NULL;
	struct ucounts *uc;

	/* Namespaces of the case are charged to the kthread's euid, 0. */
	uc = alloc_ucounts(t->owner, GLOBAL_ROOT_UID);
	KUNIT_ASSERT_NOT_NULL(test, uc);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_put_ucounts,
						  uc));
	KUNIT_ASSERT_GE(test, atomic_long_read(&uc->ucount[type]), 1);

	/*
	 * __put_user_ns() only queues the namespace's work, which frees the
	 * work with the namespace: nothing can wait for it from outside.
	 * Hold a reference of our own, and once everything else has let
	 * go, drop it as put_user_ns() would and run that work here.
	 */
	if (t->ops->type == CLONE_NEWUSER) {
		userns = container_of(t->target, struct user_namespace, ns);
		get_user_ns(userns);
	}
	proc_ns_kunit_target_release(test, t);
	proc_ns_kunit_wait_freed(t);
	if (userns) {
		unsigned int left = refcount_read(&userns->ns.count);

		if (refcount_dec_and_test(&userns->ns.count))
			userns->work.func(&userns->work);
		KUNIT_EXPECT_EQ_MSG(test, left, 1U,
				    "user: %u references left after its release",
				    left - 1);
	}
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&uc->ucount[type]), 0L,
			    "%s: still charged to its owner after its last put",
			    t->ops->name);
#else
	kunit_skip(test,
		   "CONFIG_USER_NS is off: init_user_ns's counts are the system's");
#endif
}

/*
 * owner is the user namespace the namespace was created in (for a user
 * namespace: its parent); the init namespaces' is init_user_ns (none for
 * init_user_ns itself).
 */
static void proc_ns_owner_is_the_creating_user_ns(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	struct ns_common *init;

	KUNIT_EXPECT_PTR_EQ(test, t->ops->owner(t->target), t->owner);
	if (IS_ENABLED(CONFIG_USER_NS))
		KUNIT_EXPECT_PTR_NE(test, t->owner, &init_user_ns);

	init = t->ops->get(current);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, init);
	KUNIT_EXPECT_PTR_EQ(test, t->ops->owner(init),
			    t->ops->type == CLONE_NEWUSER ? NULL :
			    &init_user_ns);
	t->ops->put(init);
}

static struct ns_common *proc_ns_kunit_init_pid_ns(void)
{
#ifdef CONFIG_PID_NS
	return &init_pid_ns.ns;
#else
	return NULL;
#endif
}

/*
 * get_parent exists for the hierarchical types only. It answers the parent
 * with one reference, and EPERM past what the caller can see.
 */
static void proc_ns_get_parent(struct kunit *test)
{
	const struct proc_ns_operations *ops = proc_ns_kunit_ops(test);
	struct proc_ns_kunit_target *t;
	struct ns_common *child = NULL, *parent = NULL, *got;
	unsigned int base;

	if (ops->type != CLONE_NEWPID && ops->type != CLONE_NEWUSER) {
		KUNIT_EXPECT_NULL(test, ops->get_parent);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, ops->get_parent);
	t = proc_ns_kunit_target(test);
#ifdef CONFIG_PID_NS
	if (ops->type == CLONE_NEWPID) {
		/*
		 * The child's inner pid namespace, whose parent is the target.
		 */
		child = &t->child->inner->ns;
		parent = t->target;
	}
#endif
	if (ops->type == CLONE_NEWUSER) {
		child = t->target;
		parent = &t->owner->ns;
	}

	base = proc_ns_kunit_count(parent);
	got = ops->get_parent(child);
	KUNIT_EXPECT_PTR_EQ(test, got, parent);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(parent), base + 1);
	if (!IS_ERR_OR_NULL(got))
		ops->put(got);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(parent), base);

	/* The init namespace has no parent at all. */
	got = ops->get_parent(ops->type == CLONE_NEWUSER ?
				      &init_user_ns.ns :
				      proc_ns_kunit_init_pid_ns());
	KUNIT_EXPECT_PTR_EQ(test, got, ERR_PTR(-EPERM));

#ifdef CONFIG_PID_NS
	if (ops->type == CLONE_NEWPID) {
		/*
		 * From inside the target: the inner namespace's parent is the
		 * target, and the target's own parent is out of reach.
		 */
		KUNIT_EXPECT_PTR_EQ(test, t->child->inner_parent, parent);
		KUNIT_EXPECT_PTR_EQ(test, t->child->own_parent,
				    ERR_PTR(-EPERM));
		KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(parent), base);
	}
#endif
	if (ops->type == CLONE_NEWUSER) {
		/* From inside the target, its parent is out of reach. */
		const struct cred *old = override_creds(t->user_cred);

		got = ops->get_parent(t->target);
		revert_creds(old);
		KUNIT_EXPECT_PTR_EQ(test, got, ERR_PTR(-EPERM));
		KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(parent), base);
	}
}

/*
 * A struct nsset as prepare_nsset() makes it for setns(fd, type): a copy
 * of the task's namespaces (here with a throwaway one of the type, which
 * install must replace), a cred to modify for user, a private fs for mnt.
 */
static void proc_ns_kunit_nsset(struct kunit *test, struct nsset *nsset,
				const struct proc_ns_operations *ops)
{
	int err;

	memset(nsset, 0, sizeof(*nsset));
	nsset->flags = ops->type;
	if (ops->type == CLONE_NEWUSER) {
		struct cred *cred = prepare_creds();

		KUNIT_ASSERT_NOT_NULL(test, cred);
		err = kunit_add_action_or_reset(test, proc_ns_kunit_put_cred,
						cred);
		KUNIT_ASSERT_EQ(test, err, 0);
		nsset->cred = cred;
		return;
	}
	nsset->cred = current_cred();
	if (ops->type == CLONE_NEWNS) {
		nsset->fs = copy_fs_struct(current->fs);
		KUNIT_ASSERT_NOT_NULL(test, nsset->fs);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test,
							  proc_ns_kunit_free_fs,
							  nsset->fs));
	}
	err = unshare_nsproxy_namespaces(ops->type, &nsset->nsproxy, NULL,
					 nsset->fs ?: current->fs);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, nsset->nsproxy);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test,
						  proc_ns_kunit_put_nsproxy,
						  nsset->nsproxy));
}

static void proc_ns_kunit_nsset_release(struct kunit *test, struct nsset *nsset)
{
	if (nsset->nsproxy) {
		kunit_release_action(test, proc_ns_kunit_put_nsproxy,
				     nsset->nsproxy);
	} else {
		kunit_release_action(test, proc_ns_kunit_put_cred,
				     (void *)nsset->cred);
		/* put_cred() frees through RCU: let it drop its references. */
		rcu_barrier();
	}
}

/* The namespace @nsset would commit for @ops's type. */
static struct ns_common *
proc_ns_kunit_nsset_ns(struct nsset *nsset,
		       const struct proc_ns_operations *ops)
{
	if (ops->type == CLONE_NEWUSER)
		return &nsset->cred->user_ns->ns;
	return proc_ns_kunit_nsproxy_ns(nsset->nsproxy, ops);
}

/*
 * install puts the target in the nsset with its references (time: both
 * time and time_for_children), changes nothing else, commits nothing.
 */
static void proc_ns_install_takes_the_target(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	int refs = t->ops->type == CLONE_NEWTIME ? 2 : 1;
	struct nsproxy *before = current->nsproxy;
	struct nsset nsset;
	unsigned int base;

	proc_ns_kunit_nsset(test, &nsset, t->ops);
#ifdef CONFIG_USER_NS
	if (t->ops->type == CLONE_NEWUSER) {
		/*
		 * userns_install() moves the cred's ucounts into the target;
		 * a new ucounts entry would pin the target once more. Hold
		 * that entry first, so install takes exactly its one reference.
		 */
		struct ucounts *uc = alloc_ucounts(container_of(t->target,
				struct user_namespace, ns), current_uid());
		int err;

		KUNIT_ASSERT_NOT_NULL(test, uc);
		err = kunit_add_action_or_reset(test, proc_ns_kunit_put_ucounts,
						uc);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
#endif
	base = proc_ns_kunit_count(t->target);
	KUNIT_EXPECT_EQ(test, t->ops->install(&nsset, t->target), 0);
	KUNIT_EXPECT_PTR_EQ(test, proc_ns_kunit_nsset_ns(&nsset, t->ops),
			    t->target);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base + refs);
#ifdef CONFIG_TIME_NS
	if (t->ops->type == CLONE_NEWTIME) {
		KUNIT_EXPECT_PTR_EQ(test, &nsset.nsproxy->time_ns->ns,
				    t->target);
		KUNIT_EXPECT_PTR_EQ(test,
				    &nsset.nsproxy->time_ns_for_children->ns,
				    t->target);
	}
#endif
	if (nsset.nsproxy)
		proc_ns_kunit_expect_only_type_differs(test, nsset.nsproxy,
						       before, t->ops->type);
	KUNIT_EXPECT_PTR_EQ(test, current->nsproxy, before);
	KUNIT_EXPECT_PTR_EQ(test, current_user_ns(), &init_user_ns);

	proc_ns_kunit_nsset_release(test, &nsset);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
}

/* install with @cred as the caller: EPERM, nothing taken, nothing changed. */
static void proc_ns_kunit_expect_install_eperm(struct kunit *test,
					       struct proc_ns_kunit_target *t,
					       const struct cred *cred,
					       const char *why)
{
	struct nsset nsset;
	const struct cred *old;
	unsigned int base;
	int err;

	proc_ns_kunit_nsset(test, &nsset, t->ops);
	base = proc_ns_kunit_count(t->target);
	old = override_creds(cred);
	if (t->ops->type != CLONE_NEWUSER)
		nsset.cred = current_cred();
	err = t->ops->install(&nsset, t->target);
	revert_creds(old);
	KUNIT_EXPECT_EQ_MSG(test, err, -EPERM, "%s", why);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
	KUNIT_EXPECT_PTR_NE(test, proc_ns_kunit_nsset_ns(&nsset, t->ops),
			    t->target);
	proc_ns_kunit_nsset_release(test, &nsset);
}

/*
 * install needs CAP_SYS_ADMIN over the target's owner: a caller with every
 * capability in a sibling user namespace (so in its own, which the second
 * check asks about) is refused.
 */
static void proc_ns_install_needs_cap_over_owner(struct kunit *test)
{
	struct proc_ns_kunit_target *t;
	struct cred *sibling;

	if (!IS_ENABLED(CONFIG_USER_NS))
		kunit_skip(test, "CONFIG_USER_NS is off: %s",
			   "init_user_ns owns all, the two checks are one");
	t = proc_ns_kunit_target(test);
	sibling = proc_ns_kunit_userns_cred(test, NULL);
	KUNIT_ASSERT_PTR_NE(test, sibling->user_ns, t->owner);
	proc_ns_kunit_expect_install_eperm(test, t, sibling,
					   "all capabilities in a sibling userns");
}

/*
 * install needs CAP_SYS_ADMIN in the caller's own user namespace too (mnt
 * also CAP_SYS_CHROOT): root of init_user_ns without it is still capable
 * over the target's owner, which it created, and is refused. user has no
 * such check: entering a user namespace one owns needs no capability here.
 */
static void proc_ns_install_needs_cap_in_caller_ns(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	static const int caps[] = { CAP_SYS_ADMIN, CAP_SYS_CHROOT };
	static const char *const why[] = { "without CAP_SYS_ADMIN",
					   "without CAP_SYS_CHROOT" };
	unsigned int i, n = t->ops->type == CLONE_NEWNS ? 2 : 1;

	for (i = 0; i < n; i++) {
		struct cred *cred = prepare_creds();
		int err;

		KUNIT_ASSERT_NOT_NULL(test, cred);
		err = kunit_add_action_or_reset(test, proc_ns_kunit_put_cred,
						cred);
		KUNIT_ASSERT_EQ(test, err, 0);
		cap_lower(cred->cap_effective, caps[i]);
		if (IS_ENABLED(CONFIG_USER_NS)) {
			const struct cred *old = override_creds(cred);

			KUNIT_EXPECT_TRUE(test,
					  ns_capable(t->owner, CAP_SYS_ADMIN));
			revert_creds(old);
		}
		if (t->ops->type == CLONE_NEWUSER) {
			struct nsset nsset;
			const struct cred *old;
			struct ns_common *ns;

			proc_ns_kunit_nsset(test, &nsset, t->ops);
			old = override_creds(cred);
			err = t->ops->install(&nsset, t->target);
			revert_creds(old);
			KUNIT_EXPECT_EQ(test, err, 0);
			ns = proc_ns_kunit_nsset_ns(&nsset, t->ops);
			KUNIT_EXPECT_PTR_EQ(test, ns, t->target);
			proc_ns_kunit_nsset_release(test, &nsset);
			continue;
		}
		proc_ns_kunit_expect_install_eperm(test, t, cred, why[i]);
	}
}

/* Entering the user namespace one is already in is EINVAL: no caps regained. */
static void
proc_ns_userns_install_into_own_user_ns_is_einval(struct kunit *test)
{
#ifdef CONFIG_USER_NS
	struct nsset nsset;
	const struct cred *old;
	struct cred *cred;
	int err;

	cred = proc_ns_kunit_userns_cred(test, NULL);
	nsset = (struct nsset){ .flags = CLONE_NEWUSER,
				.cred = prepare_creds() };
	KUNIT_ASSERT_NOT_NULL(test, nsset.cred);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, proc_ns_kunit_put_cred,
						  (void *)nsset.cred));
	old = override_creds(cred);
	err = userns_operations.install(&nsset, &cred->user_ns->ns);
	revert_creds(old);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, nsset.cred->user_ns, &init_user_ns);
#else
	kunit_skip(test, "CONFIG_USER_NS is off");
#endif
}

/*
 * nsfs: the entry's file is one inode per namespace (i_ino the inum,
 * i_private the namespace, stashed in ns->stashed), holding one reference
 * while any path pins it, and none once the last goes. Its link reads
 * "<type>:[<inum>]".
 */
static void proc_ns_nsfs_inode_pins_the_namespace(struct kunit *test)
{
	struct proc_ns_kunit_target *t = proc_ns_kunit_target(test);
	struct path *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct path *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	char name[64], want[64];
	struct proc_ns_kunit_inside in = {};
	struct task_struct *task;
	int err_a, err_b, reg_a, reg_b, len;
	unsigned int base;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NULL(test, READ_ONCE(t->target->stashed));
	base = proc_ns_kunit_count(t->target);
	task = proc_ns_kunit_enter(t, &in);
	err_a = ns_get_path(a, task, t->ops);
	err_b = ns_get_path(b, task, t->ops);
	len = ns_get_name(name, sizeof(name), task, t->ops);
	proc_ns_kunit_leave(t, &in);
	/* Both paths owned by an action before anything may abort. */
	reg_a = err_a ? 0 :
			kunit_add_action_or_reset(test, proc_ns_kunit_path_put,
						  a);
	reg_b = err_b ? 0 :
			kunit_add_action_or_reset(test, proc_ns_kunit_path_put,
						  b);
	KUNIT_ASSERT_EQ(test, reg_a, 0);
	KUNIT_ASSERT_EQ(test, reg_b, 0);
	KUNIT_ASSERT_EQ(test, err_a, 0);
	KUNIT_ASSERT_EQ(test, err_b, 0);

	KUNIT_EXPECT_PTR_EQ(test, a->dentry, b->dentry);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(t->target->stashed), a->dentry);
	KUNIT_EXPECT_EQ(test, d_inode(a->dentry)->i_ino,
			(unsigned long)t->target->inum);
	KUNIT_EXPECT_PTR_EQ(test, get_proc_ns(d_inode(a->dentry)), t->target);
	/* One reference, the inode's; the second lookup dropped its own. */
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base + 1);

	snprintf(want, sizeof(want), "%s:[%u]",
		 t->ops->real_ns_name ?: t->ops->name, t->target->inum);
	KUNIT_EXPECT_GT(test, len, 0);
	KUNIT_EXPECT_STREQ(test, name, want);

	kunit_release_action(test, proc_ns_kunit_path_put, b);
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base + 1);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(t->target->stashed), a->dentry);
	kunit_release_action(test, proc_ns_kunit_path_put, a);
	/*
	 * The last path is gone: dentry and inode with it, and their reference.
	 */
	KUNIT_EXPECT_NULL(test, READ_ONCE(t->target->stashed));
	KUNIT_EXPECT_EQ(test, proc_ns_kunit_count(t->target), base);
}

static int proc_ns_test_init(struct kunit *test)
{
	unsigned long addr;
	int err;

	/*
	 * The case's kthread shares init's fs_struct with every kthread:
	 * mntns_install() and userns_install() refuse a shared fs.
	 * timens_install() asks whether the task is single-threaded, which
	 * reads current->mm: give the kthread one.
	 */
	err = unshare_fs_struct();
	if (err)
		return err;
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
			     MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (!addr || IS_ERR_VALUE(addr))
		return -ENOMEM;
	return 0;
}

static struct kunit_case proc_ns_test_cases[] = {
	KUNIT_CASE(proc_ns_entries_are_exactly_the_configured_types),
	KUNIT_CASE_PARAM(proc_ns_get_takes_one_reference,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_put_drops_one_reference,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_last_put_frees_the_namespace,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_owner_is_the_creating_user_ns,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_get_parent, proc_ns_entry_gen_params),
	KUNIT_CASE(proc_ns_pid_and_pid_for_children_get_their_own_namespace),
	KUNIT_CASE(proc_ns_time_and_time_for_children_get_their_own_namespace),
	KUNIT_CASE_PARAM(proc_ns_install_takes_the_target,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_install_needs_cap_over_owner,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_install_needs_cap_in_caller_ns,
			 proc_ns_entry_gen_params),
	KUNIT_CASE_PARAM(proc_ns_nsfs_inode_pins_the_namespace,
			 proc_ns_entry_gen_params),
	KUNIT_CASE(proc_ns_userns_install_into_own_user_ns_is_einval),
	{}
};

static struct kunit_suite proc_ns_test_suite = {
	.name = "proc_ns",
	.init = proc_ns_test_init,
	.test_cases = proc_ns_test_cases,
};

kunit_test_suite(proc_ns_test_suite);
