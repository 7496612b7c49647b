/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaching what compat/ksym-list.h names.
 *
 * Variables are read through typed pointers in struct thpcow_ksyms.
 * Functions are called through static calls, never through a function
 * pointer: symbols.c points each one's trampoline at the address it
 * resolved, and the kernel patches the trampoline and every call site in
 * this module into a direct call (or jump) to that address. A direct branch
 * needs no ENDBR64 at its target, so this works on a CPU that enforces
 * indirect branch tracking, where the kernel has sealed (overwritten) the
 * ENDBR64 of every function whose address it never takes: all the ones
 * listed are (compat/ibt.c checks the patched code at load).
 */
#ifndef THPCOW_COMPAT_KSYMS_H
#define THPCOW_COMPAT_KSYMS_H

#include <linux/huge_mm.h>
#include <linux/kallsyms.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/static_call.h>
#include <linux/swap.h>

#include "series.h"

struct thpcow_ksyms {
#define THPCOW_FUNC(sym)
#define THPCOW_OPTIONAL(sym)
#define THPCOW_VAR(sym)		__typeof__(&sym) sym;
#include "ksym-list.h"
};

extern struct thpcow_ksyms thpcow_ksyms;

#define THPCOW_FUNC(sym)	DECLARE_STATIC_CALL(thpcow_ksym_##sym, sym);
#define THPCOW_OPTIONAL(sym)	THPCOW_FUNC(sym)
#define THPCOW_VAR(sym)
#include "ksym-list.h"

/* Call the kernel's @sym, which symbols.c resolved: a direct call. */
#define thpcow_call(sym)	static_call(thpcow_ksym_##sym)

/* The same for an optional @sym: a call to nothing if the kernel lacks it. */
#define thpcow_call_cond(sym)	static_call_cond(thpcow_ksym_##sym)

/* The address resolved for the function @sym: static_call_query(), not in 5.10. */
#define thpcow_ksym_addr(sym)	READ_ONCE(STATIC_CALL_KEY(thpcow_ksym_##sym).func)

#endif /* THPCOW_COMPAT_KSYMS_H */
