// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): the built binary
 * run as a process, with or without test_fakedev.so (struct cli_case,
 * test_cli), and bash scripts given the tool's directory (struct sh_case,
 * test_sh), for the areas' tables.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

#include "test.h"

void slurp(FILE *f, char *buf)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, OUT_MAX - 1, f);
	buf[n] = '\0';
	fclose(f);
}

char fake_lib[PATH_MAX], fake_log[PATH_MAX];

/* Run thpcowctl ARGS; without the fake, its device is a missing file. */
int run_cli(const struct cli_case *c, struct run *r)
{
	const char *argv[16] = { cli_path };
	FILE *out = tmpfile(), *err = tmpfile(), *in = tmpfile();
	int i, status;
	pid_t pid;

	for (i = 0; c->args[i] && i < 14; i++)
		argv[i + 1] = c->args[i];
	if (!out || !err || !in)
		return -1;
	if (c->in)
		fputs(c->in, in);
	fflush(in);
	rewind(in);
	fflush(stdout);
	unlink(fake_log);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(in), STDIN_FILENO);
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		setenv("THPCOWCTL_DEVICE", MISSING_DEVICE, 1);
		if (c->need & NEED_FAKE) {
			setenv("LD_PRELOAD", fake_lib, 1);
			setenv("FAKE_LOG", fake_log, 1);
		}
		if (c->env)
			putenv((char *)c->env);
		execv(cli_path, (char **)argv);
		_exit(126);
	}
	fclose(in);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	slurp(out, r->out);
	slurp(err, r->err);
	r->log[0] = '\0';
	if ((out = fopen(fake_log, "r")))
		slurp(out, r->log);
	return 0;
}

/* NULL: s must be empty; else s must hold want. */
static int expect_has(const char *what, const char *s, const char *want)
{
	if (want ? strstr(s, want) != NULL : s[0] == '\0')
		return PASS;
	return fail("%s [%s], want %s [%s]", what, s,
		    want ? "it to hold" : "nothing, not", want ? want : "");
}

static bool have_cgroup2(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char mnt[PATH_MAX];
	int ret;

	if (!f)
		return false;
	ret = cgroup2_mount(f, mnt, sizeof(mnt));
	fclose(f);
	return ret == 0;
}

int test_cli(const void *arg)
{
	const struct cli_case *c = arg;
	struct run r;

	if ((c->need & NEED_UNLOADED) && access(SYSFS_MODULE, F_OK) == 0)
		skip_reason = "the module is loaded on this host";
	else if ((c->need & NEED_FAKE) && access(fake_lib, R_OK))
		skip_reason = "test_fakedev.so is not built";
	else if ((c->need & NEED_CGROUP2) && !have_cgroup2())
		skip_reason = "no cgroup2 mount on this host";
	if (skip_reason)
		return SKIP;
	if (run_cli(c, &r))
		return fail("cannot run %s: %s", cli_path, strerror(errno));
	/* status -1: any (what the host's kernel decides, checked elsewhere) */
	if (c->status >= 0 && r.status != c->status)
		return fail("exit status %d, want %d; stderr: %s", r.status,
			    c->status, r.err);
	if (expect_has("stdout", r.out, c->out_has) ||
	    expect_has("stderr", r.err, c->err_has) ||
	    (c->log_is ? expect_str("fake log", r.log, c->log_has ? c->log_has : "") :
	     expect_has("fake log", r.log, c->log_has)))
		return FAIL;
	return PASS;
}

/* Run a bash script with $1 = the tool's directory; its output in out. */
static int run_sh(const char *script, char *out, size_t len)
{
	char dir[PATH_MAX];
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s", cli_path);
	fflush(stdout);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		execlp("bash", "bash", "-c", script, "bash", dirname(dir),
		       (char *)NULL);
		_exit(126);
	}
	close(fds[1]);
	while (n < len - 1 && (r = read(fds[0], out + n, len - 1 - n)) > 0)
		n += r;
	out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int test_sh(const void *arg)
{
	const struct sh_case *c = arg;
	char out[OUT_MAX];
	int status;

	if (access(c->needs, R_OK)) {
		skip_reason = c->needs;
		return SKIP;
	}
	status = run_sh(c->script, out, sizeof(out));
	if (status)
		return fail("exit status %d; output: %s", status, out);
	return expect_str("output", out, c->want);
}
