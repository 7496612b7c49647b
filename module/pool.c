// SPDX-License-Identifier: GPL-2.0
/*
 * The pool: THPs zeroed ahead of demand, off the faulting CPU, so that a
 * substitution maps a THP that is zero already instead of clearing 2 MiB
 * inside the fault. Opt-in: pool_mib, per NUMA node; 0, the default, is
 * off, with no thread and no page.
 *
 * Where it lives: a list per node of THPs allocated on that node, linked
 * by their head page's lru (a pooled THP is on no LRU list), each
 * prepared as the fault's own allocation prepares it
 * (thpcow_folio_alloc_node(): the same allocator call below the policy
 * lookup, deferred split list and rmappable state included) and zeroed by
 * the page allocator itself (__GFP_ZERO, which is what init_on_alloc does
 * for every allocation). A pooled THP belongs to no memcg: the fault that
 * takes it (thpcow_pool_take()) charges it, and gives it back
 * (thpcow_pool_put_back()) when the charge fails. It is taken only from
 * the node the fault's own allocation would try first, if the VMA's or
 * the task's policy and the task's cpuset allow that node
 * (thpcow_vma_thp_node()), and never with a hardware-poisoned page.
 *
 * Who refills: a kernel thread per node with normal memory
 * ("thpcow-pool/N"), nice 19, freezable, on the node's CPUs when it has
 * some online at the start (CPU hotplug may move it; it runs anywhere
 * then), which tops the node's list up while one of the node's zones the
 * allocation may use stays above its high watermark with room for more:
 * the allocation then succeeds in the allocator's fast path, which leaves
 * every zone above its low watermark, and kswapd is never woken on the
 * pool's account; and not before a second has passed without a THP taken
 * from the node (THPCOW_POOL_QUIET). It never reclaims or compacts
 * (GFP_TRANSHUGE_LIGHT), and is unmovable: a pooled THP cannot be
 * migrated, so it is kept out of ZONE_MOVABLE and CMA, and a node with only
 * movable memory has no pool.
 *
 * Giving back: a shrinker without seeks (freed before caches that cost IO
 * to rebuild: half of what is pooled at each call of reclaim, whatever
 * its priority) frees pooled THPs under memory pressure and on
 * drop_caches; the node's refill then pauses for THPCOW_POOL_BACKOFF. A
 * smaller pool_mib, 0 and the unload free them at once. While pooled they count
 * as NR_KERNEL_MISC_RECLAIMABLE: /proc/meminfo's KReclaimable, which
 * MemAvailable (and free's "available") includes.
 */
#include "thpcow.h"

#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

/* After a shrink or a failed allocation, the node's refill waits this long. */
#define THPCOW_POOL_BACKOFF	(10 * HZ)
/*
 * How often an idle refill thread looks at its node again; and how long
 * after the last THP taken it waits before refilling: a burst of faults (a
 * migrated guest writing its RAM) keeps the CPU and the memory bandwidth
 * the zeroing would take, and the pool refills when the burst is over.
 */
#define THPCOW_POOL_RECHECK	HZ
#define THPCOW_POOL_QUIET	HZ

/*
 * Zeroed by the allocator; no reclaim, compaction or kswapd; unmovable.
 * THPCOW_BREAK=PREZERO (module/Kbuild) leaves the zeroing out, broken on
 * purpose: tests/vm/pool-break.t must catch it.
 */
#ifndef THPCOW_BREAK_PREZERO
#define THPCOW_POOL_ZERO	__GFP_ZERO
#else
#define THPCOW_POOL_ZERO	0
#endif
#define THPCOW_POOL_GFP \
	((GFP_TRANSHUGE_LIGHT & ~__GFP_MOVABLE) | __GFP_THISNODE | THPCOW_POOL_ZERO)

struct thpcow_pool_node {
	spinlock_t lock;
	struct list_head thps;		/* head pages, by lru */
	unsigned int nr;		/* on the list */
	unsigned long backoff_until;	/* jiffies: no refill before */
	unsigned long last_take;	/* jiffies: a THP last taken */
	wait_queue_head_t wait;
	struct task_struct *refill;	/* while the pool is on */
	bool fresh;			/* started by this thpcow_pool_start() */
	u64 refill_ns;			/* spent allocating and zeroing */
};

static struct thpcow_pool_node *thpcow_pool;	/* [nr_node_ids] */
/* THPs per node; 0: off. Written under the parameters' lock. */
static unsigned int thpcow_pool_target;
/* The parameter as given, until thpcow_pool_init() applies it. */
static unsigned int thpcow_pool_mib;
/* Under the parameters' lock: the pool exists (between init and exit). */
static bool thpcow_pool_up;
static struct shrinker *thpcow_pool_shrinker;

/* Pooled THPs found poisoned: out of use, and never freed (see below). */
static DEFINE_SPINLOCK(thpcow_pool_poisoned_lock);
static LIST_HEAD(thpcow_pool_poisoned);
static unsigned int thpcow_pool_poisoned_nr;

static void thpcow_pool_account(int nid, int thps)
{
	mod_node_page_state(NODE_DATA(nid), NR_KERNEL_MISC_RECLAIMABLE,
			    thps * HPAGE_PMD_NR);
}

/*
 * Has one of the node's zones that the pool's allocation may use (up to
 * ZONE_NORMAL: it is not movable) more than its high watermark, its
 * reserve against ZONE_NORMAL allocations and two THPs free? Then the
 * allocation succeeds in the fast path, whose low watermark check keeps
 * every zone out of kswapd's reach.
 */
static bool thpcow_pool_node_has_room(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int z;

	for (z = 0; z <= ZONE_NORMAL; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		if (populated_zone(zone) &&
		    zone_page_state(zone, NR_FREE_PAGES) >
		    high_wmark_pages(zone) + zone->lowmem_reserve[ZONE_NORMAL] +
		    2 * HPAGE_PMD_NR)
			return true;
	}
	return false;
}

static bool thpcow_pool_wants(struct thpcow_pool_node *pn, int nid)
{
	return READ_ONCE(pn->nr) < READ_ONCE(thpcow_pool_target) &&
	       time_after_eq(jiffies, READ_ONCE(pn->backoff_until)) &&
	       time_after(jiffies, READ_ONCE(pn->last_take) + THPCOW_POOL_QUIET) &&
	       thpcow_pool_node_has_room(nid);
}

/*
 * Put the THP headed by @head on node @nid's list (@tail: at its end, the
 * last to go; else at its head, the next), if the pool still wants it.
 */
static bool thpcow_pool_add(struct thpcow_pool_node *pn, int nid,
			    struct page *head, bool tail)
{
	bool added = false;

	spin_lock(&pn->lock);
	if (pn->nr < READ_ONCE(thpcow_pool_target)) {
		if (tail)
			list_add_tail(&head->lru, &pn->thps);
		else
			list_add(&head->lru, &pn->thps);
		WRITE_ONCE(pn->nr, pn->nr + 1);
		thpcow_pool_account(nid, 1);
		added = true;
	}
	spin_unlock(&pn->lock);
	return added;
}

/* One THP more for node @nid, if the pool still wants it. */
static void thpcow_pool_refill_one(struct thpcow_pool_node *pn, int nid)
{
	u64 start = local_clock();
	struct folio *folio;

	folio = thpcow_folio_alloc_node(THPCOW_POOL_GFP, nid);
	if (!folio) {
		WRITE_ONCE(pn->backoff_until, jiffies + THPCOW_POOL_BACKOFF);
		return;
	}
	WRITE_ONCE(pn->refill_ns, pn->refill_ns + local_clock() - start);
	if (thpcow_pool_add(pn, nid, thpcow_folio_page(folio), true))
		thpcow_count(THPCOW_STAT_POOL_REFILLED);
	else
		folio_put(folio);	/* made smaller meanwhile */
}

static int thpcow_pool_refill(void *arg)
{
	struct thpcow_pool_node *pn = arg;
	int nid = pn - thpcow_pool;

	set_user_nice(current, MAX_NICE);
	set_freezable();
	while (!kthread_should_stop()) {
		try_to_freeze();
		if (thpcow_pool_wants(pn, nid)) {
			thpcow_pool_refill_one(pn, nid);
			cond_resched();
			continue;
		}
		wait_event_freezable_timeout(pn->wait, kthread_should_stop() ||
					     thpcow_pool_wants(pn, nid),
					     THPCOW_POOL_RECHECK);
	}
	return 0;
}

/* Does any page of the THP headed by @head carry a hardware poison mark? */
static bool thpcow_pool_poisoned_thp(struct page *head)
{
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++)
		if (PageHWPoison(head + i))
			return true;
	return false;
}

/*
 * A pooled THP that memory_failure() marked (it could not handle a page
 * that is on no LRU and mapped nowhere, so it only set PG_hwpoison) is
 * kept out of use for good: freeing it would hand the poisoned page back
 * to the buddy allocator, which screens only order-0 pages out on free
 * (free_pages_prepare()). The kernel keeps such a page where it is, too.
 * (With memory allocation profiling, which no supported kernel's config
 * enables, the unload would then report the THPs kept.)
 */
static void thpcow_pool_quarantine(struct page *head)
{
	/*
	 * A second reference: unpoison_memory() (hwpoison-inject) frees a
	 * page whose only reference is the one memory_failure() could not
	 * take, which would leave it on this list.
	 */
	get_page(head);
	spin_lock(&thpcow_pool_poisoned_lock);
	list_add(&head->lru, &thpcow_pool_poisoned);
	thpcow_pool_poisoned_nr++;
	spin_unlock(&thpcow_pool_poisoned_lock);
	thpcow_count(THPCOW_STAT_POOL_POISONED);
	pr_warn_ratelimited("a pooled THP at pfn %#lx has a poisoned page; kept out of use\n",
			    page_to_pfn(head));
}

/*
 * Free up to @max of node @pn's THPs; the number taken off its list (a
 * poisoned one is kept out of use, not freed).
 */
static unsigned long thpcow_pool_release(struct thpcow_pool_node *pn,
					 unsigned long max)
{
	struct page *page, *next;
	unsigned long n = 0;
	LIST_HEAD(freed);

	spin_lock(&pn->lock);
	while (n < max && pn->nr) {
		list_move(pn->thps.next, &freed);
		WRITE_ONCE(pn->nr, pn->nr - 1);
		n++;
	}
	spin_unlock(&pn->lock);
	if (!n)
		return 0;
	thpcow_pool_account(pn - thpcow_pool, -(int)n);
	list_for_each_entry_safe(page, next, &freed, lru) {
		list_del(&page->lru);
		if (thpcow_pool_poisoned_thp(page)) {
			thpcow_pool_quarantine(page);
			continue;
		}
		folio_put(page_folio(page));
		thpcow_count(THPCOW_STAT_POOL_RELEASED);
	}
	return n;
}

static unsigned long thpcow_pool_count(struct shrinker *s,
				       struct shrink_control *sc)
{
	return (unsigned long)READ_ONCE(thpcow_pool[sc->nid].nr) * HPAGE_PMD_NR;
}

static unsigned long thpcow_pool_scan(struct shrinker *s,
				      struct shrink_control *sc)
{
	struct thpcow_pool_node *pn = &thpcow_pool[sc->nid];
	unsigned long n;

	WRITE_ONCE(pn->backoff_until, jiffies + THPCOW_POOL_BACKOFF);
	/* A THP for each HPAGE_PMD_NR pages asked for, or part of them. */
	n = thpcow_pool_release(pn, DIV_ROUND_UP(sc->nr_to_scan, HPAGE_PMD_NR));
	sc->nr_scanned = n * HPAGE_PMD_NR;
	return n ? n * HPAGE_PMD_NR : SHRINK_STOP;
}

/*
 * A debug build (CONFIG_DEBUG_VM, or make THPCOW_DEBUG=1) checks that
 * every THP it hands out is all zero: a tenant must never read what
 * another left.
 */
#ifdef THPCOW_DEBUG
#define THPCOW_POOL_CHECK_ZERO	1
#else
#define THPCOW_POOL_CHECK_ZERO	IS_ENABLED(CONFIG_DEBUG_VM)
#endif

static void thpcow_pool_check_zero(struct page *head)
{
	int i;

	if (!THPCOW_POOL_CHECK_ZERO)
		return;
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		/* x86-64 only (module/Kbuild): no highmem, every page mapped */
		void *p = page_address(head + i);

		if (WARN_ONCE(memchr_inv(p, 0, PAGE_SIZE),
			      "thpcow: a pooled THP (pfn %#lx) is not zero at page %d\n",
			      page_to_pfn(head), i))
			clear_page(p);
	}
}

/*
 * A zeroed THP for a substitution at @vma, not charged yet, or NULL: the
 * pool is off (nothing counted), or it has none on the node the fault's
 * own allocation would take (pool_miss). The caller charges it, and gives
 * it back with thpcow_pool_put_back() if the charge fails.
 */
struct folio *thpcow_pool_take(struct vm_area_struct *vma)
{
	struct thpcow_pool_node *pn;
	struct page *head;
	int nid;

	if (!READ_ONCE(thpcow_pool_target))
		return NULL;
	nid = thpcow_vma_thp_node(vma);
	if (nid == NUMA_NO_NODE)
		goto miss;
	pn = &thpcow_pool[nid];
	for (;;) {
		spin_lock(&pn->lock);
		head = list_first_entry_or_null(&pn->thps, struct page, lru);
		if (head) {
			list_del(&head->lru);
			WRITE_ONCE(pn->nr, pn->nr - 1);
		}
		spin_unlock(&pn->lock);
		if (!head)
			break;
		thpcow_pool_account(nid, -1);
		if (!thpcow_pool_poisoned_thp(head))
			break;
		thpcow_pool_quarantine(head);
	}
	/* The refill thread looks again within THPCOW_POOL_RECHECK. */
	WRITE_ONCE(pn->last_take, jiffies);
	if (!head)
		goto miss;
	thpcow_pool_check_zero(head);
	return page_folio(head);
miss:
	thpcow_count(THPCOW_STAT_POOL_MISS);
	return NULL;
}

/* @folio, from thpcow_pool_take() and not charged, back into the pool. */
void thpcow_pool_put_back(struct folio *folio)
{
	struct page *head = thpcow_folio_page(folio);
	int nid = page_to_nid(head);

	if (!thpcow_pool_add(&thpcow_pool[nid], nid, head, false)) {
		folio_put(folio);
		thpcow_count(THPCOW_STAT_POOL_RELEASED);
	}
}

/*
 * Stop the refill threads (@fresh_only: those the current
 * thpcow_pool_start() started), of every node that has one: a node may
 * have lost its memory since. Under the parameters' lock.
 */
static void thpcow_pool_stop(bool fresh_only)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++) {
		struct thpcow_pool_node *pn = &thpcow_pool[nid];

		if (pn->refill && (pn->fresh || !fresh_only)) {
			kthread_stop(pn->refill);
			pn->refill = NULL;
		}
		pn->fresh = false;
	}
}

/*
 * A refill thread for each node with normal memory that has none; on
 * failure, none of those this call started, and an error.
 */
static int thpcow_pool_start(void)
{
	struct task_struct *t;
	int nid;

	for_each_node_state(nid, N_NORMAL_MEMORY) {
		struct thpcow_pool_node *pn = &thpcow_pool[nid];

		if (pn->refill)
			continue;
		t = kthread_create_on_node(thpcow_pool_refill, pn, nid,
					   "thpcow-pool/%d", nid);
		if (IS_ERR(t)) {
			thpcow_pool_stop(true);
			return PTR_ERR(t);
		}
		if (cpumask_intersects(cpumask_of_node(nid), cpu_online_mask))
			set_cpus_allowed_ptr(t, cpumask_of_node(nid));
		pn->refill = t;
		pn->fresh = true;
		wake_up_process(t);
	}
	for (nid = 0; nid < nr_node_ids; nid++)
		thpcow_pool[nid].fresh = false;
	return 0;
}

/* The pool at @mib per node, under the parameters' lock; 0 or an error. */
static int thpcow_pool_resize(unsigned int mib)
{
	unsigned int target = mib / (HPAGE_PMD_SIZE >> 20);
	int nid, ret;

	if (target) {
		ret = thpcow_pool_start();
		if (ret)
			return ret;
	}
	WRITE_ONCE(thpcow_pool_target, target);
	if (!target)
		thpcow_pool_stop(false);
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct thpcow_pool_node *pn = &thpcow_pool[nid];
		unsigned int nr = READ_ONCE(pn->nr);

		if (nr > target)
			thpcow_pool_release(pn, nr - target);
		/* (in jiffies' terms, as time_after() compares: not 0) */
		WRITE_ONCE(pn->backoff_until, jiffies);
		WRITE_ONCE(pn->last_take, jiffies - THPCOW_POOL_QUIET - 1);
		wake_up(&pn->wait);
	}
	thpcow_pool_mib = mib;
	return 0;
}

/*
 * pool_mib: MiB of pre-zeroed THPs per node, a multiple of the THP size,
 * at most half of the memory over all nodes; changed as default_mode is
 * (thpcow_param_capable()). On a kernel that substitutes the huge zero
 * page itself the pool would serve nothing: it cannot be turned on.
 */
static int thpcow_pool_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned long total_mib = totalram_pages() >> (20 - PAGE_SHIFT);
	unsigned int mib;
	int ret;

	if (!thpcow_param_capable())
		return -EPERM;
	ret = kstrtouint(val, 0, &mib);
	if (ret)
		return ret;
	if (mib % (HPAGE_PMD_SIZE >> 20) ||
	    (u64)mib * num_node_state(N_NORMAL_MEMORY) > total_mib / 2)
		return -EINVAL;
	if (!thpcow_pool_up) {
		/* the load's command line: thpcow_pool_init() applies it */
		thpcow_pool_mib = mib;
		return 0;
	}
	if (mib && thpcow_native_zero)
		return -EOPNOTSUPP;
	return thpcow_pool_resize(mib);
}

static int thpcow_pool_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", thpcow_pool_mib);
}

static const struct kernel_param_ops thpcow_pool_param_ops = {
	.set = thpcow_pool_param_set,
	.get = thpcow_pool_param_get,
};
module_param_cb(pool_mib, &thpcow_pool_param_ops, NULL, 0644);
MODULE_PARM_DESC(pool_mib,
		 "MiB of pre-zeroed THPs kept per NUMA node for substitutions, a multiple of 2; 0 (default): no pool; changing it needs CAP_SYS_ADMIN");

/* debugfs 'pool': KEY VALUE lines, the totals, then each node's. */
void thpcow_pool_show(struct seq_file *m)
{
	u64 refill_ns = 0, cpu_ns = 0;
	unsigned int thps = 0, nodes = 0;
	int nid;

	kernel_param_lock(THIS_MODULE);
	for_each_node_state(nid, N_NORMAL_MEMORY) {
		struct thpcow_pool_node *pn = &thpcow_pool[nid];

		nodes++;
		thps += READ_ONCE(pn->nr);
		refill_ns += READ_ONCE(pn->refill_ns);
		if (pn->refill)
			cpu_ns += pn->refill->se.sum_exec_runtime;
	}
	seq_printf(m, "mib %u\ntarget %u\nthps %u\npoisoned %u\nrefill_ns %llu\ncpu_ns %llu\n",
		   thpcow_pool_mib, thpcow_pool_target * nodes, thps,
		   READ_ONCE(thpcow_pool_poisoned_nr), refill_ns, cpu_ns);
	for_each_node_state(nid, N_NORMAL_MEMORY)
		seq_printf(m, "node%d_thps %u\nnode%d_target %u\n", nid,
			   READ_ONCE(thpcow_pool[nid].nr), nid, thpcow_pool_target);
	kernel_param_unlock(THIS_MODULE);
}

/*
 * debugfs 'pool_pfns' (root only): "NODE PFN" of the first pooled THPs of
 * each node, the next to be handed out, for tests that poison one
 * (/sys/devices/system/memory/hard_offline_page). A few: the node's lock,
 * which faults take, is held meanwhile.
 */
#define THPCOW_POOL_PFNS_SHOWN	16

void thpcow_pool_show_pfns(struct seq_file *m)
{
	struct page *head;
	int nid, n;

	for (nid = 0; nid < nr_node_ids; nid++) {
		struct thpcow_pool_node *pn = &thpcow_pool[nid];

		n = 0;
		spin_lock(&pn->lock);
		list_for_each_entry(head, &pn->thps, lru) {
			if (n++ == THPCOW_POOL_PFNS_SHOWN)
				break;
			seq_printf(m, "%d %#lx\n", nid, page_to_pfn(head));
		}
		spin_unlock(&pn->lock);
	}
}

int thpcow_pool_init(void)
{
	int nid, ret = 0;

	thpcow_pool = kcalloc(nr_node_ids, sizeof(*thpcow_pool), GFP_KERNEL);
	if (!thpcow_pool)
		return -ENOMEM;
	for (nid = 0; nid < nr_node_ids; nid++) {
		spin_lock_init(&thpcow_pool[nid].lock);
		INIT_LIST_HEAD(&thpcow_pool[nid].thps);
		init_waitqueue_head(&thpcow_pool[nid].wait);
	}
	/*
	 * No seeks: freed before caches that cost IO, half of the pool at a
	 * call of reclaim (delta = freeable / 2). The default batch, smaller
	 * than a THP: a call of thpcow_pool_scan() frees one, which
	 * nr_scanned tells. (A batch of a THP would never free the last one:
	 * half of a THP's pages is less than a batch, and than freeable.)
	 */
	thpcow_pool_shrinker = thpcow_shrinker_register("thpcow-pool",
							SHRINKER_NUMA_AWARE, 0, 0,
							thpcow_pool_count,
							thpcow_pool_scan);
	if (!thpcow_pool_shrinker) {
		kfree(thpcow_pool);
		return -ENOMEM;
	}

	kernel_param_lock(THIS_MODULE);
	thpcow_pool_up = true;
	if (thpcow_pool_mib && thpcow_native_zero) {
		pr_info("pool_mib=%u ignored: this kernel substitutes the huge zero page itself\n",
			thpcow_pool_mib);
		thpcow_pool_mib = 0;
	} else if (thpcow_pool_mib) {
		ret = thpcow_pool_resize(thpcow_pool_mib);
		if (ret) {
			pr_err("cannot start the pool's refill threads (%d)\n", ret);
			thpcow_pool_up = false;
		}
	}
	kernel_param_unlock(THIS_MODULE);
	if (ret) {
		thpcow_shrinker_free(thpcow_pool_shrinker);
		kfree(thpcow_pool);
	}
	return ret;
}

/* After the hook is gone: no fault takes from the pool any more. */
void thpcow_pool_exit(void)
{
	int nid;

	kernel_param_lock(THIS_MODULE);
	thpcow_pool_up = false;
	thpcow_pool_resize(0);
	kernel_param_unlock(THIS_MODULE);
	thpcow_shrinker_free(thpcow_pool_shrinker);
	for (nid = 0; nid < nr_node_ids; nid++)
		thpcow_pool_release(&thpcow_pool[nid], UINT_MAX);
	if (thpcow_pool_poisoned_nr)
		pr_warn("%u pooled THPs with poisoned pages stay out of use\n",
			thpcow_pool_poisoned_nr);
	kfree(thpcow_pool);
}
