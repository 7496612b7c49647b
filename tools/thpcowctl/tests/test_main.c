// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of thpcowctl, without a kernel module: the parsing and output
 * code called directly, and the built binary run as a process (its device
 * pointed at a missing file with THPCOWCTL_DEVICE, or at test_fakedev.so's
 * stand-in). TAP 13 on stdout; the plan is counted from the areas' tables
 * (tests/test_*.c), run in the order below. Usage: test_cli PATH/TO/thpcowctl
 */
#include <libgen.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

const char *cli_path;
const char *skip_reason;
char tmp_dir[] = "/tmp/thpcowctl-test.XXXXXX";

/* The areas, in the order they run: the code called directly, then the binary. */
static const struct test_area *const areas[] = {
	&parse_tests, &output_tests, &trace_tests, &cgroup_tests, &conf_tests,
	&collapse_tests, &args_tests, &fake_tests, &docs_tests,
};

int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("#   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	return FAIL;
}

int expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return PASS;
	return fail("%s:\n#   got:  [%s]\n#   want: [%s]", what, got, want);
}

/* Run one case, the nth, and report it. */
static void run_case(const struct test *t, size_t n, size_t counts[3])
{
	int ret;

	skip_reason = NULL;
	alarm(10);	/* a hung case ends the run, not the session */
	ret = t->fn(t->arg);
	counts[ret]++;
	if (ret == SKIP)
		printf("ok %zu - %s # SKIP %s\n", n, t->desc, skip_reason);
	else
		printf("%sok %zu - %s\n", ret == PASS ? "" : "not ", n, t->desc);
	fflush(stdout);
}

int main(int argc, char *argv[])
{
	size_t a, i, n = 0, counts[3] = { 0 };
	char dir[PATH_MAX];

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/thpcowctl\n", argv[0]);
		return 2;
	}
	cli_path = argv[1];
	/* libsmartcols measures UTF-8 by the locale, as on a terminal */
	setlocale(LC_ALL, "C.UTF-8");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(fake_log, sizeof(fake_log), "%s/fake.log", tmp_dir);
	snprintf(dir, sizeof(dir), "%s", cli_path);
	snprintf(fake_lib, sizeof(fake_lib), "%s/test_fakedev.so", dirname(dir));
	for (a = 0; a < ARRAY_SIZE(areas); a++)
		n += areas[a]->n;
	printf("TAP version 13\n1..%zu\n", n);
	for (a = 0, n = 0; a < ARRAY_SIZE(areas); a++) {
		for (i = 0; i < areas[a]->n; i++)
			run_case(&areas[a]->tests[i], ++n, counts);
	}
	printf("# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:%zu error:0\n",
	       counts[PASS], counts[FAIL], counts[SKIP]);
	unlink(fake_log);
	rmdir(tmp_dir);
	return counts[FAIL] ? 1 : 0;
}
