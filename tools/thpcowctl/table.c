// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: tables through libsmartcols (see table.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table.h"
#include "thpcowctl.h"

static void __attribute__((noreturn)) table_oom(void)
{
	error_msg("out of memory");
	exit(EXIT_FAIL);
}

static int find_col(const struct table_col *cols, size_t ncols,
		    const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len &&
		    strncasecmp(cols[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* Add the names of list to o->ids; -1 and *bad at an unknown one. */
static int add_cols(const struct table_col *cols, size_t ncols,
		    const char *list, struct table_opts *o,
		    const char **bad, size_t *badlen)
{
	const char *p = list, *end;
	size_t len;
	int id;

	for (;;) {
		end = strchrnul(p, ',');
		len = (size_t)(end - p);
		id = find_col(cols, ncols, p, len);
		if (id < 0 || o->n == TABLE_COLS_MAX) {
			*bad = p;
			*badlen = len;
			return -1;
		}
		o->ids[o->n++] = id;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int table_select(const struct table_col *cols, size_t ncols,
		 const char *defaults, struct table_opts *o,
		 const char **bad, size_t *badlen)
{
	const char *list = o->output;

	o->n = 0;
	if (!list || list[0] == '+') {
		if (add_cols(cols, ncols, defaults, o, bad, badlen))
			return -1;
		if (!list)
			return 0;
		list++;
	}
	return add_cols(cols, ncols, list, o, bad, badlen);
}

/*
 * A column's JSON key: its name in lower case, as lsblk's. libsmartcols 2.38
 * and later take it from scols_column_set_name(); older ones (Debian 11's
 * 2.36) have no such call and print the header lower-cased: the same key.
 */
static int set_json_key(struct libscols_column *cl, const char *name)
{
#ifdef HAVE_SCOLS_COLUMN_SET_NAME
	char key[64];
	size_t k;

	for (k = 0; name[k] && k + 1 < sizeof(key); k++)
		key[k] = (char)tolower((unsigned char)name[k]);
	key[k] = '\0';
	return scols_column_set_name(cl, key);
#else
	(void)cl;
	(void)name;
	return 0;
#endif
}

void table_init(struct table *t, const struct table_col *cols,
		const struct table_opts *o, const char *name, FILE *f)
{
	const struct table_col *c;
	struct libscols_column *cl;
	size_t i;

	t->o = o;
	t->line = NULL;
	t->tb = scols_new_table();
	if (!t->tb)
		table_oom();
	scols_table_set_stream(t->tb, f);
	scols_table_enable_noheadings(t->tb, o->noheadings);
	scols_table_enable_raw(t->tb, o->raw);
	scols_table_enable_json(t->tb, o->json);
	if (o->json && scols_table_set_name(t->tb, name))
		table_oom();
	for (i = 0; i < o->n; i++) {
		c = &cols[o->ids[i]];
		cl = scols_table_new_column(t->tb, c->name, c->whint, c->flags);
		if (!cl)
			table_oom();
		if (o->json && (set_json_key(cl, c->name) ||
				scols_column_set_json_type(cl, c->json_type)))
			table_oom();
	}
}

void table_new_row(struct table *t)
{
	t->line = scols_table_new_line(t->tb, NULL);
	if (!t->line)
		table_oom();
}

void table_cell(struct table *t, int id, const char *fmt, ...)
{
	va_list ap;
	size_t i;
	char *s;
	int ret;

	for (i = 0; i < t->o->n; i++) {
		if (t->o->ids[i] != id)
			continue;
		va_start(ap, fmt);
		ret = vasprintf(&s, fmt, ap);
		va_end(ap);
		/* the line owns s from here */
		if (ret < 0 || scols_line_refer_data(t->line, i, s))
			table_oom();
		/* a column chosen twice gets its cell twice */
	}
}

void table_print(struct table *t)
{
	scols_print_table(t->tb);
}

/* libsmartcols prints a range without its last newline: add it. */
void table_print_last(struct table *t)
{
	FILE *f = scols_table_get_stream(t->tb);

	scols_table_print_range(t->tb, t->line, t->line);
	fputc('\n', f);
}

void table_free(struct table *t)
{
	scols_unref_table(t->tb);
	t->tb = NULL;
}

void table_help(FILE *f, const char *title, const struct table_col *cols,
		size_t ncols)
{
	size_t i;

	fprintf(f, "\n%s:\n", title);
	for (i = 0; i < ncols; i++)
		fprintf(f, "  %-19s %s\n", cols[i].name, cols[i].help);
}
