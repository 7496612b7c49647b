// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the Prometheus text exposition format (see prom.h). */
#include <string.h>

#include "prom.h"

/*
 * s escaped as the format wants: backslash and newline always, the double
 * quote in label values only.
 */
static void prom_escape(FILE *f, const char *s, size_t max, int quote)
{
	size_t i, n = max ? strnlen(s, max) : strlen(s);

	for (i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\\\", f);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else if (s[i] == '"' && quote)
			fputs("\\\"", f);
		else
			fputc(s[i], f);
	}
}

void prom_family(FILE *f, const char *name, const char *type,
		 const char *help)
{
	fprintf(f, "# HELP %s ", name);
	prom_escape(f, help, 0, 0);
	fprintf(f, ".\n# TYPE %s %s\n", name, type);
}

static void prom_name(FILE *f, const char *name, const struct prom_label *l,
		      size_t nl)
{
	size_t i;

	fputs(name, f);
	for (i = 0; i < nl; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', l[i].name);
		prom_escape(f, l[i].value, l[i].max, 1);
		fputc('"', f);
	}
	if (nl)
		fputc('}', f);
}

void prom_sample(FILE *f, const char *name, const struct prom_label *l,
		 size_t nl, unsigned long long value)
{
	prom_name(f, name, l, nl);
	fprintf(f, " %llu\n", value);
}

void prom_sample_double(FILE *f, const char *name, const struct prom_label *l,
			size_t nl, double value)
{
	unsigned long long whole = (unsigned long long)value;

	prom_name(f, name, l, nl);
	/* integers as integers (counters, bytes); a ratio to 6 digits */
	if ((double)whole == value && value < 1e15)
		fprintf(f, " %llu\n", whole);
	else
		fprintf(f, " %.6g\n", value);
}
