/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Indirect branch tracking. On a CPU that enforces IBT every indirect call
 * or jump must land on ENDBR64, and at boot the kernel seals (overwrites)
 * the ENDBR64 of each function whose address it never takes. thpcow calls
 * every kernel function it resolved through a static call (compat/ksyms.h),
 * which the kernel patches into a direct branch; compat/ibt.c checks the
 * patched code before the hook goes live.
 */
#ifndef THPCOW_COMPAT_IBT_H
#define THPCOW_COMPAT_IBT_H

#include <linux/static_call.h>
#include <linux/types.h>

/* The module parameter: behave as on a CPU that enforces IBT. */
extern bool thpcow_assume_ibt;

/* Does this CPU enforce IBT (or does assume_ibt say to act as if)? */
bool thpcow_ibt_enforced(void);

/* Does @fn start with ENDBR64 (true on kernels built without IBT)? */
bool thpcow_has_endbr(const void *fn);

/*
 * Are the calls thpcow makes through a static call direct? Not where the
 * architecture has no static calls: then static_call() is an indirect
 * call through the key.
 */
static inline bool thpcow_static_calls_direct(void)
{
	return IS_ENABLED(CONFIG_HAVE_STATIC_CALL);
}

/*
 * Is the static call @key with trampoline @tramp, and each of this
 * module's call sites of it, a direct call or jump to @func (with @func
 * NULL: a call to nothing)? 0, adding the sites checked to *@sites, or
 * -ENOEXEC after naming @name and the offending instruction.
 */
int thpcow_static_call_check(const char *name, struct static_call_key *key,
			     void *tramp, void *func, unsigned int *sites);

/* May the kernel call @fn, one of thpcow's entry points, indirectly? */
int thpcow_ibt_check_entry(const char *name, const void *fn);

#endif /* THPCOW_COMPAT_IBT_H */
