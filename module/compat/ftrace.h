/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace: the callback's last argument, its flags, and how to read the
 * hooked call's argument and redirect the call.
 *
 * Before 5.11 ftrace hands over pt_regs; from 5.11 it is ftrace_regs.
 *
 * The callback needs no recursion protection from ftrace: it traces one
 * function, do_huge_pmd_wp_page(), which nothing the callback does can
 * reach, and it runs only in the task context of a page fault. So ftrace
 * calls it directly instead of through ftrace_ops_assist_func(): 5.10 is
 * told with FTRACE_OPS_FL_RECURSION_SAFE, from 5.11 the default is so
 * (FTRACE_OPS_FL_RECURSION would ask for the protection).
 *
 * Where the architecture passes the arguments in ftrace_regs and lets the
 * callback change the return address (HAVE_DYNAMIC_FTRACE_WITH_ARGS: x86
 * from 5.11), the hook needs no FTRACE_OPS_FL_SAVE_REGS, as livepatch
 * does not: the call goes through the lighter ftrace_caller instead of
 * ftrace_regs_caller, which saves every register and the flags.
 */
#ifndef THPCOW_COMPAT_FTRACE_H
#define THPCOW_COMPAT_FTRACE_H

#include <linux/ftrace.h>

#include "features.h"

#if !THPCOW_HAS_FTRACE_REGS
#define thpcow_ftrace_regs	pt_regs
#else
#define thpcow_ftrace_regs	ftrace_regs
#endif

#if !THPCOW_HAS_FTRACE_RECURSION_SAFE_DEFAULT
#define THPCOW_FTRACE_RECURSION	FTRACE_OPS_FL_RECURSION_SAFE
#else
#define THPCOW_FTRACE_RECURSION	0
#endif

#if THPCOW_HAS_FTRACE_REGS && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#define THPCOW_FTRACE_WITH_ARGS	1
#define THPCOW_FTRACE_SAVE_REGS	0
#else
#define THPCOW_FTRACE_WITH_ARGS	0
#define THPCOW_FTRACE_SAVE_REGS	FTRACE_OPS_FL_SAVE_REGS
#endif

#define THPCOW_FTRACE_FLAGS						\
	(THPCOW_FTRACE_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |		\
	 THPCOW_FTRACE_RECURSION)

static inline void thpcow_ftrace_set_ip(struct thpcow_ftrace_regs *fregs,
					unsigned long ip)
{
#if !THPCOW_HAS_FTRACE_REGS
	instruction_pointer_set(fregs, ip);
#elif !THPCOW_FTRACE_WITH_ARGS
	/* FTRACE_OPS_FL_SAVE_REGS asked for the whole pt_regs */
	instruction_pointer_set(ftrace_get_regs(fregs), ip);
#elif !THPCOW_HAS_FTRACE_REGS_ACCESSORS
	ftrace_instruction_pointer_set(fregs, ip);
#else
	ftrace_regs_set_instruction_pointer(fregs, ip);
#endif
}

/* The hooked call's first argument, the struct vm_fault *. */
static inline struct vm_fault *
thpcow_ftrace_vmf(struct thpcow_ftrace_regs *fregs)
{
#if !THPCOW_HAS_FTRACE_REGS
	return (struct vm_fault *)regs_get_kernel_argument(fregs, 0);
#elif !THPCOW_FTRACE_WITH_ARGS
	/* FTRACE_OPS_FL_SAVE_REGS asked for the whole pt_regs */
	return (struct vm_fault *)regs_get_kernel_argument(ftrace_get_regs(fregs),
							   0);
#elif !THPCOW_HAS_FTRACE_REGS_ACCESSORS
	/* x86's ftrace_regs: a pt_regs with the argument registers saved */
	return (struct vm_fault *)regs_get_kernel_argument(&fregs->regs, 0);
#else
	return (struct vm_fault *)ftrace_regs_get_argument(fregs, 0);
#endif
}

/* The hooked call's PMD value: 5.10 passes it, later series keep it in @vmf. */
static inline pmd_t thpcow_ftrace_orig_pmd(struct thpcow_ftrace_regs *fregs,
					   struct vm_fault *vmf)
{
#if !THPCOW_HAS_VMF_ORIG_PMD
	return __pmd(regs_get_kernel_argument(fregs, 1));
#else
	return vmf->orig_pmd;
#endif
}

#endif /* THPCOW_COMPAT_FTRACE_H */
