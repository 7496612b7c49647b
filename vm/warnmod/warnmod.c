// SPDX-License-Identifier: GPL-2.0
/*
 * warnmod: a test-only module for vm/tests/run.t, never shipped. Loaded
 * with warn=1 it WARNs, which vm/run must report as a failed run (exit
 * 125) whatever the command returned; loaded with warn=0 it only taints the
 * kernel O and E, which must not fail the run.
 */
#include <linux/bug.h>
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN when loaded");

static int __init warnmod_init(void)
{
	WARN(warn, "warnmod: WARN on request (warn=1)\n");
	return 0;
}

static void __exit warnmod_exit(void)
{
}

module_init(warnmod_init);
module_exit(warnmod_exit);
MODULE_DESCRIPTION("thpcow test harness: WARN on load, on request");
MODULE_LICENSE("GPL");
