/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: the rows of 'usage'. A row is built from the module's entry
 * and the kernel's own figure for the same memory (memory.stat anon_thp,
 * or smaps_rollup AnonHugePages); the printers only format rows.
 */
#ifndef THPCOWCTL_USAGE_H
#define THPCOWCTL_USAGE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <uapi/thpcow.h>

#include "table.h"

struct usage_row {
	unsigned int scope;		/* enum thpcow_scope; global: other */
	pid_t pid;
	unsigned long long cgroup_id;
	char name[THPCOW_PATH_LEN];	/* the cgroup's path or the comm */
	unsigned long long counters[THPCOW_USAGE_NR];
	unsigned long long fallbacks;	/* the fallback_* counters summed */
	unsigned long long given_bytes;	/* given as whole THPs */
	bool have_kernel;		/* kernel_thp_bytes is known */
	unsigned long long kernel_thp_bytes;
	bool have_anon;			/* kernel_anon_bytes is known */
	unsigned long long kernel_anon_bytes;	/* anonymous memory, all of it */
	char machine[256];		/* systemd-machined's name, or "" */
	char machine_uuid[40];
};

/* i < THPCOW_USAGE_NR */
const char *usage_name(unsigned int i);

void usage_row_from_entry(const struct thpcow_usage_entry *e,
			  struct usage_row *r);
/* The kernel's THP and anonymous figures into r (have_kernel, have_anon). */
void usage_parse_memory_stat(FILE *f, struct usage_row *r);
void usage_parse_smaps_rollup(FILE *f, struct usage_row *r);

/* usage's columns; its table, or -J's JSON (with -o: the columns'). */
extern const struct table_col usage_cols[];
extern const size_t usage_ncols;
extern const char *const usage_defaults;
void print_usage_rows(FILE *f, const struct usage_row *rows, size_t n,
		      unsigned int slots, unsigned int slots_used,
		      const struct table_opts *o);
void print_usage_prometheus(FILE *f, const struct usage_row *rows, size_t n,
			    unsigned int slots, unsigned int slots_used);

#endif /* THPCOWCTL_USAGE_H */
