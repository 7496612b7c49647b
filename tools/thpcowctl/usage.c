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

/* The row's TARGET cell: the cgroup's path, "PID (comm)", or "(other)". */
static char *usage_target(const struct usage_row *r)
{
	char *buf = NULL;
	size_t len;
	FILE *m = xmemstream(&buf, &len);

	if (r->scope == THPCOW_SCOPE_PID) {
		fprintf(m, "%d (", r->pid);
		fput_text(m, r->name, sizeof(r->name));
		fputc(')', m);
	} else if (r->scope == THPCOW_SCOPE_CGROUP) {
		fput_text(m, r->name, sizeof(r->name));
	} else {
		fputs("(other)", m);
	}
	fclose(m);
	return buf;
}

static const struct column usage_columns[] = {
	{ "SCOPE", false },
	{ "TARGET", false },
	{ "SUBSTITUTED", true },
	{ "COPIED", true },
	{ "FALLBACKS", true },
	{ "THP_MIB", true },
	{ "ANON_THP_MIB", true },
};

#define USAGE_NCOLS	ARRAY_SIZE(usage_columns)

static const char *usage_scope(const struct usage_row *r)
{
	return r->scope == THPCOW_SCOPE_GLOBAL ? "other" : scope_name(r->scope);
}

/* One line per row; MiB given as whole THPs, and the kernel's THP MiB. */
void print_usage_table(FILE *f, const struct usage_row *rows, size_t n)
{
	char **cells = calloc(n * USAGE_NCOLS + 1, sizeof(*cells));
	const struct usage_row *r;
	size_t i;

	if (!cells) {
		error_msg("out of memory");
		exit(EXIT_FAIL);
	}
	for (i = 0; i < n; i++) {
		r = &rows[i];
		cells[i * USAGE_NCOLS + 0] = xasprintf("%s", usage_scope(r));
		cells[i * USAGE_NCOLS + 1] = usage_target(r);
		cells[i * USAGE_NCOLS + 2] =
			xasprintf("%llu", r->counters[THPCOW_USAGE_SUBSTITUTED]);
		cells[i * USAGE_NCOLS + 3] =
			xasprintf("%llu", r->counters[THPCOW_USAGE_COPIED]);
		cells[i * USAGE_NCOLS + 4] = xasprintf("%llu", r->fallbacks);
		cells[i * USAGE_NCOLS + 5] = xasprintf("%llu", r->given_bytes / MIB);
		cells[i * USAGE_NCOLS + 6] = r->have_kernel ?
			xasprintf("%llu", r->kernel_thp_bytes / MIB) :
			xasprintf("-");
	}
	print_table(f, usage_columns, USAGE_NCOLS, cells, n);
	for (i = 0; i < n * USAGE_NCOLS; i++)
		free(cells[i]);
	free(cells);
}

/* {"slots":N,"slots_used":N,"usage":[{...}, ...]} */
void print_usage_json(FILE *f, const struct usage_row *rows, size_t n,
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

/* A label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *f, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++) {
		if (s[i] == '\\' || s[i] == '"')
			fputc('\\', f);
		if (s[i] == '\n')
			fputs("\\n", f);
		else
			fputc(s[i], f);
	}
}

/* The labels naming a row, without the braces. */
static void prom_labels(FILE *f, const struct usage_row *r)
{
	fprintf(f, "scope=\"%s\"", usage_scope(r));
	if (r->scope == THPCOW_SCOPE_CGROUP) {
		fputs(",cgroup=\"", f);
		prom_label(f, r->name, sizeof(r->name));
		fputc('"', f);
	} else if (r->scope == THPCOW_SCOPE_PID) {
		fprintf(f, ",pid=\"%d\",comm=\"", r->pid);
		prom_label(f, r->name, sizeof(r->name));
		fputc('"', f);
	}
}

static void prom_family(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
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
		  "Write faults on the huge zero page given a whole THP." },
		{ THPCOW_USAGE_COPIED, "thpcow_usage_copied_total",
		  "Shared anonymous THPs copied whole on a write fault." },
		{ THPCOW_USAGE_SPLIT, "thpcow_usage_split_total",
		  "Huge PMDs split where the kernel would not have (mode split)." },
	};
	const char *fb = "thpcow_usage_fallbacks_total";
	size_t i, p, k;

	for (p = 0; p < ARRAY_SIZE(plain); p++) {
		prom_family(f, plain[p].name, "counter", plain[p].help);
		for (i = 0; i < n; i++) {
			fprintf(f, "%s{", plain[p].name);
			prom_labels(f, &rows[i]);
			fprintf(f, "} %llu\n", rows[i].counters[plain[p].idx]);
		}
	}
	prom_family(f, fb, "counter",
		    "Faults a policy covered that did not get a whole THP, by reason.");
	for (i = 0; i < n; i++)
		for (k = 0; k < THPCOW_USAGE_NR; k++) {
			if (strncmp(usage_names[k], "fallback_", 9))
				continue;
			fprintf(f, "%s{", fb);
			prom_labels(f, &rows[i]);
			fprintf(f, ",reason=\"%s\"} %llu\n", usage_names[k] + 9,
				rows[i].counters[k]);
		}
	prom_family(f, "thpcow_usage_thp_bytes_total", "counter",
		    "Bytes thpcow gave as whole THPs (substituted and copied).");
	for (i = 0; i < n; i++) {
		fputs("thpcow_usage_thp_bytes_total{", f);
		prom_labels(f, &rows[i]);
		fprintf(f, "} %llu\n", rows[i].given_bytes);
	}
	prom_family(f, "thpcow_usage_anon_thp_bytes", "gauge",
		    "Anonymous THP memory now, as the kernel counts it (memory.stat anon_thp, smaps_rollup AnonHugePages).");
	for (i = 0; i < n; i++) {
		if (!rows[i].have_kernel)
			continue;
		fputs("thpcow_usage_anon_thp_bytes{", f);
		prom_labels(f, &rows[i]);
		fprintf(f, "} %llu\n", rows[i].kernel_thp_bytes);
	}
}
