/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: the verb table's shape, and what the verbs share to read their
 * command lines: the option values, the option tables and help lines of
 * options several verbs take, getopt_long() with -h, checked numbers and
 * modes, usage errors (exit status 2), and a verb's --help.
 */
#ifndef THPCOWCTL_ARGS_H
#define THPCOWCTL_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A verb's table entry, in the verb's own file beside its option table;
 * main.c lists the entries. Its --help is generated from it (verb_help()):
 * "Usage: thpcowctl NAME SYNOPSIS", the summary as a sentence, the help's
 * option lines and -h, then the modes and the columns if it takes them.
 */
struct verb {
	const char *name;
	int (*fn)(const struct verb *v, int argc, char *argv[]);
	const char *summary;	/* one line for 'thpcowctl --help' */
	const char *synopsis;	/* after 'thpcowctl NAME ' */
	const char *help;	/* option lines for 'thpcowctl NAME --help' */
	bool takes_mode;	/* help lists the mode names */
	void (*columns)(FILE *f);	/* help: the columns -o takes */
	int usage_status;	/* a usage error's exit status; 0: EXIT_USAGE */
};

/*
 * Option values shared by the verbs. A printable one is also the short
 * option (verb_getopt() makes the short options from the long ones).
 */
enum {
	OPT_PID		= 'p',
	OPT_CGROUP	= 'c',
	OPT_GLOBAL	= 'g',
	OPT_JSON	= 'J',
	OPT_OUTPUT	= 'o',
	OPT_NOHEADINGS	= 'n',
	OPT_RAW		= 'r',
	OPT_MACHINE	= 'm',
	OPT_CHILDREN	= 0x100,
	OPT_WATCH,
	OPT_COUNT,
	OPT_DEFAULT,
	OPT_PATH,
	OPT_DURATION,
	OPT_CHECK,
	OPT_CONDITION,
	OPT_FORMAT,
};

/* The long options of a table: -o, -n, -r, -J (see table.h). */
#define OPT_TABLE_ENTRIES					\
	{ "json", no_argument, NULL, OPT_JSON },		\
	{ "output", required_argument, NULL, OPT_OUTPUT },	\
	{ "noheadings", no_argument, NULL, OPT_NOHEADINGS },	\
	{ "raw", no_argument, NULL, OPT_RAW }

/* ... their synopsis and help lines */
#define SYNOPSIS_TABLE	"[-J] [-o COLUMNS] [-n] [-r]"
#define HELP_TABLE \
	"  -o, --output COLUMNS\n" \
	"                  the columns to show, comma-separated; +COLUMNS adds\n" \
	"                  them to the default ones\n" \
	"  -n, --noheadings\n" \
	"                  no header line\n" \
	"  -r, --raw       one space between columns, no alignment; blanks and\n" \
	"                  other unsafe characters as \\xNN\n" \
	"  -J, --json      one JSON object (see thpcowctl(8)); with -o, the\n" \
	"                  chosen columns as libsmartcols writes JSON\n"

/* --format FORMAT (stats, usage): the table, -J's JSON, or Prometheus */
enum output_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_PROMETHEUS };
#define HELP_FORMAT \
	"      --format FORMAT\n" \
	"                  text (the table), json (as -J) or prometheus\n" \
	"                  (the text exposition format, for node-exporter)\n"

/* The help lines of -J alone and of -p. */
#define HELP_JSON \
	"  -J, --json      print one JSON object (see thpcowctl(8))\n"
#define HELP_PID \
	"  -p, --pid PID   a process (thread group)\n"

struct table_col;
struct table_opts;

void verb_help(const struct verb *v, FILE *f);
int verb_getopt(const struct verb *v, int argc, char *argv[],
		const struct option *longopts);
int usage_error(const struct verb *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int number_error(const struct verb *v, const char *what, const char *arg,
		 int err);
int arg_uint(const struct verb *v, const char *what, const char *arg,
	     unsigned long long max, unsigned long long *out);
int arg_mode(const struct verb *v, const char *arg, unsigned int *mode);
int arg_format(const struct verb *v, const char *arg,
	       enum output_format *format);
void verb_no_args(const struct verb *v, int argc, char *argv[]);
bool table_option(struct table_opts *o, int opt, const char *arg);
int table_columns(const struct verb *v, const struct table_col *cols,
		  size_t ncols, const char *defaults, struct table_opts *o);

#endif /* THPCOWCTL_ARGS_H */
