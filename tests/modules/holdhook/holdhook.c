// SPDX-License-Identifier: GPL-2.0
/*
 * holdhook: a test-only module for tests/vm/loadfail.t, never shipped. It
 * holds an IPMODIFY ftrace hook on do_huge_pmd_wp_page() that changes
 * nothing, as a livepatch of that function would; ftrace allows one
 * IPMODIFY user per function, so thpcow's own hook then cannot be
 * installed and its load must fail cleanly.
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>

static void notrace holdhook_func(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
}

static struct ftrace_ops holdhook_ops = {
	.func = holdhook_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static unsigned char holdhook_target[] = "do_huge_pmd_wp_page";

static int __init holdhook_init(void)
{
	int ret = ftrace_set_filter(&holdhook_ops, holdhook_target,
				    strlen(holdhook_target), 0);

	return ret ? ret : register_ftrace_function(&holdhook_ops);
}

static void __exit holdhook_exit(void)
{
	unregister_ftrace_function(&holdhook_ops);
	ftrace_free_filter(&holdhook_ops);
}

module_init(holdhook_init);
module_exit(holdhook_exit);
MODULE_DESCRIPTION("thpcow test module: an IPMODIFY hook on do_huge_pmd_wp_page");
MODULE_LICENSE("GPL");
