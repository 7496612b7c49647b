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
	return fn;
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
	kallsyms_lookup_name_t lookup = thpcow_find_kallsyms_lookup_name();
	const struct thpcow_ksym_desc *d;
	int missing = 0;

	if (!lookup)
		return -ENOENT;

	for (d = thpcow_ksym_table; d->name; d++) {
		unsigned long addr = lookup(d->name);

		if (thpcow_addr_is_ours(addr))
			addr = 0;
		*d->addr = (void *)addr;
		if (addr)
			continue;
		if (d->required) {
			pr_err("required kernel symbol %s not found\n",
			       d->name);
			missing++;
		} else {
			pr_info("optional kernel symbol %s not found; going without\n",
				d->name);
		}
	}
	return missing ? -ENOENT : 0;
}
