// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl collapse: huge pages back in another process's memory, e.g. a
 * QEMU whose guest RAM a postcopy migration left in 4 KiB pages. Each 2 MiB
 * range of a private anonymous mapping that is not a THP yet and holds at
 * least --min-present pages of data (present, not the zero page) is
 * collapsed with process_madvise(MADV_COLLAPSE) (Linux 6.1 and later).
 * Nothing needs the module. This file reads the command line and the pid
 * file; collapse_run.c does the work, procfs.c reads /proc.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cmd_collapse.h"
#include "collapse.h"
#include "collapse_run.h"
#include "parse.h"
#include "procfs.h"
#include "thpcowctl.h"

/*
 * --pidfile: the pid a daemon wrote (libvirt's /run/libvirt/qemu/NAME.pid);
 * 0, or -1 reported.
 */
static int read_pidfile(const char *path, pid_t *pid)
{
	char buf[32];
	int ret = read_line(path, buf, sizeof(buf));

	if (ret == -ENODATA) {
		error_msg("pid file %s: empty", path);
	} else if (ret) {
		error_msg("pid file %s: %s", path, strerror(-ret));
	} else if (parse_pid(buf, pid)) {
		error_msg("pid file %s: '%s' is not a pid", path, buf);
		ret = -EINVAL;
	}
	return ret ? -1 : 0;
}

static int cmd_collapse(const struct verb *v, int argc, char *argv[])
{
	enum { OPT_MIN = 0x200, OPT_RATE, OPT_AFTER, OPT_AWAIT, OPT_PIDFILE,
	       OPT_DOMAIN };
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "min-present", required_argument, NULL, OPT_MIN },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "after-migration", no_argument, NULL, OPT_AFTER },
		{ "await-postcopy", required_argument, NULL, OPT_AWAIT },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "domain", required_argument, NULL, OPT_DOMAIN },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct collapse_opts o = { .min_present = MIN_PRESENT_DEFAULT };
	const char *cgroup = NULL, *pidfile = NULL;
	unsigned long long num;
	pid_t *pids = NULL, pid = 0;
	size_t n = 0;
	int opt, status;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		switch (opt) {
		case OPT_PID:
		case OPT_CGROUP:
		case OPT_PIDFILE:
			if (pid || cgroup || pidfile)
				return usage_error(v, "--pid, --cgroup and "
						   "--pidfile are mutually "
						   "exclusive");
			if (opt == OPT_CGROUP)
				cgroup = optarg;
			else if (opt == OPT_PIDFILE)
				pidfile = optarg;
			else if (arg_uint(v, "PID", optarg, INT_MAX, &num))
				return EXIT_USAGE;
			else
				pid = (pid_t)num;
			break;
		case OPT_MIN:
			if (arg_uint(v, "page count", optarg, HPAGE_PTES, &num))
				return EXIT_USAGE;
			o.min_present = (unsigned int)num;
			break;
		case OPT_RATE:
			if (arg_uint(v, "MiB/s", optarg, 1ULL << 30, &num))
				return EXIT_USAGE;
			o.rate = num << 20;
			break;
		case OPT_AWAIT:
			if (arg_uint(v, "seconds", optarg, INT_MAX, &num))
				return EXIT_USAGE;
			o.await = (unsigned int)num;
			/* fall through */
		case OPT_AFTER:
			o.after_migration = true;
			break;
		case OPT_DOMAIN:
			o.domain = optarg;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		}
	}
	verb_no_args(v, argc, argv);
	if (!pid && !cgroup && !pidfile)
		return usage_error(v, "one of --pid, --cgroup or --pidfile is "
				   "required");
	if (o.domain && (cgroup || !o.domain[0]))
		return usage_error(v, "--domain NAME is one QEMU's: with --pid or "
				   "--pidfile");
	o.progress = !o.json && isatty(STDERR_FILENO);

	/* from here on, every message is the verb's: "collapse: ..." */
	error_context(v->name);
	if (collapse_check_kernel() ||
	    (pidfile && read_pidfile(pidfile, &pid))) {
		status = EXIT_FAIL;
	} else if (cgroup) {
		status = cgroup_pids(cgroup, &pids, &n) ? EXIT_FAIL :
			 collapse_run(pids, n, true, &o);
		free(pids);
	} else {
		status = check_pid(pid) ? EXIT_FAIL :
			 collapse_run(&pid, 1, false, &o);
	}
	error_context(NULL);
	return status;
}

const struct verb collapse_verb = {
	.name = "collapse", .fn = cmd_collapse,
	.summary = "give a process's 4 KiB-page memory its THPs back",
	.synopsis = "(-p PID | -c PATH | --pidfile FILE) [--min-present N] "
		"[--rate MiB/s] [--after-migration] [--await-postcopy SECS] "
		"[--domain NAME] [-J]",
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
		"  --domain NAME   first wait (up to --await-postcopy SECS) until\n"
		"                  libvirt says its domain NAME has migrated here\n"
		"                  (virsh event); without libvirt, as\n"
		"                  --await-postcopy\n"
		HELP_JSON,
};
