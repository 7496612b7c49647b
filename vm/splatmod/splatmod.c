// SPDX-License-Identifier: GPL-2.0
/*
 * splatmod: a test-only module for vm/tests/detectors.t, never shipped.
 * Loaded with splat=NAME it makes the kernel's debugging option NAME report
 * a bug at once, so that the test can show that vm/run fails the run on that
 * report (exit 125); splat=none loads and does nothing. One case each:
 *   kasan    an out-of-bounds read of a kmalloc'ed object (KASAN)
 *   kfence   a read after kfree of a KFENCE-sampled object (KFENCE)
 *   lockdep  two mutexes taken in both orders (PROVE_LOCKING)
 *   rcu      rcu_dereference() outside rcu_read_lock() (PROVE_RCU)
 *   list     list_add() next to an entry whose prev is wrong (DEBUG_LIST)
 *   ptc      a user PTE of a page cleared that was never set
 *            (PAGE_TABLE_CHECK: its counts would go negative)
 *   leak     a kmalloc'ed object whose address is forgotten (kmemleak)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/page_table_check.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/version.h>

static char *splat = "none";
module_param(splat, charp, 0444);
MODULE_PARM_DESC(splat, "what to do at load: none, kasan, kfence, lockdep, rcu, list, ptc, leak");

static int splat_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("read byte 16 of a 16-byte object: %d\n", READ_ONCE(p[16]));
	kfree(p);
	return 0;
}

/*
 * KFENCE opens its gate once per sample interval (100 ms) and the next
 * allocation anywhere in the kernel gets a guarded object. An allocation
 * made now and then loses that race to the rest of a busy kernel: on
 * 6.1-debug under TCG none of 500 made 20 ms apart won. So ask again at
 * once, as fast as the allocator answers, for at most 60 s.
 */
static int splat_kfence(void)
{
	unsigned long end = jiffies + 60 * HZ, tries = 0;
	char *p;

	for (;;) {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		tries++;
		if (is_kfence_address(p))
			break;
		kfree(p);
		if (time_after(jiffies, end)) {
			pr_err("no KFENCE allocation in %lu tries (60 s)\n", tries);
			return -ETIMEDOUT;
		}
		cond_resched();
	}
	pr_info("a KFENCE object after %lu tries\n", tries);
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("read a freed KFENCE object: %d\n", READ_ONCE(p[0]));
	return 0;
}

static DEFINE_MUTEX(splat_a);
static DEFINE_MUTEX(splat_b);

static int splat_lockdep(void)
{
	mutex_lock(&splat_a);
	mutex_lock(&splat_b);
	mutex_unlock(&splat_b);
	mutex_unlock(&splat_a);
	mutex_lock(&splat_b);
	mutex_lock(&splat_a);
	mutex_unlock(&splat_a);
	mutex_unlock(&splat_b);
	return 0;
}

static int __rcu *splat_rcu_ptr;

static int splat_rcu(void)
{
	pr_info("read an RCU pointer without the lock: %p\n", rcu_dereference(splat_rcu_ptr));
	return 0;
}

static int splat_list(void)
{
	struct list_head head, other, entry;

	INIT_LIST_HEAD(&other);
	head.next = &other;
	head.prev = &other;
	/* other.prev should be &head */
	list_add(&entry, &head);
	return 0;
}

static int splat_ptc(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	pte_t pte;

	if (!page)
		return -ENOMEM;
	pte = pfn_pte(page_to_pfn(page), PAGE_SHARED);
	/*
	 * the address argument went between 6.1 and 6.8 (RHEL 9.6's 5.14
	 * has the newer form, the only RHEL of vm/series before 6.6)
	 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0) && !defined(RHEL_RELEASE_CODE)
	page_table_check_pte_clear(current->mm, 0, pte);
#else
	page_table_check_pte_clear(current->mm, pte);
#endif
	__free_page(page);
	return 0;
}

static int splat_leak(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
	pr_info("leaked a 64-byte object: %s\n", p ? "yes" : "no");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} splats[] = {
	{ "kasan", splat_kasan },
	{ "kfence", splat_kfence },
	{ "lockdep", splat_lockdep },
	{ "rcu", splat_rcu },
	{ "list", splat_list },
	{ "ptc", splat_ptc },
	{ "leak", splat_leak },
};

static int __init splatmod_init(void)
{
	int i;

	if (!strcmp(splat, "none"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(splats); i++)
		if (!strcmp(splat, splats[i].name))
			return splats[i].fn();
	pr_err("unknown splat=%s\n", splat);
	return -EINVAL;
}

static void __exit splatmod_exit(void)
{
}

module_init(splatmod_init);
module_exit(splatmod_exit);
MODULE_DESCRIPTION("thpcow test harness: make a kernel debugging option report, on request");
MODULE_LICENSE("GPL");
