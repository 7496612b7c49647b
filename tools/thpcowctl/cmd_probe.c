// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: probe [--json] [--condition]: does this kernel split a write
 * fault on the huge zero page or give it a whole THP by itself, and does it
 * need thpcow? --condition is thpcow.service's ExecCondition=: exit 0 (the
 * unit goes on) when the module is loaded or installed for this kernel;
 * else exit 1 (systemd skips the unit: inactive, not failed) with one line
 * that says why: the kernel gives whole THPs by itself, or is of a series
 * thpcow does not support, or DKMS built no module for it (declined, or its
 * build failed: a kernel update must not leave a failed unit behind).
 */
#include <stdio.h>
#include <sys/utsname.h>

#include "args.h"
#include "cmd_probe.h"
#include "device.h"
#include "kmod.h"
#include "output.h"
#include "probe.h"
#include "thpcowctl.h"

static int condition(const char *release, enum kernel_zero k, const char *why)
{
	char series[32] = "?";

	if (module_loaded() || module_installed())
		return EXIT_OK;
	series_of(release, series, sizeof(series));
	if (k == KERNEL_ZERO_SUBSTITUTES) {
		printf("thpcow.service skipped: Linux %s gives whole THPs by itself "
		       "(Linux >= 6.13) and has no thpcow module; " NEEDED_ONLY_FOR
		       "\n", release);
		return EXIT_FAIL;
	}
	if (series_known(release)) {
		/* DKMS declined it or its build failed: boot on without it */
		printf("thpcow.service skipped: Linux %s has no thpcow module "
		       "(dkms status thpcow; README.Debian, Troubleshooting)\n",
		       release);
		return EXIT_FAIL;
	}
	if (k == KERNEL_ZERO_SPLITS)
		printf("thpcow.service skipped: Linux %s splits a write fault on "
		       "the huge zero page, and thpcow does not support Linux %s "
		       "yet (it supports " THPCOW_SERIES_ALL ")\n", release, series);
	else
		printf("thpcow.service skipped: thpcow does not support Linux %s "
		       "(it supports " THPCOW_SERIES_ALL "); whether it splits is "
		       "unknown: %s\n", release, why);
	return EXIT_FAIL;
}

static int cmd_probe(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "condition", no_argument, NULL, OPT_CONDITION },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool json = false, cond = false;
	enum kernel_zero k;
	struct utsname uts;
	char why[160] = "";
	const char *unknown_why, *sw;
	int opt;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		json |= opt == OPT_JSON;
		cond |= opt == OPT_CONDITION;
	}
	verb_no_args(v, argc, argv);
	if (json && cond)
		return usage_error(v, "--json and --condition exclude each other");
	if (uname(&uts))
		uts.release[0] = '\0';
	k = kernel_zero_probe(why, sizeof(why));
	if (cond)
		return condition(uts.release, k, why);
	unknown_why = k == KERNEL_ZERO_UNKNOWN ? why : NULL;
	sw = kernel_zero_switch();

	const struct field fields[] = {
		FIELD_STR("kernel", "kernel", uts.release),
		FIELD_STR("without thpcow", "without_thpcow", kernel_zero_name(k)),
		FIELD_STR("why unknown", "why_unknown", unknown_why),
		FIELD_STR("kernel switch", "zero_page_full_cow", sw),
		/* with the module loaded, status says (native zero) */
		FIELD_STR("zero-page path", "zero_page_path",
			  module_loaded() ? NULL : kernel_zero_path(sw, false, false)),
		FIELD_BOOL("series supported", "series_supported",
			   series_known(uts.release)),
		FIELD_BOOL("module installed", "module_installed",
			   module_installed()),
		FIELD_BOOL("module loaded", "module_loaded", module_loaded()),
		FIELD_STR("thpcow", "advice", kernel_zero_advice(k, uts.release)),
	};
	print_fields(stdout, fields, ARRAY_SIZE(fields), json);
	return k == KERNEL_ZERO_UNKNOWN ? EXIT_FAIL : EXIT_OK;
}

const struct verb probe_verb = {
	.name = "probe", .fn = cmd_probe,
	.summary = "does this kernel split a write on the huge zero page?",
	.synopsis = "[-J | --condition]",
	.help = HELP_JSON
		"  --condition     exit 0 if thpcow.service should run here,\n"
		"                  else 1 with one line saying why (ExecCondition=)\n",
};
