// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the operator's tool for thpcow. This file only dispatches:
 * it lists the verbs (each verb's file holds its entry, its options and
 * its help), generates the overview help from their entries, owns the
 * help verb, and reads the options before VERB.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cmd_apply.h"
#include "cmd_collapse.h"
#include "cmd_info.h"
#include "cmd_module.h"
#include "cmd_policy.h"
#include "cmd_pool.h"
#include "cmd_probe.h"
#include "cmd_trace.h"
#include "cmd_usage.h"
#include "thpcowctl.h"

static const struct verb help_verb;

/* The verbs, in the order of 'thpcowctl --help'. */
static const struct verb *const verbs[] = {
	&status_verb, &check_verb, &list_verb, &get_verb, &usage_verb, &set_verb,
	&clear_verb, &exec_verb, &stats_verb, &trace_verb, &apply_verb,
	&collapse_verb, &pool_verb, &load_verb, &unload_verb, &reload_verb, &probe_verb,
	&version_verb, &help_verb,
};

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (strcmp(verbs[i]->name, name) == 0)
			return verbs[i];
	return NULL;
}

static void overview_help(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: " PROGRAM_NAME " [OPTIONS] VERB [ARG...]\n\n"
		"Control thpcow: whole THPs for write faults on the huge zero page,\n"
		"per process, per cgroup or for everything.\n\nVerbs:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-9s %s\n", verbs[i]->name, verbs[i]->summary);
	fprintf(f, "\nOptions (before VERB, for the verbs that take them):\n"
		"  -J, --json      JSON output\n"
		"  -o, --output COLUMNS\n"
		"                  the table's columns\n"
		"  -n, --noheadings\n"
		"                  no header line\n"
		"  -r, --raw       raw table output\n"
		"  -h, --help      show this help\n"
		"  -V, --version   as the version verb\n"
		"\nRun '" PROGRAM_NAME " VERB --help' for a verb's arguments.\n"
		"Exit status: 0 success, 1 failure, 2 usage error, 3 (status)\n"
		"the module is not loaded where the kernel needs it; check: 0 OK,\n"
		"1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n");
}

static int cmd_help(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct verb *about;

	while (verb_getopt(v, argc, argv, opts) != -1)
		;
	if (argc - optind > 1)
		return usage_error(v, "too many arguments");
	if (optind == argc) {
		overview_help(stdout);
		return EXIT_OK;
	}
	about = find_verb(argv[optind]);
	if (!about)
		return usage_error(v, "unknown verb '%s'", argv[optind]);
	verb_help(about, stdout);
	return EXIT_OK;
}

static const struct verb help_verb = {
	.name = "help", .fn = cmd_help,
	.summary = "show this help, or a verb's",
	.synopsis = "[VERB]",
};

/* Data goes to stdout: a write error there (a full disk) is a failure. */
static int close_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		error_msg("write error: %s", strerror(errno));
		return status ? status : EXIT_FAIL;
	}
	return status;
}

/*
 * The options before VERB: -h and -V here; -J, -o, -n and -r handed to
 * the verb as if they followed it (a verb that takes none refuses them).
 */
int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		OPT_TABLE_ENTRIES,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	const struct verb *v;
	char **vargv;
	int opt, vargc = 1, i;

	/* Widths of text (libsmartcols, trace's comm) as the terminal's. */
	setlocale(LC_CTYPE, "");
	vargv = calloc((size_t)argc * 2 + 1, sizeof(*vargv));
	if (!vargv) {
		error_msg("out of memory");
		return EXIT_FAIL;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:Jo:nrhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			overview_help(stdout);
			return close_stdout(EXIT_OK);
		case 'V':
			vargv[0] = "version";
			optind = 0;
			return close_stdout(version_verb.fn(&version_verb, 1,
							    vargv));
		case OPT_JSON:
			vargv[vargc++] = "--json";
			break;
		case OPT_OUTPUT:
			vargv[vargc++] = "--output";
			vargv[vargc++] = optarg;
			break;
		case OPT_NOHEADINGS:
			vargv[vargc++] = "--noheadings";
			break;
		case OPT_RAW:
			vargv[vargc++] = "--raw";
			break;
		case ':':
			return usage_error(NULL, "option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error(NULL, "unknown option '-%c'",
						   optopt);
			return usage_error(NULL, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind == argc)
		return usage_error(NULL, "missing VERB");
	v = find_verb(argv[optind]);
	if (!v)
		return usage_error(NULL, "unknown verb '%s'", argv[optind]);
	vargv[0] = argv[optind];
	for (i = optind + 1; i < argc; i++)
		vargv[vargc++] = argv[i];
	optind = 0;	/* the verb's getopt_long() starts afresh */
	return close_stdout(v->fn(v, vargc, vargv));
}
