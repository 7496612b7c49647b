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

const char *const usage_names[THPCOW_USAGE_NR] = THPCOW_USAGE_NAMES;

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
		if (strncmp(usage_names[i], "fallback_", 9) == 0)
			r->fallbacks += e->counters[i];
	}
	r->given_bytes = e->thp_bytes;
}

/* memory.stat's "anon_thp BYTES"; 0, or -1 if absent. */
int usage_parse_memory_stat(FILE *f, unsigned long long *bytes)
{
	char line[256];

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "anon_thp %llu", bytes) == 1)
			return 0;
	return -1;
}

/* smaps_rollup's "AnonHugePages: N kB"; 0, or -1 if absent. */
int usage_parse_smaps_rollup(FILE *f, unsigned long long *bytes)
{
	char line[256];
	unsigned long long kb;

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			*bytes = kb * 1024;
			return 0;
		}
	return -1;
}

static const char *usage_scope(const struct usage_row *r)
{
	return r->scope == THPCOW_SCOPE_GLOBAL ? "other" : scope_name(r->scope);
}

enum { U_SCOPE, U_TARGET, U_SUBST, U_COPIED, U_SPLIT, U_FALLBACKS, U_THP_MIB,
       U_ANON_THP_MIB, U_THP_BYTES, U_ANON_THP_BYTES, U_PID, U_COMM, U_CGROUP,
       U_CGROUP_ID };

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
		}
		for (k = 0; k < THPCOW_USAGE_NR; k++)
			json_uint(&j, usage_names[k], r->counters[k]);
		json_uint(&j, "fallbacks", r->fallbacks);
		json_uint(&j, "thp_bytes", r->given_bytes);
		json_uint(&j, "thp_mib", r->given_bytes / MIB);
		if (r->have_kernel)
			json_uint(&j, "anon_thp_bytes", r->kernel_thp_bytes);
		else
			json_null(&j, "anon_thp_bytes");
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

	l[n++] = (struct prom_label){ "scope", usage_scope(r), 0 };
	if (r->scope == THPCOW_SCOPE_CGROUP) {
		l[n++] = (struct prom_label){ "cgroup", r->name, sizeof(r->name) };
	} else if (r->scope == THPCOW_SCOPE_PID) {
		snprintf(pid, len, "%d", r->pid);
		l[n++] = (struct prom_label){ "pid", pid, 0 };
		l[n++] = (struct prom_label){ "comm", r->name, sizeof(r->name) };
	}
	return n;
}

/*
 * The text exposition format: thpcow_usage_<counter>_total (the
 * fallbacks as one family with a reason label), thpcow_usage_thp_bytes_total
 * and, from the kernel, thpcow_usage_anon_thp_bytes.
 */
void print_usage_prometheus(FILE *f, const struct usage_row *rows, size_t n)
{
	static const struct {
		unsigned int idx;
		const char *name, *help;
	} plain[] = {
		{ THPCOW_USAGE_SUBSTITUTED, "thpcow_usage_substituted_total",
		  "Write faults on the huge zero page given a whole THP" },
		{ THPCOW_USAGE_COPIED, "thpcow_usage_copied_total",
		  "Shared anonymous THPs copied whole on a write fault" },
		{ THPCOW_USAGE_SPLIT, "thpcow_usage_split_total",
		  "Huge PMDs split where the kernel would not have (mode split)" },
	};
	const char *fb = "thpcow_usage_fallbacks_total";
	struct prom_label l[USAGE_LABELS_MAX + 1];
	char pid[16];
	size_t i, p, k, nl;

	for (p = 0; p < ARRAY_SIZE(plain); p++) {
		prom_family(f, plain[p].name, "counter", plain[p].help);
		for (i = 0; i < n; i++) {
			nl = usage_labels(&rows[i], pid, sizeof(pid), l);
			prom_sample(f, plain[p].name, l, nl,
				    rows[i].counters[plain[p].idx]);
		}
	}
	prom_family(f, fb, "counter",
		    "Faults a policy covered that did not get a whole THP, by reason");
	for (i = 0; i < n; i++) {
		nl = usage_labels(&rows[i], pid, sizeof(pid), l);
		for (k = 0; k < THPCOW_USAGE_NR; k++) {
			if (strncmp(usage_names[k], "fallback_", 9))
				continue;
			l[nl] = (struct prom_label){ "reason", usage_names[k] + 9, 0 };
			prom_sample(f, fb, l, nl + 1, rows[i].counters[k]);
		}
	}
	prom_family(f, "thpcow_usage_thp_bytes_total", "counter",
		    "Bytes thpcow gave as whole THPs (substituted and copied)");
	for (i = 0; i < n; i++) {
		nl = usage_labels(&rows[i], pid, sizeof(pid), l);
		prom_sample(f, "thpcow_usage_thp_bytes_total", l, nl,
			    rows[i].given_bytes);
	}
	prom_family(f, "thpcow_usage_anon_thp_bytes", "gauge",
		    "Anonymous THP memory now, as the kernel counts it (memory.stat anon_thp, smaps_rollup AnonHugePages)");
	for (i = 0; i < n; i++) {
		if (!rows[i].have_kernel)
			continue;
		nl = usage_labels(&rows[i], pid, sizeof(pid), l);
		prom_sample(f, "thpcow_usage_anon_thp_bytes", l, nl,
			    rows[i].kernel_thp_bytes);
	}
}
