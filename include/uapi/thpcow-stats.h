/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * thpcow's counters, written once, in the style of <asm/kvm-x86-ops.h>. No
 * include guard: a user defines THPCOW_STAT(NAME, name), THPCOW_USAGE(NAME)
 * or both, includes this file, and gets them undefined. thpcow.h makes
 * enum thpcow_stat and enum thpcow_usage_stat of them; the module and
 * thpcowctl their names.
 *
 * THPCOW_STAT(NAME, name): a counter of the module as a whole
 * (THPCOW_STAT_NAME, THPCOW_IOC_STATS, debugfs 'stats'), in index order;
 * new ones are only appended. 'name' is what debugfs, the tracepoint's
 * outcome and thpcowctl show.
 *
 * Every write fault on a huge PMD that the armed hook sees moves exactly
 * one counter: an outcome of the handler (substituted, copied, split, a
 * fallback_* or retry_race) or, where thpcow leaves the fault to the kernel
 * unchanged, the reason (passthrough, unshare, native, not_zero_page,
 * not_shared). hook_calls counts the faults the handler took;
 * inherit_failed counts forks, not faults; the pool_* counters count the
 * THPs of the pool of pre-zeroed THPs (pool_mib): pooled now is
 * pool_refilled - pool_hit - pool_released - pool_poisoned.
 */
#ifndef THPCOW_STAT
#define THPCOW_STAT(NAME, name)
#endif
#ifndef THPCOW_USAGE
#define THPCOW_USAGE(NAME)
#endif

/* write faults on a huge PMD that the handler took */
THPCOW_STAT(HOOK_CALLS, hook_calls)
/* the huge zero page replaced by a zeroed THP ('zero', 'copy') */
THPCOW_STAT(SUBSTITUTED, substituted)
/* left to the kernel: no policy acts ('kernel'), or it asks what the kernel
 * does anyway ('split' where the kernel splits)
 */
THPCOW_STAT(PASSTHROUGH, passthrough)
/* left to the kernel: 'zero', and not the huge zero page */
THPCOW_STAT(NOT_ZERO_PAGE, not_zero_page)
/* left to the kernel: an unshare fault (read-only GUP pin), not a write */
THPCOW_STAT(UNSHARE, unshare)
/* left to the kernel: it gives the huge zero page a THP itself (6.13 on) */
THPCOW_STAT(NATIVE, native)
/* the kernel's split: no THP allowed here now (sysfs, prctl, madvise) */
THPCOW_STAT(FALLBACK_INELIGIBLE, fallback_ineligible)
/* the kernel's split: a userfaultfd registered range */
THPCOW_STAT(FALLBACK_UFFD, fallback_uffd)
/* the kernel's split: no free THP (7.x: or no room on the deferred list) */
THPCOW_STAT(FALLBACK_ALLOC, fallback_alloc)
/* the kernel's split: the memcg could not take 2 MiB more */
THPCOW_STAT(FALLBACK_CHARGE, fallback_charge)
/* the PMD changed meanwhile: the access faults again */
THPCOW_STAT(RETRY_RACE, retry_race)
/* the kernel's split: the mm is being torn down by the OOM reaper */
THPCOW_STAT(FALLBACK_UNSTABLE, fallback_unstable)
/* a fork found no memory or room to pass a policy on */
THPCOW_STAT(INHERIT_FAILED, inherit_failed)
/* a shared anon THP copied whole ('copy') */
THPCOW_STAT(COPIED, copied)
/* left to the kernel: 'copy', and a THP the kernel reuses, exclusive */
THPCOW_STAT(NOT_SHARED, not_shared)
/* the kernel's split: maybe DMA-pinned, must stay coherent (< 5.19) */
THPCOW_STAT(FALLBACK_PINNED, fallback_pinned)
/* split forced where the kernel would substitute ('split') */
THPCOW_STAT(SPLIT, split)
/* a substitution ('zero', 'copy' on the huge zero page) mapped a pooled THP */
THPCOW_STAT(POOL_HIT, pool_hit)
/* the pool, on, had no THP on the node the fault may take one from */
THPCOW_STAT(POOL_MISS, pool_miss)
/* THPs the pool's refill threads allocated zeroed and pooled */
THPCOW_STAT(POOL_REFILLED, pool_refilled)
/* THPs the pool gave back: memory pressure, a smaller pool_mib, unload */
THPCOW_STAT(POOL_RELEASED, pool_released)
/* pooled THPs found with a hardware-poisoned page, kept out of use */
THPCOW_STAT(POOL_POISONED, pool_poisoned)

/*
 * THPCOW_USAGE(NAME): the counters also kept per cgroup and per process
 * (THPCOW_IOC_USAGE, debugfs 'usage'), in their index order there
 * (THPCOW_USAGE_NAME); new ones are only appended.
 */
THPCOW_USAGE(SUBSTITUTED)
THPCOW_USAGE(COPIED)
THPCOW_USAGE(SPLIT)
THPCOW_USAGE(FALLBACK_INELIGIBLE)
THPCOW_USAGE(FALLBACK_UFFD)
THPCOW_USAGE(FALLBACK_ALLOC)
THPCOW_USAGE(FALLBACK_CHARGE)
THPCOW_USAGE(FALLBACK_UNSTABLE)
THPCOW_USAGE(FALLBACK_PINNED)

#undef THPCOW_STAT
#undef THPCOW_USAGE
