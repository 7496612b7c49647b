// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl usage: what the module did per cgroup and per process with a
 * pid rule, next to what the kernel counts as THP memory there.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "cmd_usage.h"
#include "device.h"
#include "machines.h"
#include "output.h"
#include "thpcowctl.h"
#include "usage.h"

struct usage_args {
	struct scope_arg scope;		/* --cgroup or --pid, or none */
	const char *machine;		/* --machine NAME, or NULL */
	enum output_format format;
	struct table_opts o;		/* -o, -n, -r, -J */
};

static int usage_args(const struct verb *v, int argc, char *argv[],
		      struct usage_args *a)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "machine", required_argument, NULL, OPT_MACHINE },
		OPT_TABLE_ENTRIES,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool format = false;
	int opt, ret;

	memset(a, 0, sizeof(*a));
	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (table_option(&a->o, opt, optarg)) {
			continue;
		} else if (opt == OPT_MACHINE) {
			a->machine = optarg;
		} else if (opt == OPT_FORMAT) {
			format = true;
			ret = arg_format(v, optarg, &a->format);
			if (ret)
				return ret;
		} else {
			ret = scope_option(&a->scope, opt, optarg);
			if (ret < 0)
				return number_error(v, "PID", optarg, ret);
		}
	}
	verb_no_args(v, argc, argv);
	if (a->scope.given + !!a->machine > 1)
		return usage_error(v, "--pid, --cgroup and --machine are mutually exclusive");
	if (a->o.json && format)
		return usage_error(v, "--json and --format are mutually exclusive");
	if (a->format == FORMAT_JSON)
		a->o.json = true;
	if (a->format == FORMAT_PROMETHEUS &&
	    (a->o.output || a->o.noheadings || a->o.raw))
		return usage_error(v, "--format prometheus takes none of -o, -n, -r");
	return table_columns(v, usage_cols, usage_ncols, usage_defaults, &a->o);
}

/* The kernel's own THP and anonymous figures for the row's memory. */
static void usage_kernel_figure(const char *mnt, struct usage_row *r)
{
	char path[PATH_MAX + 32];
	FILE *f;

	if (r->scope == THPCOW_SCOPE_CGROUP && mnt)
		snprintf(path, sizeof(path), "%s%s/memory.stat", mnt,
			 strcmp(r->name, "/") ? r->name : "");
	else if (r->scope == THPCOW_SCOPE_PID)
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", r->pid);
	else
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	if (r->scope == THPCOW_SCOPE_PID)
		usage_parse_smaps_rollup(f, r);
	else
		usage_parse_memory_stat(f, r);
	fclose(f);
}

/*
 * Name each cgroup row by systemd-machined's VM, if it is one's; with
 * --machine NAME keep only NAME's rows. Returns 0, or -1 reported.
 */
static int usage_machines(const char *only, struct usage_row *rows, size_t *n)
{
	const struct machine *m;
	struct machine *all;
	size_t i, count, kept = 0;
	bool known = false;

	if (machines_read(machines_dir(), &all, &count))
		return -1;
	for (i = 0; i < count && only; i++)
		known |= strcmp(all[i].name, only) == 0;
	if (only && !known) {
		error_msg("machine %s: not known to systemd-machined (%s)", only,
			  machines_dir());
		free(all);
		return -1;
	}
	for (i = 0; i < *n; i++) {
		m = rows[i].scope == THPCOW_SCOPE_CGROUP ?
		    machine_of_cgroup(all, count, rows[i].name,
				      sizeof(rows[i].name)) : NULL;
		if (m) {
			snprintf(rows[i].machine, sizeof(rows[i].machine), "%s",
				 m->name);
			snprintf(rows[i].machine_uuid,
				 sizeof(rows[i].machine_uuid), "%s", m->uuid);
		}
		if (!only || (m && strcmp(m->name, only) == 0))
			rows[kept++] = rows[i];
	}
	*n = kept;
	free(all);
	return 0;
}

/*
 * Keep only the rows --cgroup or --pid asks for. A cgroup with no row yet
 * gets one of zeros; a process without a pid rule is an error, as its
 * memory counts in its cgroup's row. Returns 0 or -1.
 */
static int usage_filter(const struct scope_arg *s, struct usage_row **rows,
			size_t *n)
{
	struct usage_row *r = *rows, *one;
	struct target t;
	struct stat st = { 0 };
	size_t i, kept = 0;
	char proc[32];

	if (!s->given)
		return 0;
	if (s->scope == THPCOW_SCOPE_CGROUP) {
		if (target_open(s, &t))
			return -1;
		if (fstat(t.cgroup_fd, &st)) {
			error_msg("%s: %s", t.cgroup_abs, strerror(errno));
			target_close(&t);
			return -1;
		}
		target_close(&t);
	} else {
		snprintf(proc, sizeof(proc), "/proc/%d", s->pid);
		if (access(proc, F_OK)) {
			error_msg("no such process: %d", s->pid);
			return -1;
		}
	}
	for (i = 0; i < *n; i++)
		if (r[i].scope == s->scope &&
		    (s->scope == THPCOW_SCOPE_PID ? r[i].pid == s->pid :
		     r[i].cgroup_id == (unsigned long long)st.st_ino))
			r[kept++] = r[i];
	*n = kept;
	if (kept)
		return 0;
	if (s->scope == THPCOW_SCOPE_PID) {
		error_msg("pid %d: no pid rule covers it; its memory counts in its cgroup's row (see 'get --pid %d')",
			  s->pid, s->pid);
		return -1;
	}
	one = realloc(r, sizeof(*r));
	if (!one) {
		error_msg("usage: %s", strerror(ENOMEM));
		return -1;
	}
	memset(one, 0, sizeof(*one));
	one->scope = THPCOW_SCOPE_CGROUP;
	one->cgroup_id = st.st_ino;
	snprintf(one->name, sizeof(one->name), "%.*s",
		 (int)sizeof(one->name) - 1, t.cgroup);
	*rows = one;
	*n = 1;
	return 0;
}

static int cmd_usage(const struct verb *v, int argc, char *argv[])
{
	struct thpcow_usage_entry *entries;
	struct usage_row *rows;
	struct usage_args a;
	char mnt[PATH_MAX];
	bool have_mnt;
	struct thpcow_usage arg;
	size_t i, n;
	int fd, ret = usage_args(v, argc, argv, &a);

	if (ret)
		return ret;
	fd = device_open();
	if (fd < 0)
		return EXIT_FAIL;
	ret = device_usage(fd, &entries, &n, &arg);
	close(fd);
	if (ret)
		return EXIT_FAIL;
	rows = calloc(n + 1, sizeof(*rows));
	if (!rows) {
		free(entries);
		error_msg("usage: %s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++)
		usage_row_from_entry(&entries[i], &rows[i]);
	free(entries);
	if (usage_filter(&a.scope, &rows, &n) ||
	    usage_machines(a.machine, rows, &n)) {
		free(rows);
		return EXIT_FAIL;
	}
	have_mnt = cgroup_mount_point(mnt, sizeof(mnt)) == 0;
	for (i = 0; i < n; i++)
		usage_kernel_figure(have_mnt ? mnt : NULL, &rows[i]);
	if (a.format == FORMAT_PROMETHEUS)
		print_usage_prometheus(stdout, rows, n, arg.slots,
				       arg.slots_used);
	else
		print_usage_rows(stdout, rows, n, arg.slots, arg.slots_used,
				 &a.o);
	free(rows);
	return EXIT_OK;
}

/* usage --help: the columns -o takes */
static void usage_columns_help(FILE *f)
{
	table_help(f, "Available output columns (-o)", usage_cols, usage_ncols);
}

const struct verb usage_verb = {
	.name = "usage", .fn = cmd_usage,
	.summary = "show what thpcow did per cgroup and per pid rule",
	.synopsis = "[-c PATH | -p PID | -m NAME] " SYNOPSIS_TABLE " [--format FORMAT]",
	.help = "  -c, --cgroup PATH\n"
		"                  only this cgroup v2 directory's row (as for get)\n"
		"  -p, --pid PID   only the row of this process's pid rule\n"
		"  -m, --machine NAME\n"
		"                  only the rows of this VM (systemd-machined's name)\n"
		HELP_TABLE HELP_FORMAT,
	.columns = usage_columns_help,
};
