// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the rows of 'usage' and their three forms: a table, one JSON
 * object, and Prometheus' text exposition format (for node-exporter's
 * textfile collector).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output.h"
#include "parse.h"
#include "prom.h"
#include "table.h"
#include "thpcowctl.h"
#include "usage.h"

/* Which counter of enum thpcow_stat each usage counter is. */
static const unsigned char usage_stats[] = {
#define THPCOW_USAGE(NAME) THPCOW_STAT_##NAME,
#include "uapi/thpcow-stats.h"
};

_Static_assert(ARRAY_SIZE(usage_stats) == THPCOW_USAGE_NR, "thpcow-stats.h");

/* A usage counter's name: its counter's in enum thpcow_stat. */
const char *usage_name(unsigned int i)
{
	return stat_name(usage_stats[i], NULL, 0);
}

#define MIB	(1024ULL * 1024)

void usage_row_from_entry(const struct thpcow_usage_entry *e,
			  struct usage_row *r)
{
	unsigned int i, n = e->count < THPCOW_USAGE_NR ? e->count :
			    THPCOW_USAGE_NR;

	memset(r, 0, sizeof(*r));
	r->scope = e->scope;
	r->pid = e->pid;
	r->cgroup_id = e->cgroup_id;
	if (e->scope == THPCOW_SCOPE_PID)
		memcpy(r->name, e->comm, sizeof(e->comm));
	else if (e->scope == THPCOW_SCOPE_CGROUP)
		memcpy(r->name, e->path, sizeof(e->path));
	r->name[sizeof(r->name) - 1] = '\0';
	for (i = 0; i < n; i++) {
		r->counters[i] = e->counters[i];
		if (strncmp(usage_name(i), "fallback_", 9) == 0)
			r->fallbacks += e->counters[i];
	}
	r->given_bytes = e->thp_bytes;
}

/* memory.stat's "anon BYTES" and "anon_thp BYTES". */
void usage_parse_memory_stat(FILE *f, struct usage_row *r)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "anon_thp %llu", &r->kernel_thp_bytes) == 1)
			r->have_kernel = true;
		else if (sscanf(line, "anon %llu", &r->kernel_anon_bytes) == 1)
			r->have_anon = true;
	}
}

/* smaps_rollup's "Anonymous: N kB" and "AnonHugePages: N kB". */
void usage_parse_smaps_rollup(FILE *f, struct usage_row *r)
{
	char line[256];
	unsigned long long kb;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			r->kernel_thp_bytes = kb * 1024;
			r->have_kernel = true;
		} else if (sscanf(line, "Anonymous: %llu kB", &kb) == 1) {
			r->kernel_anon_bytes = kb * 1024;
			r->have_anon = true;
		}
	}
}

static const char *usage_scope(const struct usage_row *r)
{
	return r->scope == THPCOW_SCOPE_GLOBAL ? "other" : scope_name(r->scope);
}

enum { U_SCOPE, U_TARGET, U_SUBST, U_COPIED, U_SPLIT, U_FALLBACKS, U_THP_MIB,
       U_ANON_THP_MIB, U_THP_BYTES, U_ANON_THP_BYTES, U_PID, U_COMM, U_CGROUP,
       U_CGROUP_ID, U_COVERAGE, U_MACHINE, U_MACHINE_UUID };

#define STR	SCOLS_JSON_STRING
#define NUM	SCOLS_JSON_NUMBER
#define RIGHT	SCOLS_FL_RIGHT

const struct table_col usage_cols[] = {
	[U_SCOPE]	= { "SCOPE", 0, 0, STR, "cgroup, pid, or other (the rest)" },
	[U_TARGET]	= { "TARGET", 0, 0, STR,
			    "the cgroup's path, \"PID (comm)\" or (other)" },
	[U_SUBST]	= { "SUBSTITUTED", 0, RIGHT, NUM,
			    "huge zero page faults given a whole THP" },
	[U_COPIED]	= { "COPIED", 0, RIGHT, NUM, "shared THPs copied whole" },
	[U_SPLIT]	= { "SPLIT", 0, RIGHT, NUM, "huge PMDs split (mode split)" },
	[U_FALLBACKS]	= { "FALLBACKS", 0, RIGHT, NUM,
			    "faults that did not get a whole THP" },
	[U_THP_MIB]	= { "THP_MIB", 0, RIGHT, NUM,
			    "MiB thpcow gave as whole THPs" },
	[U_ANON_THP_MIB] = { "ANON_THP_MIB", 0, RIGHT, NUM,
			     "MiB of anonymous THPs now, as the kernel counts" },
	[U_THP_BYTES]	= { "THP_BYTES", 0, RIGHT, NUM, "THP_MIB in bytes" },
	[U_ANON_THP_BYTES] = { "ANON_THP_BYTES", 0, RIGHT, NUM,
			       "ANON_THP_MIB in bytes" },
	[U_PID]		= { "PID", 0, RIGHT, NUM, "the process (pid rows)" },
	[U_COMM]	= { "COMM", 0, 0, STR, "its name (pid rows)" },
	[U_CGROUP]	= { "CGROUP", 0, 0, STR,
			    "the cgroup's path (cgroup rows)" },
	[U_CGROUP_ID]	= { "CGROUP_ID", 0, RIGHT, NUM,
			    "the cgroup's id (cgroup rows)" },
	[U_COVERAGE]	= { "THP_PCT", 0, RIGHT, NUM,
			    "% of the anonymous memory in THPs, as the kernel counts" },
	[U_MACHINE]	= { "MACHINE", 0, 0, STR,
			    "the VM's name, from systemd-machined (cgroup rows)" },
	[U_MACHINE_UUID] = { "MACHINE_UUID", 0, 0, STR,
			     "the VM's UUID, from systemd-machined" },
};
const size_t usage_ncols = ARRAY_SIZE(usage_cols);
const char *const usage_defaults =
	"SCOPE,TARGET,SUBSTITUTED,COPIED,FALLBACKS,THP_MIB,ANON_THP_MIB";

/* One row; the kernel's figure "-" (JSON null) when it is not known. */
static void usage_table_row(struct table *t, const struct usage_row *r)
{
	const int name_len = (int)sizeof(r->name);

	table_new_row(t);
	table_cell(t, U_SCOPE, "%s", usage_scope(r));
	if (r->scope == THPCOW_SCOPE_PID)
		table_cell(t, U_TARGET, "%d (%.*s)", r->pid, name_len, r->name);
	else if (r->scope == THPCOW_SCOPE_CGROUP)
		table_cell(t, U_TARGET, "%.*s", name_len, r->name);
	else
		table_cell(t, U_TARGET, "(other)");
	table_cell(t, U_SUBST, "%llu", r->counters[THPCOW_USAGE_SUBSTITUTED]);
	table_cell(t, U_COPIED, "%llu", r->counters[THPCOW_USAGE_COPIED]);
	table_cell(t, U_SPLIT, "%llu", r->counters[THPCOW_USAGE_SPLIT]);
	table_cell(t, U_FALLBACKS, "%llu", r->fallbacks);
	table_cell(t, U_THP_MIB, "%llu", r->given_bytes / MIB);
	table_cell(t, U_THP_BYTES, "%llu", r->given_bytes);
	if (r->have_kernel) {
		table_cell(t, U_ANON_THP_MIB, "%llu", r->kernel_thp_bytes / MIB);
		table_cell(t, U_ANON_THP_BYTES, "%llu", r->kernel_thp_bytes);
	} else if (!t->o->json) {
		table_cell(t, U_ANON_THP_MIB, "-");
		table_cell(t, U_ANON_THP_BYTES, "-");
	}
	if (r->have_kernel && r->have_anon && r->kernel_anon_bytes)
		table_cell(t, U_COVERAGE, "%.1f", 100.0 * (double)r->kernel_thp_bytes /
			   (double)r->kernel_anon_bytes);
	else if (!t->o->json)
		table_cell(t, U_COVERAGE, "-");
	if (r->machine[0]) {
		table_cell(t, U_MACHINE, "%s", r->machine);
		table_cell(t, U_MACHINE_UUID, "%s", r->machine_uuid);
	}
	if (r->scope == THPCOW_SCOPE_PID) {
		table_cell(t, U_PID, "%d", r->pid);
		table_cell(t, U_COMM, "%.*s", name_len, r->name);
	} else if (r->scope == THPCOW_SCOPE_CGROUP) {
		table_cell(t, U_CGROUP, "%.*s", name_len, r->name);
		table_cell(t, U_CGROUP_ID, "%llu", r->cgroup_id);
	}
}

/* {"slots":N,"slots_used":N,"usage":[{...}, ...]} */
static void print_usage_json(FILE *f, const struct usage_row *rows, size_t n,
		      unsigned int slots, unsigned int slots_used)
{
	const struct usage_row *r;
	struct json j;
	size_t i, k;

	json_init(&j, f);
	json_object(&j, NULL);
	json_uint(&j, "slots", slots);
	json_uint(&j, "slots_used", slots_used);
	json_array(&j, "usage");
	for (i = 0; i < n; i++) {
		r = &rows[i];
		json_object(&j, NULL);
		json_string(&j, "scope", usage_scope(r));
		if (r->scope == THPCOW_SCOPE_PID) {
			json_uint(&j, "pid", (unsigned int)r->pid);
			json_string_n(&j, "comm", r->name, sizeof(r->name));
		} else if (r->scope == THPCOW_SCOPE_CGROUP) {
			json_string_n(&j, "cgroup", r->name, sizeof(r->name));
			json_uint(&j, "cgroup_id", r->cgroup_id);
			if (r->machine[0]) {
				json_string(&j, "machine", r->machine);
				json_string(&j, "machine_uuid", r->machine_uuid);
			}
		}
		for (k = 0; k < THPCOW_USAGE_NR; k++)
			json_uint(&j, usage_name(k), r->counters[k]);
		json_uint(&j, "fallbacks", r->fallbacks);
		json_uint(&j, "thp_bytes", r->given_bytes);
		json_uint(&j, "thp_mib", r->given_bytes / MIB);
		if (r->have_kernel)
			json_uint(&j, "anon_thp_bytes", r->kernel_thp_bytes);
		else
			json_null(&j, "anon_thp_bytes");
		if (r->have_anon)
			json_uint(&j, "anon_bytes", r->kernel_anon_bytes);
		else
			json_null(&j, "anon_bytes");
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

/*
 * The 'usage' output: a table (o's columns), or with -J the documented
 * {"slots":N,"slots_used":N,"usage":[...]} (with -o too: libsmartcols'
 * JSON of those columns).
 */
void print_usage_rows(FILE *f, const struct usage_row *rows, size_t n,
		      unsigned int slots, unsigned int slots_used,
		      const struct table_opts *o)
{
	struct table t;
	size_t i;

	if (o->json && !o->output) {
		print_usage_json(f, rows, n, slots, slots_used);
		return;
	}
	table_init(&t, usage_cols, o, "usage", f);
	for (i = 0; i < n; i++)
		usage_table_row(&t, &rows[i]);
	table_print(&t);
	table_free(&t);
}

/* The labels naming a row into l (room for USAGE_LABELS_MAX); how many. */
#define USAGE_LABELS_MAX	4
static size_t usage_labels(const struct usage_row *r, char *pid, size_t len,
			   struct prom_label *l)
{
	size_t n = 0;

	if (r->scope == THPCOW_SCOPE_PID) {
		snprintf(pid, len, "%d", r->pid);
		l[n++] = (struct prom_label){ "pid", pid, 0 };
		l[n++] = (struct prom_label){ "comm", r->name, sizeof(r->name) };
		return n;
	}
	l[n++] = (struct prom_label){ "scope", usage_scope(r), 0 };
	if (r->scope != THPCOW_SCOPE_CGROUP)
		return n;
	l[n++] = (struct prom_label){ "cgroup", r->name, sizeof(r->name) };
	if (r->machine[0]) {
		l[n++] = (struct prom_label){ "machine", r->machine, 0 };
		l[n++] = (struct prom_label){ "machine_uuid", r->machine_uuid, 0 };
	}
	return n;
}

/* One family's HELP and TYPE, and its sample for each row of pid (or not). */
struct usage_family {
	const char *name, *type, *help;
	/* the row's value; false: no sample for it */
	bool (*value)(const struct usage_row *r, unsigned int arg, double *v);
	unsigned int arg;
};

static bool usage_counter(const struct usage_row *r, unsigned int k, double *v)
{
	*v = (double)r->counters[k];
	return true;
}

static bool usage_given(const struct usage_row *r, unsigned int k, double *v)
{
	(void)k;
	*v = (double)r->given_bytes;
	return true;
}

static bool usage_anon_thp(const struct usage_row *r, unsigned int k, double *v)
{
	(void)k;
	*v = (double)r->kernel_thp_bytes;
	return r->have_kernel;
}

static bool usage_anon(const struct usage_row *r, unsigned int k, double *v)
{
	(void)k;
	*v = (double)r->kernel_anon_bytes;
	return r->have_anon;
}

static bool usage_coverage(const struct usage_row *r, unsigned int k, double *v)
{
	(void)k;
	if (!r->have_kernel || !r->have_anon || !r->kernel_anon_bytes)
		return false;
	*v = (double)r->kernel_thp_bytes / (double)r->kernel_anon_bytes;
	return true;
}

static void usage_family_print(FILE *f, const char *prefix,
			       const struct usage_family *fam,
			       const struct usage_row *rows, size_t n, bool pid)
{
	struct prom_label l[USAGE_LABELS_MAX + 1];
	char name[96], pidbuf[16];
	size_t i, k, nl;
	double v;

	snprintf(name, sizeof(name), "%s%s", prefix, fam->name);
	prom_family(f, name, fam->type, fam->help);
	for (i = 0; i < n; i++) {
		if ((rows[i].scope == THPCOW_SCOPE_PID) != pid)
			continue;
		nl = usage_labels(&rows[i], pidbuf, sizeof(pidbuf), l);
		if (fam->value) {
			if (fam->value(&rows[i], fam->arg, &v))
				prom_sample_double(f, name, l, nl, v);
			continue;
		}
		/* the fallbacks: one sample per reason */
		for (k = 0; k < THPCOW_USAGE_NR; k++) {
			if (strncmp(usage_name(k), "fallback_", 9))
				continue;
			l[nl] = (struct prom_label){ "reason", usage_name(k) + 9, 0 };
			prom_sample(f, name, l, nl + 1, rows[i].counters[k]);
		}
	}
}

/*
 * The text exposition format. thpcow_usage_* has the cgroup rows and the
 * other row, which together count every fault once: sum() over them is
 * the host's. A process with a pid rule counts in its cgroup's row too, so
 * its row is in thpcow_pid_rule_* (the same families), never summed with
 * them. The table's size and use as gauges; the kernel's THP and anonymous
 * memory and their ratio (THP coverage) where it can be read.
 */
void print_usage_prometheus(FILE *f, const struct usage_row *rows, size_t n,
			    unsigned int slots, unsigned int slots_used)
{
	static const struct usage_family fams[] = {
		{ "substituted_total", "counter",
		  "Write faults on the huge zero page given a whole THP",
		  usage_counter, THPCOW_USAGE_SUBSTITUTED },
		{ "copied_total", "counter",
		  "Shared anonymous THPs copied whole on a write fault",
		  usage_counter, THPCOW_USAGE_COPIED },
		{ "split_total", "counter",
		  "Huge PMDs split where the kernel would not have (mode split)",
		  usage_counter, THPCOW_USAGE_SPLIT },
		{ "fallbacks_total", "counter",
		  "Faults a policy covered that did not get a whole THP, by reason",
		  NULL, 0 },
		{ "thp_bytes_total", "counter",
		  "Bytes thpcow gave as whole THPs (substituted and copied)",
		  usage_given, 0 },
		{ "anon_thp_bytes", "gauge",
		  "Anonymous THP memory now, as the kernel counts it (memory.stat anon_thp, smaps_rollup AnonHugePages)",
		  usage_anon_thp, 0 },
		{ "anon_bytes", "gauge",
		  "Anonymous memory now, as the kernel counts it (memory.stat anon, smaps_rollup Anonymous)",
		  usage_anon, 0 },
		{ "thp_coverage_ratio", "gauge",
		  "The share of the anonymous memory in THPs now (anon_thp_bytes / anon_bytes)",
		  usage_coverage, 0 },
	};
	size_t i;
	bool pids = false;

	prom_family(f, "thpcow_usage_slots", "gauge",
		    "Rows the module's cgroup table holds at most");
	prom_sample(f, "thpcow_usage_slots", NULL, 0, slots);
	prom_family(f, "thpcow_usage_slots_used", "gauge",
		    "Rows of the module's cgroup table taken now (when full, new cgroups count in scope=\"other\")");
	prom_sample(f, "thpcow_usage_slots_used", NULL, 0, slots_used);
	for (i = 0; i < ARRAY_SIZE(fams); i++)
		usage_family_print(f, "thpcow_usage_", &fams[i], rows, n, false);
	for (i = 0; i < n; i++)
		pids |= rows[i].scope == THPCOW_SCOPE_PID;
	for (i = 0; pids && i < ARRAY_SIZE(fams); i++)
		usage_family_print(f, "thpcow_pid_rule_", &fams[i], rows, n, true);
}
