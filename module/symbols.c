// SPDX-License-Identifier: GPL-2.0
/*
 * Resolving what the kernel does not export.
 *
 * kallsyms_lookup_name() itself stopped being exported in 5.7; a kprobe on
 * it still reports its address, and from there every symbol that compat.c
 * lists in thpcow_ksym_table is looked up by name.
 */
#include "thpcow.h"

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>

struct thpcow_ksyms thpcow_ksyms;

typedef unsigned long (*kallsyms_lookup_name_t)(const char *name);

/* Sealed functions a CPU without IBT lets us call: how many, the first. */
static unsigned int thpcow_nr_sealed;
static const char *thpcow_first_sealed;

/*
 * thpcow calls what it resolves indirectly. On a CPU that enforces IBT an
 * indirect call must land on ENDBR64, and the kernel seals (overwrites)
 * the ENDBR64 of functions whose address it never takes: refuse those by
 * name there. Elsewhere, count them for thpcow_report_sealed().
 */
static int thpcow_check_callable(const char *name, const void *fn)
{
	if (thpcow_has_endbr(fn))
		return 0;
	if (thpcow_ibt_enabled()) {
		pr_err("cannot call %s: this CPU enforces IBT and its ENDBR64 is sealed\n",
		       name);
		return -ENOEXEC;
	}
	if (!thpcow_nr_sealed++)
		thpcow_first_sealed = name;
	return 0;
}

static void thpcow_report_sealed(void)
{
	if (thpcow_nr_sealed)
		pr_notice("%u kernel functions thpcow calls have no ENDBR64 (sealed), %s first: it would not load on a CPU that enforces IBT\n",
			  thpcow_nr_sealed, thpcow_first_sealed);
}

static kallsyms_lookup_name_t thpcow_find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	kallsyms_lookup_name_t fn;
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_err("cannot find kallsyms_lookup_name: kprobe failed (%d)\n",
		       ret);
		return NULL;
	}
	fn = (kallsyms_lookup_name_t)kp.addr;
	unregister_kprobe(&kp);
	return thpcow_check_callable(kp.symbol_name, fn) ? NULL : fn;
}

/*
 * compat.c defines functions with the same names as some of these symbols;
 * kallsyms searches vmlinux before modules, but a symbol missing from
 * vmlinux would otherwise resolve to our own forwarder and recurse.
 */
static bool thpcow_addr_is_ours(unsigned long addr)
{
	return within_module(addr, THIS_MODULE);
}

int thpcow_resolve_symbols(void)
{
	kallsyms_lookup_name_t lookup;
	const struct thpcow_ksym_desc *d;
	int failed = 0;

	thpcow_nr_sealed = 0;
	lookup = thpcow_find_kallsyms_lookup_name();
	if (!lookup)
		return -ENOENT;

	for (d = thpcow_ksym_table; d->name; d++) {
		unsigned long addr = lookup(d->name);

		if (thpcow_addr_is_ours(addr))
			addr = 0;
		*d->addr = (void *)addr;
		if (addr) {
			if (d->function &&
			    thpcow_check_callable(d->name, (void *)addr))
				failed++;
			continue;
		}
		if (d->required) {
			pr_err("required kernel symbol %s not found\n",
			       d->name);
			failed++;
		} else {
			pr_info("optional kernel symbol %s not found; going without\n",
				d->name);
		}
	}
	thpcow_report_sealed();
	return failed ? -ENOENT : 0;
}
