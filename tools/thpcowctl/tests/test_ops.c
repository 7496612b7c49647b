// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the operations' side of thpcowctl, without a module: what
 * reload and status decide (reload.c: a QEMU still receiving an incoming
 * migration, in a /proc made of files; the loaded module's version against
 * the installed one's), reload's command line, and thpcow.conf's "cgroup?"
 * lines (conf.c, and apply --check of a cgroup that does not exist). TAP
 * 13 on stdout; the plan is counted from the table.
 * Usage: test_ops PATH/TO/thpcowctl
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "reload.h"
#include "thpcowctl.h"

static const char *cli_path;
static char proc[] = "/tmp/thpcowctl-reload.XXXXXX";

/* A diagnostic line, and failure. */
static int mismatch(const char *what, const char *got, const char *want)
{
	printf("#   %s: got [%s], want [%s]\n", what, got, want);
	return 1;
}

/* proc/REL, made with its directories, holding len bytes of data. */
static void put(const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	for (p = strchr(path + strlen(proc) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/*
 * A process PID: its command line (arguments separated by "|"), a vCPU
 * thread that has run utime ticks, and a userfaultfd if uffd.
 */
static void process(int pid, const char *cmdline, int utime, int uffd)
{
	char rel[64], buf[512], *p;
	size_t len = strlen(cmdline) + 1;

	snprintf(buf, sizeof(buf), "%s", cmdline);
	for (p = buf; (p = strchr(p, '|')); p++)
		*p = '\0';
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	put(rel, buf, len);
	snprintf(rel, sizeof(rel), "%d/comm", pid);
	put(rel, "qemu-system-x86\n", 16);
	snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, pid + 1);
	put(rel, "CPU 0/KVM\n", 10);
	snprintf(buf, sizeof(buf), "%d (CPU 0/KVM) S 1 %d %d 0 -1 4194624 10 "
		 "0 0 0 %d 0 0 0 20 0 3 0 100 0 0\n", pid + 1, pid, pid, utime);
	snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, pid + 1);
	put(rel, buf, strlen(buf));
	snprintf(rel, sizeof(rel), "%s/%d/fd", proc, pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%d/fd/5", proc, pid);
	if (symlink(uffd ? "anon_inode:[userfaultfd]" : "/dev/kvm", rel)) {
		perror(rel);
		exit(1);
	}
}

struct incoming_case {
	const char *cmdline;
	int utime, uffd;
	pid_t want;
	const char *name;
};

#define LIBVIRT_QEMU	"/usr/bin/qemu-system-x86_64|-name|guest=vm1,debug-threads=on|-S"

static const struct incoming_case incoming_cases[] = {
	/* a precopy migration's destination, waiting: its vCPU never ran */
	{ LIBVIRT_QEMU "|-incoming|defer", 0, 0, 100, "vm1" },
	/* the same after it: the guest runs (QEMU keeps -incoming) */
	{ LIBVIRT_QEMU "|-incoming|defer", 12, 0, 0, NULL },
	/* postcopy: the guest runs while its memory arrives */
	{ LIBVIRT_QEMU "|-incoming|defer", 12, 1, 100, "vm1" },
	/* a guest started paused (-S) but not migrated */
	{ LIBVIRT_QEMU, 0, 0, 0, NULL },
	/* QEMU's own spelling, no -name: its comm */
	{ "qemu-system-x86_64|--incoming|tcp:0:4444", 0, 0, 100, "qemu-system-x86" },
};

static int test_incoming(const void *arg)
{
	const struct incoming_case *c = arg;
	char name[64] = "", cmd[PATH_MAX + 16], got[16], want[16];
	pid_t pid;
	int ret = 0;

	process(100, c->cmdline, c->utime, c->uffd);
	/* an unrelated process beside it, and a non-process entry */
	process(200, "/sbin/init", 0, 1);
	put("self/cmdline", "x", 1);
	pid = incoming_migration(proc, name, sizeof(name));
	snprintf(got, sizeof(got), "%d", (int)pid);
	snprintf(want, sizeof(want), "%d", (int)c->want);
	if (pid != c->want)
		ret = mismatch("incoming_migration", got, want);
	else if (c->name && strcmp(name, c->name))
		ret = mismatch("the name", name, c->name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", proc);
	if (system(cmd))
		ret = mismatch(cmd, "failed", "done");
	return ret;
}

struct version_case {
	const char *loaded, *installed, *want;
};

static const struct version_case version_cases[] = {
	{ "0.2.0", "0.2.1", "older than" },
	/* by numbers, not by characters */
	{ "0.2.10", "0.2.9", "newer than" },
	{ "0.2.0", "0.2.0", NULL },
	/* a module file without a version says nothing */
	{ "0.2.0", "", NULL },
};

static int test_version(const void *arg)
{
	const struct version_case *c = arg;
	const char *got = module_version_relation(c->loaded, c->installed);

	if ((got == NULL) != (c->want == NULL) ||
	    (got && strcmp(got, c->want)))
		return mismatch(c->installed, got ? got : "NULL",
				c->want ? c->want : "NULL");
	return 0;
}

struct optional_case {
	const char *line;
	int errors;
	bool optional;
	size_t n;	/* rules */
};

static const struct optional_case optional_cases[] = {
	{ "cgroup? /qemu.slice zero\n", 0, true, 1 },
	/* the plain form stays all-or-nothing */
	{ "cgroup /qemu.slice zero\n", 0, false, 1 },
	{ "cgroup? /qemu.slice\n", 1, false, 0 },
	/* one cgroup, one rule, whichever form */
	{ "cgroup? /qemu.slice zero\ncgroup /qemu.slice copy\n", 1, false, 0 },
	/* the hook's switch: no rule, and apply takes the file */
	{ "collapse-hook on\ncgroup /qemu.slice zero\ncollapse-hook off\n", 0, false, 1 },
	{ "collapse-hook yes\n", 1, false, 0 },
};

static int test_optional(const void *arg)
{
	const struct optional_case *c = arg;
	struct conf conf = { 0 };
	char got[16], want[16];
	FILE *in;
	int errors;

	in = fmemopen((void *)c->line, strlen(c->line), "r");
	if (!in)
		return mismatch("fmemopen", "failed", "a FILE");
	errors = conf_parse(in, "test.conf", "/sys/fs/cgroup", &conf);
	fclose(in);
	snprintf(got, sizeof(got), "%d", errors);
	snprintf(want, sizeof(want), "%d", c->errors);
	if (errors != c->errors)
		return mismatch("errors", got, want);
	if (conf.n != c->n || (c->n && (conf.rules[0].optional != c->optional ||
					strcmp(conf.rules[0].cgroup, "/qemu.slice"))))
		return mismatch("the rule", conf.n ? conf.rules[0].cgroup : "none",
				c->optional ? "/qemu.slice, optional" : "/qemu.slice");
	conf_free(&conf);
	return 0;
}

/*
 * thpcowctl ARGS (c[0]), c[3] (if any) its standard input: its exit status
 * (c[1]), with c[2] in its standard error and output.
 */
static int test_cli(const void *arg)
{
	const char *const *c = arg;
	char cmd[PATH_MAX * 2], out[512] = "", status[16];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "printf '%%s\\n' '%s' | %s %s 2>&1",
		 c[3] ? c[3] : "", cli_path, c[0]);
	p = popen(cmd, "r");
	if (!p)
		return mismatch(cmd, "popen failed", "run");
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	snprintf(status, sizeof(status), "%d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (strcmp(status, c[1]))
		return mismatch(c[0], status, c[1]);
	if (!strstr(out, c[2]))
		return mismatch(c[0], out, c[2]);
	return 0;
}

static const char *const cli_unknown[] = {
	"reload --bogus", "2", "thpcowctl: reload: unknown option '--bogus'", NULL
};
static const char *const cli_arg[] = {
	"reload now", "2", "thpcowctl: reload: unexpected argument 'now'", NULL
};
#define ABSENT	"/thpcow-test-absent.slice"
static const char *const cli_optional[] = {
	"apply --check -", "0",
	"<stdin>:1: cgroup? " ABSENT ": no such cgroup yet: skipped",
	"cgroup? " ABSENT " zero"
};
static const char *const cli_required[] = {
	"apply --check -", "1",
	"1 cgroup cannot be opened: apply would change nothing",
	"cgroup " ABSENT " zero"
};

struct test {
	const char *desc;
	int (*fn)(const void *arg);
	const void *arg;
};

static const struct test tests[] = {
	{ "incoming: waiting for a precopy migration", test_incoming, &incoming_cases[0] },
	{ "incoming: the migrated guest runs", test_incoming, &incoming_cases[1] },
	{ "incoming: a postcopy migration (userfaultfd)", test_incoming, &incoming_cases[2] },
	{ "incoming: a paused guest, no -incoming", test_incoming, &incoming_cases[3] },
	{ "incoming: --incoming, no -name", test_incoming, &incoming_cases[4] },
	{ "version: older", test_version, &version_cases[0] },
	{ "version: newer, 10 > 9", test_version, &version_cases[1] },
	{ "version: the same", test_version, &version_cases[2] },
	{ "version: unknown", test_version, &version_cases[3] },
	{ "cli: reload --bogus", test_cli, cli_unknown },
	{ "cli: reload ARG", test_cli, cli_arg },
	{ "conf: cgroup? PATH MODE", test_optional, &optional_cases[0] },
	{ "conf: cgroup PATH MODE", test_optional, &optional_cases[1] },
	{ "conf: cgroup? without a mode", test_optional, &optional_cases[2] },
	{ "conf: cgroup? and cgroup, the same cgroup", test_optional, &optional_cases[3] },
	{ "conf: collapse-hook on, off", test_optional, &optional_cases[4] },
	{ "conf: collapse-hook yes", test_optional, &optional_cases[5] },
	{ "cli: apply --check, cgroup? of no cgroup", test_cli, cli_optional },
	{ "cli: apply --check, cgroup of no cgroup", test_cli, cli_required },
};

int main(int argc, char *argv[])
{
	size_t i, failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/thpcowctl\n", argv[0]);
		return 2;
	}
	cli_path = argv[1];
	if (!mkdtemp(proc)) {
		perror("mkdtemp");
		return 1;
	}
	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		int ret = tests[i].fn(tests[i].arg);

		failed += ret != 0;
		printf("%sok %zu - %s\n", ret ? "not " : "", i + 1, tests[i].desc);
	}
	printf("# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:0 error:0\n",
	       ARRAY_SIZE(tests) - failed, failed);
	rmdir(proc);
	return failed ? 1 : 0;
}
