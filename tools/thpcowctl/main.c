// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the operator's tool for thpcow. This file holds the verb
 * table, the help it generates, and the option parsing the verbs share.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "parse.h"
#include "thpcowctl.h"

static int cmd_help(const struct verb *v, int argc, char *argv[]);

#define HELP_JSON \
	"  --json          print one JSON object (see thpcowctl(8))\n"
#define HELP_PID \
	"  --pid PID       a process (thread group)\n"
#define HELP_CHILDREN \
	"  --children      processes PID forks later inherit the policy\n"
#define HELP_CGROUP_GLOBAL \
	"  --cgroup PATH   a cgroup v2 directory: a path that starts with the\n" \
	"                  cgroup2 mount point, or one below the cgroup2 root\n" \
	"                  (machine.slice/foo and /machine.slice/foo are alike)\n" \
	"  --global        the default for all other memory\n"

static const struct verb verbs[] = {
	{
		.name = "status", .fn = cmd_status,
		.summary = "show the module, its global mode and headline counters",
		.usage = "[--json]",
		.help = HELP_JSON,
	}, {
		.name = "list", .fn = cmd_list,
		.summary = "list the pid and cgroup policies",
		.usage = "[--json]",
		.help = HELP_JSON,
	}, {
		.name = "get", .fn = cmd_get,
		.summary = "show one policy (for a pid also the one in effect)",
		.usage = "(--pid PID | --cgroup PATH | --global) [--json]",
		.help = HELP_PID HELP_CGROUP_GLOBAL HELP_JSON,
	}, {
		.name = "set", .fn = cmd_set,
		.summary = "set the policy of a process, a cgroup or the default",
		.usage = "(--pid PID [--children] | --cgroup PATH | --global) MODE",
		.help = HELP_PID HELP_CHILDREN HELP_CGROUP_GLOBAL,
		.takes_mode = true,
	}, {
		.name = "clear", .fn = cmd_clear,
		.summary = "remove a policy (--global: set the default back to kernel)",
		.usage = "(--pid PID | --cgroup PATH | --global)",
		.help = HELP_PID HELP_CGROUP_GLOBAL,
	}, {
		.name = "exec", .fn = cmd_exec,
		.summary = "run COMMAND under MODE (a pid policy on itself)",
		.usage = "MODE [--children] -- COMMAND [ARG...]",
		.help = "  --children      processes COMMAND forks inherit the policy\n",
		.takes_mode = true,
	}, {
		.name = "stats", .fn = cmd_stats,
		.summary = "show the module's counters, or their rates",
		.usage = "[--json] [--watch SECONDS [--count N]]",
		.help = HELP_JSON
			"  --watch SECONDS print rates per second every SECONDS\n"
			"  --count N       with --watch: stop after N intervals\n",
	}, {
		.name = "trace", .fn = cmd_trace,
		.summary = "print the module's fault events as they happen",
		.usage = "[--json] [--count N] [--duration SECONDS] [--pid PID]\n"
			 "                 [--buffer-size KB] [--wall-clock]",
		.help = "  --json          one JSON object per event (JSON Lines)\n"
			"  --count N       stop after N events\n"
			"  --duration SECONDS\n"
			"                  stop after SECONDS\n"
			"  --pid PID       only the events of process PID\n"
			"  --buffer-size KB\n"
			"                  the trace buffer of each CPU (default: the\n"
			"                  kernel's, 1408 KB on Debian's)\n"
			"  --wall-clock    show the time of day instead of seconds since\n"
			"                  boot\n",
	}, {
		.name = "apply", .fn = cmd_apply,
		.summary = "set the global and cgroup rules of a file",
		.usage = "[--check] [FILE]",
		.help = "  --check         only check FILE; change nothing\n"
			"  FILE            the rules (thpcow.conf(5)); '-' is standard\n"
			"                  input; default " CONF_PATH "\n",
	}, {
		.name = "collapse", .fn = cmd_collapse,
		.summary = "give a process's 4 KiB-page memory its THPs back",
		.usage = "(--pid PID | --cgroup PATH) [--min-present N] "
			"[--rate MiB/s] [--after-migration] [--json]",
		.help = HELP_PID
			"  --cgroup PATH   every process of a cgroup v2 directory\n"
			"  --min-present N collapse a 2 MiB range only if N of its 512\n"
			"                  pages hold data (default 502: RSS grows <= 2 %)\n"
			"  --rate MiB/s    collapse at most this much per second\n"
			"  --after-migration\n"
			"                  first wait until no memory is registered with\n"
			"                  userfaultfd (a postcopy migration has ended)\n"
			HELP_JSON,
	}, {
		.name = "load", .fn = cmd_load,
		.summary = "load the module (installed, or from a file)",
		.usage = "[--default MODE] [--path FILE.ko]",
		.help = "  --default MODE  the global mode to start with\n"
			"  --path FILE.ko  load this file instead of the installed module\n",
		.takes_mode = true,
	}, {
		.name = "unload", .fn = cmd_unload,
		.summary = "unload the module",
		.usage = "",
	}, {
		.name = "probe", .fn = cmd_probe,
		.summary = "does this kernel split a write on the huge zero page?",
		.usage = "[--json | --condition]",
		.help = HELP_JSON
			"  --condition     exit 0 if thpcow.service should run here,\n"
			"                  else 1 with one line saying why (ExecCondition=)\n",
	}, {
		.name = "version", .fn = cmd_version,
		.summary = "show the versions of thpcowctl and the loaded module",
		.usage = "",
	}, {
		.name = "help", .fn = cmd_help,
		.summary = "show this help, or a verb's",
		.usage = "[VERB]",
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

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: " PROGRAM_NAME " [--help | --version] VERB [ARG...]\n\n"
		"Control thpcow: whole THPs for write faults on the huge zero page,\n"
		"per process, per cgroup or for everything.\n\nVerbs:\n");
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nRun '" PROGRAM_NAME " VERB --help' for a verb's arguments.\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

static void print_verb_help(const struct verb *v, FILE *f)
{
	fprintf(f, "Usage: " PROGRAM_NAME " %s%s%s\n\n%c%s.\n\nOptions:\n%s"
		"  -h, --help      show this help\n",
		v->name, v->usage[0] ? " " : "", v->usage,
		toupper((unsigned char)v->summary[0]), v->summary + 1,
		v->help ? v->help : "");
	if (v->takes_mode)
		fprintf(f, "\nMODE is one of: %s.\n", mode_list());
}

/* A usage error, with a pointer to the help; exit status 2. v is NULL
 * before the verb is known. */
int usage_error(const struct verb *v, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (v)
		error_msg("%s: %s", v->name, msg);
	else
		error_msg("%s", msg);
	fprintf(stderr, "Try '" PROGRAM_NAME "%s%s --help' for more information.\n",
		v ? " " : "", v ? v->name : "");
	return EXIT_USAGE;
}

/* A bad number argument: what names it ("PID", "SECONDS"). */
int number_error(const struct verb *v, const char *what, const char *arg,
		 int err)
{
	return usage_error(v, "invalid %s '%s': %s", what, arg,
			   err == -ERANGE ? "out of range" :
			   "not a positive decimal number");
}

/* A positive decimal argument up to max; or a usage error (status 2). */
int arg_uint(const struct verb *v, const char *what, const char *arg,
	     unsigned long long max, unsigned long long *out)
{
	int ret = parse_uint(arg, max, out);

	if (!ret && *out == 0)
		ret = -EINVAL;
	return ret ? number_error(v, what, arg, ret) : 0;
}

/* A MODE argument; or a usage error (status 2). */
int arg_mode(const struct verb *v, const char *arg, unsigned int *mode)
{
	if (parse_mode(arg, mode) == 0)
		return 0;
	return usage_error(v, "unknown mode '%s': expected one of %s", arg,
			   mode_list());
}

/*
 * getopt_long() for a verb: "-h/--help" prints the verb's help and exits
 * 0; an unknown option or a missing argument exits 2. longopts must hold
 * {"help", no_argument, NULL, 'h'}.
 */
int verb_getopt(const struct verb *v, int argc, char *argv[],
		const struct option *longopts)
{
	int opt;

	opterr = 0;
	opt = getopt_long(argc, argv, ":h", longopts, NULL);
	switch (opt) {
	case 'h':
		print_verb_help(v, stdout);
		exit(EXIT_OK);
	case ':':
		exit(usage_error(v, "option '%s' needs an argument",
				 argv[optind - 1]));
	case '?':
		if (optopt)
			exit(usage_error(v, "unknown option '-%c'", optopt));
		exit(usage_error(v, "unknown option '%s'", argv[optind - 1]));
	}
	return opt;
}

/* After a verb's options and arguments: nothing may be left (or exit 2). */
void verb_no_args(const struct verb *v, int argc, char *argv[])
{
	if (optind < argc)
		exit(usage_error(v, "unexpected argument '%s'", argv[optind]));
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
		print_usage(stdout);
		return EXIT_OK;
	}
	about = find_verb(argv[optind]);
	if (!about)
		return usage_error(v, "unknown verb '%s'", argv[optind]);
	print_verb_help(about, stdout);
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

int main(int argc, char *argv[])
{
	const struct verb *v;
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name)
		return usage_error(NULL, "missing VERB");
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
		print_usage(stdout);
		return close_stdout(EXIT_OK);
	}
	if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0)
		name = "version";
	else if (name[0] == '-')
		return usage_error(NULL, "unknown option '%s'", name);
	v = find_verb(name);
	if (!v)
		return usage_error(NULL, "unknown verb '%s'", name);
	return close_stdout(v->fn(v, argc - 1, argv + 1));
}
