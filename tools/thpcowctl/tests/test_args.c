// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): the command line,
 * thpcowctl run as a process without the module (its device a missing file):
 * usage errors, exit statuses, messages.
 */
#include <stdlib.h>
#include <unistd.h>

#include <uapi/thpcow.h>

#include "test.h"

/* exec must not run COMMAND when it could not set the policy. */
static int test_exec_not_run(const void *arg)
{
	static char marker[PATH_MAX];
	struct cli_case c = { .args = { "exec", "zero", "--", "touch", marker } };
	struct run r;

	(void)arg;
	snprintf(marker, sizeof(marker), "%s/ran", tmp_dir);
	if (run_cli(&c, &r))
		return fail("cannot run %s", cli_path);
	if (r.status != EXIT_FAIL)
		return fail("exit status %d, want 1", r.status);
	if (access(marker, F_OK) == 0) {
		unlink(marker);
		return fail("COMMAND ran although the policy was not set");
	}
	return PASS;
}

static const struct test tests[] = {
	/* help to stderr, or a non-zero status for asked-for help */
	CLI("cli: --help goes to stdout, exit 0", 0, "Usage: thpcowctl", NULL,
	    "--help"),
	/* a verb left out of the generated help */
	CLI("cli: --help lists the verbs", 0,
	    "  unload    unload the module\n", NULL, "--help"),
	/* verb help not generated from the table */
	CLI("cli: VERB --help, exit 0", 0,
	    "Usage: thpcowctl set (-p PID [--children] | -c PATH | -g) MODE",
	    NULL, "set", "--help"),
	/* the mode list in help not generated from THPCOW_MODE_NAMES */
	CLI("cli: help VERB lists the modes", 0,
	    "MODE is one of: kernel, zero, copy, split.", NULL, "help", "exec"),
	/* no verb treated as success */
	CLI("cli: no verb, exit 2", 2, NULL, "thpcowctl: missing VERB", NULL),
	/* an unknown verb treated as a failure (1), not a usage error */
	CLI("cli: unknown verb, exit 2", 2, NULL,
	    "thpcowctl: unknown verb 'frobnicate'", "frobnicate"),
	/* getopt's own message and status */
	CLI("cli: unknown option, exit 2", 2, NULL,
	    "thpcowctl: list: unknown option '--bogus'", "list", "--bogus"),
	/* a missing option argument consuming the next word */
	CLI("cli: missing option argument, exit 2", 2, NULL,
	    "option '--pid' needs an argument", "get", "--pid"),
	/* two scopes silently taking the last one */
	CLI("cli: --pid with --global, exit 2", 2, NULL, "mutually exclusive",
	    "set", "--pid", "1", "--global", "zero"),
	/* --cgroup and --pid together */
	CLI("cli: --cgroup with --pid, exit 2", 2, NULL, "mutually exclusive",
	    "get", "--cgroup", "a", "--pid", "1"),
	/* a repeated scope option quietly overriding the first */
	CLI("cli: --pid twice, exit 2", 2, NULL, "mutually exclusive",
	    "clear", "--pid", "1", "--pid", "2"),
	/* no scope defaulting to global */
	CLI("cli: no scope, exit 2", 2, NULL,
	    "one of --pid, --cgroup or --global is required", "set", "zero"),
	/* --children accepted (and ignored) for a cgroup */
	CLI("cli: --children with --cgroup, exit 2", 2, NULL,
	    "--children is only valid with --pid",
	    "set", "--cgroup", "a", "--children", "zero"),
	/* --children with --global */
	CLI("cli: --children with --global, exit 2", 2, NULL,
	    "--children is only valid with --pid",
	    "set", "--global", "--children", "zero"),
	/* --children accepted by a verb that has no use for it */
	CLI("cli: --children with get, exit 2", 2, NULL,
	    "unknown option '--children'", "get", "--pid", "1", "--children"),
	/* a bad pid reaching the ioctl */
	CLI("cli: a bad PID, exit 2", 2, NULL, "invalid PID '12x'",
	    "get", "--pid", "12x"),
	/* a bad mode reaching the ioctl as a number */
	CLI("cli: an unknown mode, exit 2", 2, NULL, "unknown mode 'fast'",
	    "set", "--global", "fast"),
	/* set without MODE */
	CLI("cli: set without MODE, exit 2", 2, NULL, "missing MODE",
	    "set", "--global"),
	/* extra words ignored by the verbs that take none */
	CLI("cli: status with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "status", "now"),
	/* extra words ignored */
	CLI("cli: an extra argument, exit 2", 2, NULL,
	    "unexpected argument 'zero'", "set", "--global", "zero", "zero"),
	/* exec running "zero", or taking the command's options as its own */
	CLI("cli: exec without --, exit 2", 2, NULL,
	    "missing '--' before COMMAND", "exec", "zero", "ls"),
	/* exec with nothing to run */
	CLI("cli: exec without COMMAND, exit 2", 2, NULL, "missing COMMAND",
	    "exec", "zero", "--"),
	/* --count without --watch ignored */
	CLI("cli: --count without --watch, exit 2", 2, NULL,
	    "--count needs --watch", "stats", "--count", "2"),
	/* --watch 0 spinning */
	CLI("cli: --watch 0, exit 2", 2, NULL, "invalid SECONDS '0'",
	    "stats", "--watch", "0"),
	/* the device missing reported as a raw ENOENT, or as exit 2 */
	CLI("cli: list without the module, exit 1", 1, NULL, NOT_LOADED,
	    "list"),
	/* set printing something before it found no device */
	CLI("cli: set without the module, exit 1", 1, NULL, NOT_LOADED,
	    "set", "--pid", "1", "zero"),
	/* stats --json printing half an object */
	CLI("cli: stats without the module, exit 1", 1, NULL, NOT_LOADED,
	    "stats", "--json"),
	/* exec going ahead without its policy */
	CLI("cli: exec without the module, exit 1", 1, NULL, NOT_LOADED,
	    "exec", "zero", "--", "true"),
	/* and running COMMAND all the same */
	{ "cli: exec without the module does not run COMMAND",
	  test_exec_not_run, NULL },
	/* status --json without the keys it documents */
	CLI_UNLOADED("cli: status --json without the module", -1,
		     "{\"loaded\":false,\"module_version\":null,\"abi\":null,"
		     "\"tool_version\":\"" THPCOW_VERSION "\",\"tool_abi\":1,"
		     "\"kernel\":", NULL, "status", "--json"),
	/* version needing the module */
	CLI_UNLOADED("cli: version without the module, exit 0", 0,
		     "thpcowctl " THPCOW_VERSION " (ABI 1)\n"
		     "thpcow module not loaded\n", NULL, "version"),
	/* --version not an alias of version */
	CLI_UNLOADED("cli: --version", 0, "thpcowctl " THPCOW_VERSION, NULL,
		     "--version"),
	/* unload trying delete_module() on a module that is not there */
	CLI_UNLOADED("cli: unload without the module, exit 1", 1, NULL,
		     "thpcowctl: thpcow: module not loaded", "unload"),
	/* load --path reaching insmod with a missing file */
	CLI("cli: load --path of a missing file, exit 1", 1, NULL,
	    "/nonexistent/thpcow.ko: No such file or directory",
	    "load", "--path", "/nonexistent/thpcow.ko"),

	/* trace --count 0 waiting forever */
	CLI("cli: trace --count 0, exit 2", 2, NULL, "invalid N '0'",
	    "trace", "--count", "0"),
	/* a bad --duration taken as 0 (forever) */
	CLI("cli: trace --duration 1s, exit 2", 2, NULL,
	    "invalid SECONDS '1s'", "trace", "--duration", "1s"),
	/* --pid 0 as "every process" */
	CLI("cli: trace --pid 0, exit 2", 2, NULL, "invalid PID '0'",
	    "trace", "--pid", "0"),
	/* extra words ignored */
	CLI("cli: trace with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "trace", "now"),
	/* a failure (no tracefs, no module or no root: each is exit 1) as
	 * a usage error, or a header printed before it */
	CLI_UNLOADED("cli: trace without the module, exit 1", 1, NULL,
		     "thpcowctl: trace: ", "trace", "--count", "1"),
	/* collapse: one process, pid file or cgroup, not two, not none */
	CLI("cli: collapse without a scope, exit 2", 2, NULL,
	    "thpcowctl: collapse: one of --pid, --cgroup or --pidfile is required",
	    "collapse"),
	CLI("cli: collapse --pid with --cgroup, exit 2", 2, NULL,
	    "--pid, --cgroup and --pidfile are mutually exclusive", "collapse", "--pid",
	    "1", "--cgroup", "a"),
	CLI("cli: collapse --pidfile with --pid, exit 2", 2, NULL,
	    "--pid, --cgroup and --pidfile are mutually exclusive", "collapse",
	    "--pidfile", "/run/x.pid", "--pid", "1"),
	/* --await-postcopy 0 as "forever" */
	CLI("cli: collapse --await-postcopy 0, exit 2", 2, NULL,
	    "invalid seconds '0'", "collapse", "--pid", "1",
	    "--await-postcopy", "0"),
	/* --rate 0 taken as "no bound", or as a stall */
	CLI("cli: collapse --rate 0, exit 2", 2, NULL, "invalid MiB/s '0'",
	    "collapse", "--pid", "1", "--rate", "0"),
	/* --min-present above 512 never collapsing anything */
	CLI("cli: collapse --min-present 513, exit 2", 2, NULL,
	    "invalid page count '513': out of range", "collapse", "--pid", "1",
	    "--min-present", "513"),
	CLI("cli: collapse --pid 0, exit 2", 2, NULL, "invalid PID '0'",
	    "collapse", "--pid", "0"),
	CLI("cli: collapse with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "collapse", "--pid", "1", "now"),
	/* --domain for a whole cgroup (which QEMU's events?) */
	CLI("cli: collapse --domain with --cgroup, exit 2", 2, NULL,
	    "--domain NAME is one QEMU's: with --pid or --pidfile", "collapse",
	    "--cgroup", "a", "--domain", "vm1"),
	/* a missing rules file reported as something else */
	CLI("cli: apply of a missing file, exit 1", 1, NULL,
	    "thpcowctl: /nonexistent/thpcow.conf: No such file or directory\n",
	    "apply", "--check", "/nonexistent/thpcow.conf"),
	/* a second FILE ignored */
	CLI("cli: apply with two files, exit 2", 2, NULL,
	    "unexpected argument 'b'", "apply", "a", "b"),
	/* probe's two options taken together */
	CLI("cli: probe --json --condition, exit 2", 2, NULL,
	    "--json and --condition exclude each other", "probe", "--json",
	    "--condition"),
	/* the hint on a packaged host: 'thpcowctl load' loads the module
	 * without its config or rules */
	{ "cli: without the module where thpcow.service is installed: the hint",
	  test_cli, &(const struct cli_case){ { "list" }, 1, NULL,
	  MISSING_DEVICE ": module not loaded (try: systemctl start thpcow)",
	  NEED_UNLOADED, "THPCOWCTL_UNIT=/", NULL, NULL, false } },
	/* a usage error as 2 (CRITICAL to Nagios), not 3 (UNKNOWN) */
	CLI("cli: check -w above -c, exit 3", 3, NULL,
	    "thpcowctl: check: --warning 60 is above --critical 50", "check",
	    "-w", "60", "-c", "50"),
	CLI("cli: check with an unknown option, exit 3", 3, NULL,
	    "unknown option '--bogus'", "check", "--bogus"),
	CLI("cli: check -w 101, exit 3", 3, NULL, "invalid percentage '101'",
	    "check", "-w", "101"),
	/* apply going on without the module */
	{ "cli: apply without the module, exit 1", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 1, NULL, NOT_LOADED, 0, NULL, NULL, "global zero\n",
	  false } },
	CLI("cli: usage -o BOGUS, exit 2", 2, NULL,
	    "thpcowctl: usage: unknown column 'BOGUS' (see 'thpcowctl usage --help')",
	    "usage", "-o", "BOGUS"),
	CLI("cli: usage -J -n, exit 2", 2, NULL,
	    "thpcowctl: usage: -n and -r are for the table", "usage", "-J", "-n"),
	CLI("cli: usage --format prometheus -r, exit 2", 2, NULL,
	    "thpcowctl: usage: --format prometheus takes none of -o, -n, -r",
	    "usage", "--format", "prometheus", "-r"),
	CLI("cli: usage --help lists the columns", 0,
	    "  ANON_THP_MIB        MiB of anonymous THPs now", NULL, "usage",
	    "--help"),
	/* --check passing a file that apply refuses as a whole */
	{ "cli: apply --check of a missing cgroup, exit 1", test_cli, &(const struct cli_case){
	  { "apply", "--check", "-" }, 1, NULL,
	  "thpcowctl: <stdin>: 1 cgroup cannot be opened: apply would change nothing\n",
	  NEED_CGROUP2, NULL, NULL, "global zero\ncgroup /no-such-cgroup zero\n",
	  false } },
	/* a global option for a verb without it taken silently */
	CLI("cli: -J before a verb without JSON, exit 2", 2, NULL,
	    "thpcowctl: set: unknown option '--json'", "-J", "set", "-g", "zero"),
	CLI("cli: -o before a verb without a table, exit 2", 2, NULL,
	    "thpcowctl: status: unknown option '--output'", "-o", "X", "status"),
	CLI("cli: an unknown option before the verb, exit 2", 2, NULL,
	    "thpcowctl: unknown option '-x'", "-x", "list"),
	CLI("cli: -o without COLUMNS before the verb, exit 2", 2, NULL,
	    "thpcowctl: option '-o' needs an argument", "-o"),
	CLI("cli: options but no verb, exit 2", 2, NULL,
	    "thpcowctl: missing VERB", "-J"),
	CLI_UNLOADED("cli: -V", 0, "thpcowctl " THPCOW_VERSION " (ABI 1)\n", NULL,
		     "-V"),
	CLI("cli: -h", 0, "Usage: thpcowctl [OPTIONS] VERB [ARG...]", NULL, "-h"),
	/* -o: an unknown column taken as none, or as the defaults */
	CLI("cli: list -o BOGUS, exit 2", 2, NULL,
	    "thpcowctl: list: unknown column 'BOGUS' (see 'thpcowctl list --help')",
	    "list", "-o", "SCOPE,BOGUS"),
	CLI("cli: list -o with an empty name, exit 2", 2, NULL,
	    "thpcowctl: list: unknown column ''", "list", "-o", "SCOPE,"),
	CLI("cli: stats -o a --watch column without --watch, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown column 'SUBSTITUTED'", "stats", "-o",
	    "SUBSTITUTED"),
	CLI("cli: stats --watch -o a one-shot column, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown column 'VALUE'", "stats", "--watch", "1",
	    "-o", "VALUE"),
	CLI("cli: list -J -n, exit 2", 2, NULL,
	    "thpcowctl: list: -n and -r are for the table", "list", "-J", "-n"),
	CLI("cli: stats -J -r, exit 2", 2, NULL,
	    "thpcowctl: stats: -n and -r are for the table", "stats", "-J", "-r"),
	CLI("cli: stats --format bogus, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown format 'bogus': expected text, json or "
	    "prometheus", "stats", "--format", "bogus"),
	CLI("cli: stats --format prometheus -o, exit 2", 2, NULL,
	    "--format prometheus takes none of", "stats", "--format",
	    "prometheus", "-o", "COUNTER"),
	CLI("cli: stats --watch -J -o, exit 2", 2, NULL,
	    "thpcowctl: stats: --watch -J prints every counter: no -o", "stats",
	    "--watch", "1", "-J", "-o", "TIME"),
	/* the columns missing from VERB --help */
	CLI("cli: list --help lists the columns", 0,
	    "Available output columns (-o):\n  SCOPE ", NULL, "list", "--help"),
	CLI("cli: stats --help lists the columns", 0,
	    "  DESCRIPTION         what it counts\n", NULL, "help", "stats"),
	/* no module: an error and no file (node-exporter keeps serving the
	 * stale one) instead of thpcow_up 0 */
	CLI_UNLOADED("cli: stats --format prometheus without the module: up 0, exit 0",
	    0, "# TYPE thpcow_up gauge\nthpcow_up 0\n", NULL, "stats",
	    "--format", "prometheus"),
};

TEST_AREA(args_tests, tests);
