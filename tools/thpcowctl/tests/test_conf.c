// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): the rules file
 * (/etc/thpcow.conf) as conf_parse() reads it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "output.h"
#include "parse.h"

#include "test.h"

/* --- the rules file ---------------------------------------------------- */

struct conf_case {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int ret;		/* conf_parse(): the number of errors */
	const char *rules;	/* what it read, one "SCOPE [CGROUP] MODE" a line */
	const char *err;	/* what it reported; "" for nothing */
};

/* conf_parse() of c->text as "t.conf", cgroup2 on /sys/fs/cgroup. */
static int test_conf(const void *arg)
{
	const struct conf_case *c = arg;
	FILE *in = fmemopen((void *)c->text, c->len ? c->len : strlen(c->text), "r");
	FILE *err = tmpfile();
	char msgs[OUT_MAX], *rules = NULL;
	struct conf conf;
	int saved, ret;
	size_t i;

	if (!in || !err)
		return fail("fmemopen/tmpfile: %s", strerror(errno));
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(err), STDERR_FILENO);
	ret = conf_parse(in, "t.conf", "/sys/fs/cgroup", &conf);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fclose(in);
	slurp(err, msgs);
	CAPTURE(rules, f, for (i = 0; i < conf.n; i++)
		fprintf(f, "%s%s%s %s\n", scope_name(conf.rules[i].scope),
			conf.rules[i].cgroup ? " " : "",
			conf.rules[i].cgroup ? conf.rules[i].cgroup : "",
			mode_name(conf.rules[i].mode)));
	conf_free(&conf);
	if (ret != c->ret)
		ret = fail("%d errors, want %d; stderr: %s", ret, c->ret, msgs);
	else
		ret = expect_str("rules", rules, c->rules) ||
		      expect_str("stderr", msgs, c->err) ? FAIL : PASS;
	free(rules);
	return ret;
}

/* CONF(desc, text, errors, rules read, stderr) */
#define CONF(desc, text, ret, rules, err) CASE(test_conf, desc, conf_case, \
	text, 0, ret, rules, err)

static const struct test tests[] = {
	/* comments, blank lines, tabs and CRLF taken for rules */
	CONF("conf: comments, blanks, tabs, CRLF",
	     "# rules\n\n   \t\n\tglobal\tzero\r\n  cgroup /machine.slice kernel  # vms\n",
	     0, "global zero\ncgroup /machine.slice kernel\n", ""),
	/* a '#' inside a word cutting it short */
	CONF("conf: '#' inside a word is not a comment", "cgroup /a#b zero\n", 0,
	     "cgroup /a#b zero\n", ""),
	/* the last line without a newline dropped */
	CONF("conf: a last line without a newline", "global copy", 0,
	     "global copy\n", ""),
	/* an empty file taken as an error, or as "no change" */
	CONF("conf: an empty file has no rules", "", 0, "", ""),
	/* the --cgroup rule not applied: mount prefix, relative, root */
	CONF("conf: cgroup paths as --cgroup takes them",
	     "cgroup /sys/fs/cgroup/a split\ncgroup b/c zero\ncgroup / kernel\n", 0,
	     "cgroup /a split\ncgroup /b/c zero\ncgroup / kernel\n", ""),
	/* repeated and trailing slashes kept: duplicates not found */
	CONF("conf: paths are normalised", "cgroup machine.slice//vm/ zero\n", 0,
	     "cgroup /machine.slice/vm zero\n", ""),
	/* one cgroup spelt two ways, both applied in turn */
	CONF("conf: the same cgroup twice", "cgroup /sys/fs/cgroup/a zero\n"
	     "\ncgroup a// kernel\n", 1, "",
	     "thpcowctl: t.conf:3: cgroup /a already has a rule on line 1\n"),
	/* the last global silently winning */
	CONF("conf: two global lines", "global zero\nglobal kernel\n", 1, "",
	     "thpcowctl: t.conf:2: a second global line (the first is line 1)\n"),
	/* "../" leaving the cgroup tree, "." making two names for one cgroup */
	CONF("conf: '..' and '.' are refused", "cgroup /a/../b zero\ncgroup ./a zero\n",
	     2, "", "thpcowctl: t.conf:1: cgroup path '/a/../b': '.' and '..' are "
	     "not allowed\nthpcowctl: t.conf:2: cgroup path './a': '.' and '..' "
	     "are not allowed\n"),
	/* a component merely starting with dots refused */
	CONF("conf: '..a' is a name", "cgroup /..a/.b zero\n", 0,
	     "cgroup /..a/.b zero\n", ""),
	/* words beyond a rule ignored, or too few read past the end */
	CONF("conf: the number of words",
	     "global\nglobal zero zero\ncgroup /a\ncgroup /a zero zero\n", 4, "",
	     "thpcowctl: t.conf:1: expected 'global MODE'\n"
	     "thpcowctl: t.conf:2: expected 'global MODE'\n"
	     "thpcowctl: t.conf:3: expected 'cgroup PATH MODE'\n"
	     "thpcowctl: t.conf:4: expected 'cgroup PATH MODE'\n"),
	/* a bad mode taken as kernel; keywords matched without case */
	CONF("conf: an unknown mode and keyword", "cgroup /a fast\nGlobal zero\n", 2,
	     "", "thpcowctl: t.conf:1: unknown mode 'fast': expected one of "
	     "kernel, zero, copy, split\nthpcowctl: t.conf:2: unknown keyword "
	     "'Global': expected global or cgroup\n"),
	/* a pid rule kept for whichever process gets that pid next boot */
	CONF("conf: pid rules are refused", "pid 1 zero\n", 1, "",
	     "thpcowctl: t.conf:1: pid rules do not belong in a file (pids "
	     "change): use thpcowctl exec or set --pid\n"),
	/* a NUL byte ending the line early: "global zero" read from it */
	CASE(test_conf, "conf: a NUL byte", conf_case, "global zero\0junk\n", 17,
	     1, "", "thpcowctl: t.conf:1: a NUL byte\n"),
	/* the good lines of a bad file used; errors after the first lost */
	CONF("conf: every error, and no rules from a bad file",
	     "global zero\nbogus\ncgroup /a zero\ncgroup /b\n", 2, "",
	     "thpcowctl: t.conf:2: unknown keyword 'bogus': expected global or "
	     "cgroup\nthpcowctl: t.conf:4: expected 'cgroup PATH MODE'\n"),
};

TEST_AREA(conf_tests, tests);
