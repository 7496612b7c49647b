/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl's host tests (test_cli): what the areas share. Each area,
 * tests/test_AREA.c, lists its cases once in a table of { description,
 * function, argument }, each case with a comment naming the bug it would
 * catch, and names the table with TEST_AREA; tests/test_main.c runs the
 * areas in its order and prints TAP 13, the plan counted from the tables.
 */
#ifndef THPCOWCTL_TEST_H
#define THPCOWCTL_TEST_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "thpcowctl.h"

/* What a case returns. */
enum { PASS, FAIL, SKIP };

struct test {
	const char *desc;
	int (*fn)(const void *arg);
	const void *arg;
};

/* One area's table, for tests/test_main.c. */
struct test_area {
	const struct test *tests;
	size_t n;
};

#define TEST_AREA(name, table) \
	const struct test_area name = { table, ARRAY_SIZE(table) }

extern const struct test_area parse_tests, output_tests, trace_tests,
	cgroup_tests, conf_tests, collapse_tests, args_tests, fake_tests,
	docs_tests;

/* A case: FN(&(struct TYPE){ ... }), described as DESC. */
#define CASE(fn, desc, type, ...) \
	{ desc, fn, &(const struct type){ __VA_ARGS__ } }

extern const char *cli_path;	/* the thpcowctl under test */
extern const char *skip_reason;	/* set by a case that returns SKIP */
extern char tmp_dir[];		/* a scratch directory, removed at the end */

/* Print a diagnostic, and fail. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int expect_str(const char *what, const char *got, const char *want);

/* Whatever fn writes to a FILE, as a string (caller frees). */
#define CAPTURE(buf, f, stmt) do {				\
	size_t __len;						\
	FILE *f = open_memstream(&(buf), &__len);		\
	stmt;							\
	fclose(f);						\
} while (0)

/* --- the binary and bash, run as processes (tests/test_run.c) ---------- */

#define MISSING_DEVICE	"/nonexistent/thpcow"
#define NOT_LOADED	MISSING_DEVICE ": module not loaded (try: thpcowctl load)"
#define OUT_MAX	16384

struct run {
	int status;
	char out[OUT_MAX];
	char err[OUT_MAX];
	char log[OUT_MAX];
};

/* FILE's contents (at most OUT_MAX - 1 bytes) into buf; closes it. */
void slurp(FILE *f, char *buf);

/*
 * What a case needs: the host without the module, the fake device, a
 * cgroup2 mount. The fake is test_fakedev.so beside thpcowctl.
 */
enum { NEED_UNLOADED = 1, NEED_FAKE = 2, NEED_CGROUP2 = 4 };

struct cli_case {
	const char *args[12];
	int status;
	const char *out_has;	/* NULL: stdout must be empty */
	const char *err_has;	/* NULL: stderr must be empty */
	unsigned int need;
	const char *env;	/* NAME=value for the fake, or NULL */
	const char *log_has;	/* what the fake logged; NULL: nothing */
	const char *in;		/* standard input, or NULL: none */
	bool log_is;		/* log_has is all the fake logged */
};

extern char fake_lib[PATH_MAX], fake_log[PATH_MAX];

/* Run thpcowctl ARGS; without the fake, its device is a missing file. */
int run_cli(const struct cli_case *c, struct run *r);
int test_cli(const void *arg);

/* CLI(desc, status, stdout has, stderr has, ARGS...) */
#define CLI(desc, status, out, err, ...) CASE(test_cli, desc, cli_case, \
	{ __VA_ARGS__ }, status, out, err, 0, NULL, NULL, NULL, false)
/* the same, for what a loaded module on the host would change */
#define CLI_UNLOADED(desc, status, out, err, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_UNLOADED, NULL, NULL, NULL, false)
/* FAKE(desc, env, status, stdout has, stderr has, fake log has, ARGS...) */
#define FAKE(desc, env, status, out, err, log, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_FAKE, env, log, NULL, false)
/* the same, where a cgroup2 mount is needed */
#define FAKE_CG(desc, env, status, out, err, log, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_FAKE | NEED_CGROUP2, \
	env, log, NULL, false)
/* APPLY(desc, env, stdin, status, stderr has, all the fake logs): apply - */
#define APPLY(desc, env, in, status, err, log) CASE(test_cli, desc, cli_case, \
	{ "apply", "-" }, status, (status) ? NULL : "applied <stdin>\n", err, \
	NEED_FAKE | NEED_CGROUP2, env, log, in, true)

struct sh_case {
	const char *needs;	/* a file that must exist, or skip */
	const char *script;
	const char *want;	/* the output; "" for none */
};

/* Run c->script with bash, $1 = the tool's directory; its output must be c->want. */
int test_sh(const void *arg);

#define SH(desc, needs, script, want) CASE(test_sh, desc, sh_case, needs, \
	script, want)
/* bash with the completion loaded, completing the last of words into
 * COMPREPLY, then what follows (REPLY: print it) */
#define COMPLETE(words) \
	". " BASH_COMPLETION "; . \"$1/thpcowctl.bash-completion\"; " \
	"COMP_WORDS=(thpcowctl " words "); " \
	"COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=\"${COMP_WORDS[*]}\"; " \
	"COMP_POINT=${#COMP_LINE}; _thpcowctl; "
#define REPLY	"echo \"${COMPREPLY[*]}\"; "
#define BASH_COMPLETION	"/usr/share/bash-completion/bash_completion"
#define MOUNTINFO_LINE(root, mnt, type) \
	"30 1 0:26 " root " " mnt " rw,nosuid shared:9 - " type " " type " rw\n"

#endif /* THPCOWCTL_TEST_H */
