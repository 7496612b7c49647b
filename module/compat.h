/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel series lives in compat/, one file per
 * concern, and nowhere else.
 *
 * The kernels are Debian's 5.10 (bullseye), 6.1 (bookworm), 6.12 (trixie)
 * and the newest trixie-backports kernel (7.x), and Ubuntu's 5.15 (22.04)
 * and 6.8 (24.04); module/Kbuild refuses the others. The rest of the
 * module is written against one vocabulary:
 *
 *  compat/features.h  the upstream API changes, one THPCOW_HAS_* each with
 *                     its version, and the distribution kernels' backports;
 *                     every #if of compat/ tests one of them
 *  compat/series.h    folio names before folios, the prototypes of what
 *                     the kernel calls in thpcow (the hooked function, the
 *                     exit tracepoint)
 *  compat/ksym-list.h what thpcow needs but the kernel does not export,
 *                     one list
 *  compat/symbols.c   resolves it at load (kallsyms, found with a kprobe)
 *  compat/ksyms.h     how the resolved symbols are reached: variables by
 *                     pointer, functions by static call (direct calls)
 *  compat/forward.c   out-of-line bodies for the functions the kernel's
 *                     inline helpers call, so code here can use
 *                     mem_cgroup_charge(), add_mm_counter(), mmu notifiers
 *                     and friends exactly as mm/huge_memory.c does
 *  compat/thp.[ch]    the steps of a THP fault, named after upstream's
 *  compat/ftrace.h    the ftrace callback's registers and flags
 *  compat/ibt.[ch]    indirect branch tracking, and the check that every
 *                     call into the kernel is direct
 *  compat/cgroup.h    a cgroup by its id
 *  compat/mempolicy.h the node a THP fault would allocate on
 *  compat/shrinker.h  a shrinker's registration
 */
#ifndef THPCOW_COMPAT_H
#define THPCOW_COMPAT_H

#include "compat/features.h"
#include "compat/series.h"
#include "compat/ksyms.h"
#include "compat/thp.h"
#include "compat/ftrace.h"
#include "compat/ibt.h"
#include "compat/cgroup.h"
#include "compat/mempolicy.h"
#include "compat/shrinker.h"

#endif /* THPCOW_COMPAT_H */
