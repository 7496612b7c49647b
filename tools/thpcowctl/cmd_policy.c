// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the policy verbs: set, get, clear, list, exec. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cmd_policy.h"
#include "device.h"
#include "output.h"
#include "thpcowctl.h"

#define HELP_CHILDREN \
	"      --children  processes PID forks later inherit the policy\n"
#define HELP_CGROUP \
	"  -c, --cgroup PATH\n" \
	"                  a cgroup v2 directory: a path that starts with the\n" \
	"                  cgroup2 mount point, or one below the cgroup2 root\n" \
	"                  (machine.slice/foo and /machine.slice/foo are alike)\n"
#define HELP_CGROUP_GLOBAL HELP_CGROUP \
	"  -g, --global    the default for all other memory\n"

#define OPT_HELP_ENTRY		{ "help", no_argument, NULL, 'h' }
#define OPT_SCOPE_ENTRIES					\
	{ "pid", required_argument, NULL, OPT_PID },		\
	{ "cgroup", required_argument, NULL, OPT_CGROUP },	\
	{ "global", no_argument, NULL, OPT_GLOBAL }

struct policy_args {
	struct scope_arg scope;
	unsigned int mode;
	bool json;
};

/* Options, then MODE if want_mode; returns 0 or exit status 2. */
static int policy_args(const struct verb *v, int argc, char *argv[],
		       const struct option *opts, bool want_mode,
		       struct policy_args *a)
{
	const char *why;
	int opt, ret;

	memset(a, 0, sizeof(*a));
	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_JSON) {
			a->json = true;
			continue;
		}
		ret = scope_option(&a->scope, opt, optarg);
		if (ret < 0)
			return number_error(v, "PID", optarg, ret);
	}
	why = scope_check(&a->scope);
	if (why)
		return usage_error(v, "%s", why);
	if (want_mode) {
		if (optind == argc)
			return usage_error(v, "missing MODE");
		ret = arg_mode(v, argv[optind++], &a->mode);
		if (ret)
			return ret;
	}
	verb_no_args(v, argc, argv);
	return 0;
}

/*
 * Run SET, GET or CLEAR for the scope in a on a fresh device; p is the
 * result and t the target (its cgroup closed again). Returns 0 or -1.
 */
static int policy_command(const struct verb *v, unsigned long cmd,
			  const struct scope_arg *s, unsigned int mode,
			  struct thpcow_policy *p, struct target *t)
{
	int fd = device_open(), ret = -1;

	if (fd < 0)
		return -1;
	if (target_open(s, t) == 0) {
		target_policy(t, p);
		p->mode = mode;
		p->flags = s->children ? THPCOW_POLICY_CHILDREN : 0;
		ret = device_policy(fd, v->name, cmd, p, t);
		target_close(t);
	}
	close(fd);
	return ret;
}

/* set and clear: no output, only an exit status */
static int policy_verb(const struct verb *v, int argc, char *argv[],
		       const struct option *opts, unsigned long cmd)
{
	struct thpcow_policy p;
	struct policy_args a;
	struct target t;
	int ret = policy_args(v, argc, argv, opts, cmd == THPCOW_IOC_SET, &a);

	if (ret)
		return ret;
	if (policy_command(v, cmd, &a.scope, a.mode, &p, &t))
		return EXIT_FAIL;
	return EXIT_OK;
}

static int cmd_set(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		OPT_SCOPE_ENTRIES,
		{ "children", no_argument, NULL, OPT_CHILDREN },
		OPT_HELP_ENTRY,
		{ 0 }
	};

	return policy_verb(v, argc, argv, opts, THPCOW_IOC_SET);
}

const struct verb set_verb = {
	.name = "set", .fn = cmd_set,
	.summary = "set the policy of a process, a cgroup or the default",
	.synopsis = "(-p PID [--children] | -c PATH | -g) MODE",
	.help = HELP_PID HELP_CHILDREN HELP_CGROUP_GLOBAL,
	.takes_mode = true,
};

static int cmd_clear(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		OPT_SCOPE_ENTRIES,
		OPT_HELP_ENTRY,
		{ 0 }
	};

	return policy_verb(v, argc, argv, opts, THPCOW_IOC_CLEAR);
}

const struct verb clear_verb = {
	.name = "clear", .fn = cmd_clear,
	.summary = "remove a policy (--global: set the default back to kernel)",
	.synopsis = "(-p PID | -c PATH | -g)",
	.help = HELP_PID HELP_CGROUP_GLOBAL,
};

/* What GET returned, as a list entry (so it prints like one). */
static void policy_entry(const struct thpcow_policy *p, const struct target *t,
			 struct thpcow_entry *e)
{
	char path[64];
	size_t len;

	memset(e, 0, sizeof(*e));
	e->scope = p->scope;
	e->mode = p->mode;
	e->flags = p->flags & ~THPCOW_POLICY_PRESENT;
	e->pid = p->pid;
	e->cgroup_id = p->cgroup_id;
	e->substitutions = p->substitutions;
	if (p->scope == THPCOW_SCOPE_PID) {
		snprintf(path, sizeof(path), "/proc/%d/comm", p->pid);
		read_line(path, e->comm, sizeof(e->comm));
	} else if (p->scope == THPCOW_SCOPE_CGROUP) {
		len = strlen(t->cgroup);
		if (len >= sizeof(e->path)) {
			e->flags |= THPCOW_ENTRY_PATH_TRUNCATED;
			len = sizeof(e->path) - 1;
		}
		memcpy(e->path, t->cgroup, len);
	}
}

/*
 * The path of the cgroup with id @id that the process @pid is in or below:
 * its own cgroup (/proc/PID/cgroup) or the nearest ancestor whose directory
 * has that inode number, which is a cgroup v2 id. NULL if not found.
 */
static const char *effective_cgroup(pid_t pid, unsigned long long id,
				    char *buf, size_t len)
{
	char mnt[PATH_MAX], path[PATH_MAX * 2], *slash;
	bool found = false;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (cgroup_mount_point(mnt, sizeof(mnt)) || !(f = fopen(path, "re")))
		return NULL;
	/* the cgroup v2 line, "0::/PATH", wherever it is (hybrid setups) */
	while (!found && fgets(buf, len, f))
		found = strncmp(buf, "0::/", 4) == 0;
	fclose(f);
	if (!found)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	memmove(buf, buf + 3, strlen(buf + 3) + 1);
	for (;;) {
		snprintf(path, sizeof(path), "%s%s", mnt,
			 strcmp(buf, "/") ? buf : "");
		if (stat(path, &st) == 0 && st.st_ino == id)
			return buf;
		slash = strrchr(buf, '/');
		if (!slash || !strcmp(buf, "/"))
			return NULL;
		slash[slash == buf] = '\0';
	}
}

static int cmd_get(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		OPT_SCOPE_ENTRIES,
		{ "json", no_argument, NULL, OPT_JSON },
		OPT_HELP_ENTRY,
		{ 0 }
	};
	struct field fields[ENTRY_FIELDS_MAX + 5];
	char cgroup[PATH_MAX];
	bool cgroup_known;
	struct thpcow_policy p;
	struct thpcow_entry e;
	struct policy_args a;
	struct target t;
	bool present;
	size_t n;
	int ret = policy_args(v, argc, argv, opts, false, &a);

	if (ret)
		return ret;
	if (policy_command(v, THPCOW_IOC_GET, &a.scope, 0, &p, &t))
		return EXIT_FAIL;
	/* the global default always exists, whatever the flag says */
	present = (p.flags & THPCOW_POLICY_PRESENT) ||
		  p.scope == THPCOW_SCOPE_GLOBAL;
	policy_entry(&p, &t, &e);
	n = entry_fields(&e, present, fields);
	fields[n++] = FIELD_BOOL("present", "present", present);
	if (p.scope == THPCOW_SCOPE_PID) {
		fields[n++] = FIELD_STR("effective mode", "effective_mode",
					mode_name(p.effective_mode));
		fields[n++] = FIELD_STR("effective scope", "effective_scope",
					scope_name(p.effective_scope));
		cgroup_known = p.effective_scope == THPCOW_SCOPE_CGROUP &&
			       p.effective_cgroup_id;
		fields[n++] = FIELD_STR("effective cgroup", "effective_cgroup",
					cgroup_known ?
					effective_cgroup(p.pid, p.effective_cgroup_id,
							 cgroup, sizeof(cgroup)) :
					NULL);
		fields[n++] = FIELD_UINT_IF("effective cgroup id",
					    "effective_cgroup_id",
					    p.effective_cgroup_id, cgroup_known);
	}
	print_fields(stdout, fields, n, a.json);
	return EXIT_OK;
}

const struct verb get_verb = {
	.name = "get", .fn = cmd_get,
	.summary = "show one policy (for a pid also the one in effect)",
	.synopsis = "(-p PID | -c PATH | -g) [-J]",
	.help = HELP_PID HELP_CGROUP_GLOBAL HELP_JSON,
};

static int cmd_list(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		OPT_TABLE_ENTRIES,
		OPT_HELP_ENTRY,
		{ 0 }
	};
	struct thpcow_entry *entries;
	struct table_opts o = { 0 };
	size_t n;
	int fd, ret, opt;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1)
		table_option(&o, opt, optarg);
	verb_no_args(v, argc, argv);
	ret = table_columns(v, list_cols, list_ncols, list_defaults, &o);
	if (ret)
		return ret;
	fd = device_open();
	if (fd < 0)
		return EXIT_FAIL;
	ret = device_list(fd, &entries, &n);
	close(fd);
	if (ret)
		return EXIT_FAIL;
	print_entries(stdout, entries, n, &o);
	free(entries);
	return EXIT_OK;
}

/* list --help: the columns -o takes */
static void list_columns_help(FILE *f)
{
	table_help(f, "Available output columns (-o)", list_cols, list_ncols);
}

const struct verb list_verb = {
	.name = "list", .fn = cmd_list,
	.summary = "list the pid and cgroup policies",
	.synopsis = SYNOPSIS_TABLE,
	.help = HELP_TABLE,
	.columns = list_columns_help,
};

/*
 * exec MODE [--children] -- COMMAND [ARG...]: a pid policy on our own pid,
 * which the exec keeps (same pid), then COMMAND in our place.
 */
static int cmd_exec(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "children", no_argument, NULL, OPT_CHILDREN },
		OPT_HELP_ENTRY,
		{ 0 }
	};
	struct scope_arg self = {
		.scope = THPCOW_SCOPE_PID, .given = 1, .pid = getpid(),
	};
	struct thpcow_policy p;
	struct target t;
	unsigned int mode;
	char **command;
	int dashes, ret, err, opt;

	for (dashes = 1; dashes < argc; dashes++)
		if (strcmp(argv[dashes], "--") == 0)
			break;
	/* options and MODE only before "--": COMMAND's own are its own */
	while ((opt = verb_getopt(v, dashes, argv, opts)) != -1)
		self.children |= opt == OPT_CHILDREN;
	if (optind == dashes)
		return usage_error(v, "missing MODE");
	ret = arg_mode(v, argv[optind++], &mode);
	if (ret)
		return ret;
	if (dashes == argc)
		return usage_error(v, "missing '--' before COMMAND");
	verb_no_args(v, dashes, argv);
	if (dashes + 1 == argc)
		return usage_error(v, "missing COMMAND");
	command = &argv[dashes + 1];

	if (policy_command(v, THPCOW_IOC_SET, &self, mode, &p, &t))
		return EXIT_FAIL;
	fflush(NULL);
	execvp(command[0], command);
	err = errno;
	ret = policy_command(v, THPCOW_IOC_CLEAR, &self, 0, &p, &t);
	error_msg("exec: %s: %s (the policy on pid %d was %s)", command[0],
		  strerror(err), self.pid, ret ? "left in place" : "cleared");
	return EXIT_NOEXEC;
}

const struct verb exec_verb = {
	.name = "exec", .fn = cmd_exec,
	.summary = "run COMMAND under MODE (a pid policy on itself)",
	.synopsis = "MODE [--children] -- COMMAND [ARG...]",
	.help = "  --children      processes COMMAND forks inherit the policy\n",
	.takes_mode = true,
};
