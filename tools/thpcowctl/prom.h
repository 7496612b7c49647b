/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: Prometheus' text exposition format (version 0.0.4), for
 * node-exporter's textfile collector; what 'stats --format prometheus' and
 * 'usage --format prometheus' share: a family's HELP and TYPE, and samples
 * with their labels escaped.
 */
#ifndef THPCOWCTL_PROM_H
#define THPCOWCTL_PROM_H

#include <stddef.h>
#include <stdio.h>

/* One label; value NUL-terminated, or at most max bytes if max != 0. */
struct prom_label {
	const char *name;
	const char *value;
	size_t max;
};

/* "# HELP name help." and "# TYPE name type"; help escaped. */
void prom_family(FILE *f, const char *name, const char *type,
		 const char *help);
/* "name{labels} value"; no braces without labels. */
void prom_sample(FILE *f, const char *name, const struct prom_label *l,
		 size_t nl, unsigned long long value);
/* The same for a value that need not be an integer (a ratio). */
void prom_sample_double(FILE *f, const char *name, const struct prom_label *l,
			size_t nl, double value);

#endif /* THPCOWCTL_PROM_H */
