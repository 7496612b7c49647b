// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the operator's tool for thpcow. This file holds the verb
 * table, the help it generates, and the options before VERB.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "conf.h"
#include "output.h"
#include "parse.h"
#include "thpcowctl.h"
#include "usage.h"

static int cmd_help(const struct verb *v, int argc, char *argv[]);

#define HELP_CHILDREN \
	"      --children  processes PID forks later inherit the policy\n"
#define HELP_CGROUP \
	"  -c, --cgroup PATH\n" \
	"                  a cgroup v2 directory: a path that starts with the\n" \
	"                  cgroup2 mount point, or one below the cgroup2 root\n" \
	"                  (machine.slice/foo and /machine.slice/foo are alike)\n"
#define HELP_CGROUP_GLOBAL HELP_CGROUP \
	"  -g, --global    the default for all other memory\n"

static void list_columns(FILE *f)
{
	table_help(f, "Available output columns (-o)", list_cols, list_ncols);
}

static void stats_columns(FILE *f)
{
	table_help(f, "Available output columns (-o)", counter_cols,
		   counter_ncols);
	table_help(f, "With --watch", watch_cols(), watch_ncols);
}

static void usage_columns(FILE *f)
{
	table_help(f, "Available output columns (-o)", usage_cols, usage_ncols);
}

static const struct verb verbs[] = {
	{
		.name = "status", .fn = cmd_status,
		.summary = "show the module, its global mode, headline counters "
			"and THP settings",
		.synopsis = "[-J]",
		.help = HELP_JSON,
	}, {
		.name = "list", .fn = cmd_list,
		.summary = "list the pid and cgroup policies",
		.synopsis = SYNOPSIS_TABLE,
		.help = HELP_TABLE,
		.columns = list_columns,
	}, {
		.name = "get", .fn = cmd_get,
		.summary = "show one policy (for a pid also the one in effect)",
		.synopsis = "(-p PID | -c PATH | -g) [-J]",
		.help = HELP_PID HELP_CGROUP_GLOBAL HELP_JSON,
	}, {
		.name = "usage", .fn = cmd_usage,
		.summary = "show what thpcow did per cgroup and per pid rule",
		.synopsis = "[-c PATH | -p PID] " SYNOPSIS_TABLE " [--format FORMAT]",
		.help = "  -c, --cgroup PATH\n"
			"                  only this cgroup v2 directory's row (as for get)\n"
			"  -p, --pid PID   only the row of this process's pid rule\n"
			HELP_TABLE
			"      --format FORMAT\n"
			"                  text (the table), json (as -J) or prometheus\n"
			"                  (the text exposition format, for node-exporter)\n",
		.columns = usage_columns,
	}, {
		.name = "set", .fn = cmd_set,
		.summary = "set the policy of a process, a cgroup or the default",
		.synopsis = "(-p PID [--children] | -c PATH | -g) MODE",
		.help = HELP_PID HELP_CHILDREN HELP_CGROUP_GLOBAL,
		.takes_mode = true,
	}, {
		.name = "clear", .fn = cmd_clear,
		.summary = "remove a policy (--global: set the default back to kernel)",
		.synopsis = "(-p PID | -c PATH | -g)",
		.help = HELP_PID HELP_CGROUP_GLOBAL,
	}, {
		.name = "exec", .fn = cmd_exec,
		.summary = "run COMMAND under MODE (a pid policy on itself)",
		.synopsis = "MODE [--children] -- COMMAND [ARG...]",
		.help = "  --children      processes COMMAND forks inherit the policy\n",
		.takes_mode = true,
	}, {
		.name = "stats", .fn = cmd_stats,
		.summary = "show the module's counters, or what they grow by",
		.synopsis = SYNOPSIS_TABLE " [--format FORMAT] [--watch SECONDS [--count N]]",
		.help = HELP_TABLE
			"      --format FORMAT\n"
			"                  text (the table), json (as -J) or prometheus\n"
			"                  (the text exposition format, for node-exporter)\n"
			"      --watch SECONDS\n"
			"                  a header, then every SECONDS one row of what the\n"
			"                  counters grew by (columns: see thpcowctl(8))\n"
			"      --count N   with --watch: stop after N intervals\n",
		.columns = stats_columns,
	}, {
		.name = "trace", .fn = cmd_trace,
		.summary = "print the module's fault events as they happen",
		.synopsis = "[-J] [--count N] [--duration SECONDS] [-p PID]\n"
			 "                 [--buffer-size KB] [--wall-clock]",
		.help = "  -J, --json      one JSON object per event (JSON Lines)\n"
			"      --count N   stop after N events\n"
			"      --duration SECONDS\n"
			"                  stop after SECONDS\n"
			"  -p, --pid PID   only the events of process PID\n"
			"      --buffer-size KB\n"
			"                  the trace buffer of each CPU (default: the\n"
			"                  kernel's, 1408 KB on Debian's)\n"
			"      --wall-clock\n"
			"                  show the time of day instead of seconds since\n"
			"                  boot\n",
	}, {
		.name = "apply", .fn = cmd_apply,
		.summary = "set the global and cgroup rules of a file",
		.synopsis = "[--check] [FILE]",
		.help = "  --check         only check FILE; change nothing\n"
			"  FILE            the rules (thpcow.conf(5)); '-' is standard\n"
			"                  input; default " CONF_PATH "\n",
	}, {
		.name = "collapse", .fn = cmd_collapse,
		.summary = "give a process's 4 KiB-page memory its THPs back",
		.synopsis = "(-p PID | -c PATH | --pidfile FILE) [--min-present N] "
			"[--rate MiB/s] [--after-migration] [--await-postcopy SECS] "
			"[-J]",
		.help = HELP_PID
			"  -c, --cgroup PATH\n"
			"                  every process of a cgroup v2 directory\n"
			"  --pidfile FILE  the process whose pid FILE holds (libvirt:\n"
			"                  /run/libvirt/qemu/NAME.pid)\n"
			"  --min-present N collapse a 2 MiB range only if N of its 512\n"
			"                  pages hold data (default 502: RSS grows <= 2 %)\n"
			"  --rate MiB/s    collapse at most this much per second\n"
			"  --after-migration\n"
			"                  first wait until no memory is registered with\n"
			"                  userfaultfd (a postcopy migration has ended)\n"
			"  --await-postcopy SECS\n"
			"                  --after-migration, and if no memory is under\n"
			"                  userfaultfd yet, wait up to SECS for postcopy\n"
			"                  to begin (an incoming migration in precopy)\n"
			HELP_JSON,
	}, {
		.name = "load", .fn = cmd_load,
		.summary = "load the module (installed, or from a file); "
			"success if it is loaded already from the same build",
		.synopsis = "[--default MODE] [--path FILE.ko]",
		.help = "  --default MODE  the global mode to start with\n"
			"  --path FILE.ko  load this file instead of the installed module\n",
		.takes_mode = true,
	}, {
		.name = "unload", .fn = cmd_unload,
		.summary = "unload the module",
		.synopsis = "",
	}, {
		.name = "probe", .fn = cmd_probe,
		.summary = "does this kernel split a write on the huge zero page?",
		.synopsis = "[-J | --condition]",
		.help = HELP_JSON
			"  --condition     exit 0 if thpcow.service should run here,\n"
			"                  else 1 with one line saying why (ExecCondition=)\n",
	}, {
		.name = "version", .fn = cmd_version,
		.summary = "show the versions of thpcowctl and the loaded module",
		.synopsis = "",
	}, {
		.name = "help", .fn = cmd_help,
		.summary = "show this help, or a verb's",
		.synopsis = "[VERB]",
	},
};

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}

static void overview_help(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: " PROGRAM_NAME " [OPTIONS] VERB [ARG...]\n\n"
		"Control thpcow: whole THPs for write faults on the huge zero page,\n"
		"per process, per cgroup or for everything.\n\nVerbs:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
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
		"the module is not loaded.\n");
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
			return close_stdout(cmd_version(find_verb("version"),
							1, vargv));
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
