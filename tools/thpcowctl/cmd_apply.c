// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: apply [--check] [FILE]: make the global mode and the cgroup
 * rules what FILE (/etc/thpcow.conf) and its drop-ins say (apply.c).
 */
#include <getopt.h>

#include "apply.h"
#include "args.h"
#include "cmd_apply.h"
#include "conf.h"
#include "thpcowctl.h"

static int cmd_apply(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *file = CONF_PATH;
	bool check = false;
	int opt;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1)
		check |= opt == OPT_CHECK;
	if (optind < argc)
		file = argv[optind++];
	verb_no_args(v, argc, argv);
	return apply_file(file, check) ? EXIT_FAIL : EXIT_OK;
}

const struct verb apply_verb = {
	.name = "apply", .fn = cmd_apply,
	.summary = "set the global and cgroup rules of a file",
	.synopsis = "[--check] [FILE]",
	.help = "  --check         only check FILE; change nothing\n"
		"  FILE            the rules (thpcow.conf(5)), then those of\n"
		"                  FILE.d/*.conf in order; '-' is standard input\n"
		"                  (no drop-ins); default " CONF_PATH "\n",
};
