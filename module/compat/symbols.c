// SPDX-License-Identifier: GPL-2.0
/*
 * Resolving what the kernel does not export (compat/ksym-list.h).
 *
 * kallsyms_lookup_name() itself stopped being exported in 5.7; a kprobe on
 * it still reports its address (4 bytes in, past ENDBR64, where the kernel
 * is built for IBT). Called there through its static call, it tells its
 * own start and every other symbol's. Variables go into thpcow_ksyms;
 * functions into their static calls, which the kernel patches into direct
 * calls, and compat/ibt.c checks that it did before the hook goes live.
 */
#include "../thpcow.h"

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>

struct thpcow_ksyms thpcow_ksyms;
struct thpcow_calls thpcow_calls;

#define THPCOW_FUNC(sym)	DEFINE_STATIC_CALL_NULL(thpcow_ksym_##sym, sym);
#define THPCOW_OPTIONAL(sym)	THPCOW_FUNC(sym)
#define THPCOW_VAR(sym)
#include "ksym-list.h"

struct thpcow_ksym {
	const char *name;
	bool required;
	void **var;			/* a variable: where its address goes */
	struct static_call_key *key;	/* a function: its static call */
	void *tramp;
	void *addr;			/* what was resolved */
};

#define THPCOW_KSYM_CALL(sym, req)					\
	{ .name = #sym, .required = req,				\
	  .key = &STATIC_CALL_KEY(thpcow_ksym_##sym),			\
	  .tramp = STATIC_CALL_TRAMP_ADDR(thpcow_ksym_##sym) }

/* kallsyms_lookup_name first: the list starts with it. */
static struct thpcow_ksym thpcow_ksym_table[] __ro_after_init = {
#define THPCOW_FUNC(sym)	THPCOW_KSYM_CALL(sym, true),
#define THPCOW_OPTIONAL(sym)	THPCOW_KSYM_CALL(sym, false),
#define THPCOW_VAR(sym)							\
	{ .name = #sym, .required = true, .var = (void **)&thpcow_ksyms.sym },
#include "ksym-list.h"
};

/*
 * Registered disabled: register_kprobe() resolves the address and never
 * arms the probe, so unregister_kprobe() has nothing to disarm. An armed
 * probe there is an ftrace one, whose disarm allocates (a new filter hash);
 * when that allocation failed, unregister_kprobe() left the probe in the
 * kernel's kprobe table ("Failed to disarm kprobe-ftrace ... (error -12)"),
 * pointing into this stack frame, and the next walk of the table (a module
 * loading) oopsed: found by tests/guest/faults.sh (fail-nth over the load).
 */
static void *thpcow_kprobe_kallsyms_lookup_name(void)
{
	struct kprobe kp = {
		.symbol_name = "kallsyms_lookup_name",
		.flags = KPROBE_FLAG_DISABLED,
	};
	void *addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_err("cannot find kallsyms_lookup_name: kprobe failed (%d)\n",
		       ret);
		return NULL;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static void thpcow_ksym_set(struct thpcow_ksym *k, void *addr)
{
	k->addr = addr;
	if (k->var)
		*k->var = addr;
	else
		__static_call_update(k->key, k->tramp, addr);
}

/*
 * Is every call into the kernel direct? Where calls are direct, count the
 * functions whose ENDBR64 the kernel sealed, for the log; where they are
 * not, such a function cannot be called under IBT.
 */
static int thpcow_check_calls(void)
{
	struct thpcow_ksym *k;
	const char *first_sealed = NULL;
	int ret;

	for (k = thpcow_ksym_table;
	     k < thpcow_ksym_table + ARRAY_SIZE(thpcow_ksym_table); k++) {
		if (k->var)
			continue;
		if (k->addr && !thpcow_has_endbr(k->addr) &&
		    !thpcow_calls.sealed++)
			first_sealed = k->name;
		if (!thpcow_static_calls_direct()) {
			if (k->addr && !thpcow_has_endbr(k->addr) &&
			    thpcow_ibt_enforced()) {
				pr_err("cannot call %s: calls are indirect on this architecture and its ENDBR64 is sealed\n",
				       k->name);
				return -ENOEXEC;
			}
			continue;
		}
		ret = thpcow_static_call_check(k->name, k->key, k->tramp,
					       k->addr, &thpcow_calls.sites);
		if (ret)
			return ret;
		thpcow_calls.direct++;
	}
	pr_info("%u kernel functions called directly (static calls, %u call sites checked); IBT %s%s\n",
		thpcow_calls.direct, thpcow_calls.sites,
		thpcow_ibt_enforced() ? "enforced" : "not enforced",
		thpcow_assume_ibt ? " (assume_ibt)" : "");
	if (thpcow_calls.sealed)
		pr_info("%u of them have a sealed ENDBR64 (%s first): reachable by direct calls only\n",
			thpcow_calls.sealed, first_sealed);
	return 0;
}

int thpcow_resolve_symbols(void)
{
	struct thpcow_ksym *k;
	int failed = 0;
	void *addr;

	memset(&thpcow_calls, 0, sizeof(thpcow_calls));
	addr = thpcow_kprobe_kallsyms_lookup_name();
	if (!addr)
		return -ENOENT;
	thpcow_ksym_set(&thpcow_ksym_table[0], addr);

	for (k = thpcow_ksym_table;
	     k < thpcow_ksym_table + ARRAY_SIZE(thpcow_ksym_table); k++) {
		addr = (void *)thpcow_call(kallsyms_lookup_name)(k->name);
		/*
		 * compat/forward.c defines functions named as some of these;
		 * kallsyms searches vmlinux before modules, but a symbol
		 * missing from vmlinux would resolve to our own forwarder.
		 */
		if (within_module((unsigned long)addr, THIS_MODULE))
			addr = NULL;
		if (addr) {
			thpcow_ksym_set(k, addr);
		} else if (k->required) {
			pr_err("required kernel symbol %s not found\n", k->name);
			failed++;
		} else {
			pr_info("optional kernel symbol %s not found; going without\n",
				k->name);
		}
	}
	return failed ? -ENOENT : thpcow_check_calls();
}
