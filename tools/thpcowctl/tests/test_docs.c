// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): the man pages render
 * and cover the tool; the bash completion completes.
 */
#include "test.h"

static const struct test tests[] = {
	SH("completion: collapse's options", BASH_COMPLETION,
	   COMPLETE("collapse --") REPLY,
	   "--pid --cgroup --pidfile --min-present --rate --after-migration "
	   "--await-postcopy --domain --json --help\n"),
	/* the man page with groff warnings (bad macros, lines too long) */
	SH("man: thpcowctl.8 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/../../man/thpcowctl.8\" >/dev/null", ""),
	/* the same for the rules file's page */
	SH("man: thpcow.conf.5 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/../../man/thpcow.conf.5\" >/dev/null", ""),
	/* the module's page with groff warnings */
	SH("man: thpcow.4 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/../../man/thpcow.4\" >/dev/null", ""),
	/* a counter, an ioctl or a parameter added and not documented */
	SH("man: thpcow.4 has every counter, ioctl and parameter", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/../../man/thpcow.4\" 2>/dev/null); "
	   "u=\"$1/../../include/uapi/thpcow.h\"; "
	   "for w in $(sed -n 's/^THPCOW_STAT([A-Z_]*, \\([a-z_]*\\))$/\\1/p' \"${u%.h}-stats.h\") "
	   "$(grep -o '^#define THPCOW_IOC_[A-Z]*' \"$u\" | awk '$2 != \"THPCOW_IOC_MAGIC\" { print $2 }') "
	   "$(sed -n 's/^module_param[a-z_]*(\\([a-z_]*\\),.*/\\1/p' \"$1/../../module/\"*.c); do "
	   "grep -qE \"^       $w( |=|$)\" <<<\"$page\" || echo \"$w is missing\"; done", ""),
	/* a column -o takes and the page does not name */
	SH("man: thpcowctl.8 names every column", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/../../man/thpcowctl.8\" 2>/dev/null); "
	   "for c in $(\"$1/thpcowctl\" list --help | sed -n '/^Available/,$s/^  \\([A-Z_]*\\) .*/\\1/p') "
	   "$(\"$1/thpcowctl\" stats --help | sed -n '/^Available/,/^$/s/^  \\([A-Z_]*\\) .*/\\1/p') "
	   "$(\"$1/thpcowctl\" usage --help | sed -n '/^Available/,$s/^  \\([A-Z_]*\\) .*/\\1/p') TIME FALLBACKS; do "
	   "grep -qw \"$c\" <<<\"$page\" || echo \"$c is missing\"; done", ""),
	/* the options section without one of the global options */
	SH("man: thpcowctl.8 has every global option", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/../../man/thpcowctl.8\" 2>/dev/null); "
	   "for o in $(\"$1/thpcowctl\" --help | sed -n '/^Options/,/^$/s/^  \\(-[a-zA-Z]\\), \\(--[a-z]*\\).*/\\1 \\2/p'); do "
	   "grep -qe \"^       .*$o\" <<<\"$page\" || echo \"$o is missing\"; done", ""),
	/* the man page not covering every verb */
	SH("man: every verb is documented", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/../../man/thpcowctl.8\" 2>/dev/null); "
	   "for v in $(\"$1/thpcowctl\" --help | sed -n \"s/^  \\([a-z]*\\) .*/\\1/p\"); do "
	   "grep -q \"^       $v\" <<<\"$page\" || echo \"$v is missing\"; done", ""),
	/* a syntax error in the completion script */
	SH("completion: loads in bash", "/bin/bash",
	   ". \"$1/thpcowctl.bash-completion\" && complete -p thpcowctl",
	   "complete -F _thpcowctl thpcowctl\n"),
	/* a verb missing from the completion */
	SH("completion: the verbs", BASH_COMPLETION, COMPLETE("t") REPLY,
	   "trace\n"),
	/* probe missing from the completion, or its options */
	SH("completion: probe and its options", BASH_COMPLETION,
	   COMPLETE("pr") REPLY COMPLETE("probe --") REPLY,
	   "probe\n--json --condition --help\n"),
	/* the trace options not completed */
	SH("completion: trace's options", BASH_COMPLETION,
	   COMPLETE("trace --") REPLY,
	   "--json --count --duration --pid --buffer-size --wall-clock --help\n"),
	/* usage's options, or --format's values, not completed */
	SH("completion: usage and its options", BASH_COMPLETION,
	   "PATH=\"$1:$PATH\"; "
	   COMPLETE("usage --") REPLY COMPLETE("usage --format p") REPLY
	   COMPLETE("usage -o SCOPE,ANON") REPLY,
	   "--cgroup --pid --machine --json --output --noheadings --raw --format --help\n"
	   "prometheus\nSCOPE,ANON_THP_MIB SCOPE,ANON_THP_BYTES\n"),
	/* a size offered process ids or files */
	SH("completion: trace --buffer-size offers nothing", BASH_COMPLETION,
	   COMPLETE("trace --buffer-size \"\"") REPLY, "\n"),
	/* apply's option not completed */
	SH("completion: apply's options", BASH_COMPLETION,
	   COMPLETE("apply --") REPLY, "--check --help\n"),
	/* the table options not completed */
	SH("completion: list's options", BASH_COMPLETION,
	   COMPLETE("list --") REPLY,
	   "--json --output --noheadings --raw --help\n"),
	SH("completion: stats' options and formats", BASH_COMPLETION,
	   COMPLETE("stats --") REPLY COMPLETE("stats --format p") REPLY,
	   "--json --output --noheadings --raw --format --watch --count --help\n"
	   "prometheus\n"),
	/* -o's columns, after a comma too */
	SH("completion: list -o COLUMNS", BASH_COMPLETION,
	   COMPLETE("list -o SCOPE,C") REPLY,
	   "SCOPE,COMM SCOPE,CGROUP SCOPE,CGROUP_ID\n"),
	SH("completion: stats -o and stats --watch -o", BASH_COMPLETION,
	   "PATH=\"$1:$PATH\"; " COMPLETE("stats -o D") REPLY
	   COMPLETE("stats --watch 1 -o TIME,SUB") REPLY,
	   "DESCRIPTION\nTIME,SUBSTITUTED\n"),
	/* the global options, and the verb after them */
	SH("completion: options before the verb", BASH_COMPLETION,
	   COMPLETE("--n") REPLY COMPLETE("-J -o SCOPE li") REPLY,
	   "--noheadings\nlist\n"),
	SH("completion: -p offers process ids", BASH_COMPLETION,
	   COMPLETE("get -p \"\"")
	   "[[ \" ${COMPREPLY[*]} \" == *\" $$ \"* ]] && echo ok", "ok\n"),
	/* trace --pid offering the options, or nothing */
	SH("completion: trace --pid offers process ids", BASH_COMPLETION,
	   COMPLETE("trace --pid \"\"")
	   "[[ \" ${COMPREPLY[*]} \" == *\" $$ \"* ]] && echo ok", "ok\n"),
};

TEST_AREA(docs_tests, tests);
