// SPDX-License-Identifier: GPL-2.0
/*
 * Does the running kernel give the huge zero page a whole THP on a write
 * fault by itself, as upstream 6.13 does (do_huge_zero_wp_pmd())? Asked
 * once at load, before the hook is installed, by trying: in insmod's own
 * address space, map 4 MiB of anonymous memory, read a byte at its 2 MiB
 * boundary (the huge zero page gets mapped there if THPs and the huge zero
 * page are enabled), write that byte, and look at what the PMD became.
 * Only when that says nothing does the series decide (compat.h).
 */
#include "thpcow.h"

#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

/* The PMD mapping @addr in @mm, or an empty one. */
static pmd_t thpcow_probe_pmd(struct mm_struct *mm, unsigned long addr)
{
	pmd_t pmd = __pmd(0);
	pgd_t *pgd;
	p4d_t *p4d;
	pud_t *pud;

	mmap_read_lock(mm);
	pgd = pgd_offset(mm, addr);
	if (pgd_present(*pgd)) {
		p4d = p4d_offset(pgd, addr);
		if (p4d_present(*p4d)) {
			pud = pud_offset(p4d, addr);
			if (pud_present(*pud))
				pmd = READ_ONCE(*pmd_offset(pud, addr));
		}
	}
	mmap_read_unlock(mm);
	return pmd;
}

/*
 * 1: a write got a THP; 0: it split the huge zero page; -1: no answer.
 * *@how says what was seen, for the log.
 */
static int thpcow_probe(const char **how)
{
	const unsigned long len = 2 * HPAGE_PMD_SIZE;
	unsigned long base, addr;
	int ret = -1;
	char c;
	pmd_t pmd;

	*how = "insmod has no memory to probe in";
	if (!current->mm)
		return -1;
	base = vm_mmap(NULL, 0, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	*how = "cannot map memory to probe in";
	if (IS_ERR_VALUE(base))
		return -1;
	addr = ALIGN(base, HPAGE_PMD_SIZE);

	*how = "a read did not map the huge zero page (THP or its zero page off)";
	if (get_user(c, (char __user *)addr) ||
	    !thpcow_is_huge_zero_pmd(thpcow_probe_pmd(current->mm, addr)))
		goto out;
	*how = "the write faulted";
	if (put_user(1, (char __user *)addr))
		goto out;
	pmd = thpcow_probe_pmd(current->mm, addr);
	if (pmd_trans_huge(pmd) && !thpcow_is_huge_zero_pmd(pmd)) {
		*how = "a write to the huge zero page got a THP";
		ret = 1;
	} else if (pmd_present(pmd) && !pmd_trans_huge(pmd)) {
		*how = "a write to the huge zero page split it";
		ret = 0;
	} else {
		*how = "the PMD was neither a THP nor a page table after the write";
	}
out:
	vm_munmap(base, len);
	return ret;
}

/*
 * A kernel that substitutes also splits when it cannot get a THP (no free
 * huge page, memcg full), so a split says "no" only where the series does
 * not substitute; a THP says "yes" anywhere (a backport, say).
 */
static bool thpcow_probe_native_zero(void)
{
	bool series = thpcow_series_substitutes_zero();
	const char *how;
	int probed = thpcow_probe(&how);

	if (probed == 1 || (probed == 0 && !series)) {
		pr_info("native zero-page THPs: %s, probed: %s\n",
			probed ? "yes" : "no", how);
		return probed;
	}
	pr_info("native zero-page THPs: %s, by series (Linux %s 6.13): probe inconclusive: %s\n",
		series ? "yes" : "no", series ? ">=" : "<", how);
	return series;
}

bool thpcow_native_zero;

void thpcow_probe_init(void)
{
	thpcow_native_zero = thpcow_probe_native_zero();
}
