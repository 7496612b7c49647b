/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: tables through libsmartcols, the way lsblk, findmnt and
 * zramctl print theirs: columns declared once in a table of struct
 * table_col, chosen with -o/--output, without headings (-n), raw (-r), or
 * as libsmartcols' JSON when -J comes with -o.
 */
#ifndef THPCOWCTL_TABLE_H
#define THPCOWCTL_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include <libsmartcols.h>

#define TABLE_COLS_MAX	64

/* One column a verb can show; a table of them is the verb's -o choice. */
struct table_col {
	const char *name;	/* the header, as -o takes it */
	double whint;		/* width hint: < 1 a share of the line, else columns */
	int flags;		/* SCOLS_FL_RIGHT, SCOLS_FL_TRUNC, ... */
	int json_type;		/* SCOLS_JSON_STRING or SCOLS_JSON_NUMBER */
	const char *help;	/* one line, for VERB --help and thpcowctl(8) */
};

/* What -o, -n, -r and -J said, and the columns chosen. */
struct table_opts {
	const char *output;	/* -o LIST (NULL: the defaults) */
	bool noheadings;	/* -n */
	bool raw;		/* -r */
	bool json;		/* -J/--json */
	int ids[TABLE_COLS_MAX];	/* the chosen columns, in order */
	size_t n;
};

/*
 * The columns of list (a comma-separated list of names, any case; a
 * leading '+' adds them to defaults) into o->ids. Returns 0, or -1 with
 * *bad pointing at the name that is not a column (and its length in
 * *badlen).
 */
int table_select(const struct table_col *cols, size_t ncols,
		 const char *defaults, struct table_opts *o,
		 const char **bad, size_t *badlen);

struct table {
	struct libscols_table *tb;
	const struct table_opts *o;
	struct libscols_line *line;	/* the row being filled */
};

/* A table of o's columns printing to f; name is the JSON array's key. */
void table_init(struct table *t, const struct table_col *cols,
		const struct table_opts *o, const char *name, FILE *f);
void table_new_row(struct table *t);
/* The cell of column id in the current row (nothing if not chosen). */
void table_cell(struct table *t, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints all rows; or only the last (the header too before the first). */
void table_print(struct table *t);
void table_print_last(struct table *t);
void table_free(struct table *t);

/* A title, then "NAME  help" lines of the columns, for VERB --help. */
void table_help(FILE *f, const char *title, const struct table_col *cols,
		size_t ncols);

#endif /* THPCOWCTL_TABLE_H */
