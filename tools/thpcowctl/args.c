// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the command-line helpers every verb calls (see args.h): a
 * verb's --help, its getopt_long(), usage errors and checked arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "parse.h"
#include "table.h"
#include "thpcowctl.h"

/* 'thpcowctl VERB --help' (and 'thpcowctl help VERB'), from v's entry. */
void verb_help(const struct verb *v, FILE *f)
{
	fprintf(f, "Usage: " PROGRAM_NAME " %s%s%s\n\n%c%s.\n\nOptions:\n%s"
		"  -h, --help      show this help\n",
		v->name, v->synopsis[0] ? " " : "", v->synopsis,
		toupper((unsigned char)v->summary[0]), v->summary + 1,
		v->help ? v->help : "");
	if (v->takes_mode)
		fprintf(f, "\nMODE is one of: %s.\n", mode_list());
	if (v->columns)
		v->columns(f);
}

/* A usage error, with a pointer to the help; exit status 2. v is NULL
 * before the verb is known. */
int usage_error(const struct verb *v, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (v)
		error_msg("%s: %s", v->name, msg);
	else
		error_msg("%s", msg);
	fprintf(stderr, "Try '" PROGRAM_NAME "%s%s --help' for more information.\n",
		v ? " " : "", v ? v->name : "");
	return v && v->usage_status ? v->usage_status : EXIT_USAGE;
}

/* A bad number argument: what names it ("PID", "SECONDS"). */
int number_error(const struct verb *v, const char *what, const char *arg,
		 int err)
{
	return usage_error(v, "invalid %s '%s': %s", what, arg,
			   err == -ERANGE ? "out of range" :
			   "not a positive decimal number");
}

/* A positive decimal argument up to max; or a usage error (status 2). */
int arg_uint(const struct verb *v, const char *what, const char *arg,
	     unsigned long long max, unsigned long long *out)
{
	int ret = parse_uint(arg, max, out);

	if (!ret && *out == 0)
		ret = -EINVAL;
	return ret ? number_error(v, what, arg, ret) : 0;
}

/* A MODE argument; or a usage error (status 2). */
int arg_mode(const struct verb *v, const char *arg, unsigned int *mode)
{
	if (parse_mode(arg, mode) == 0)
		return 0;
	return usage_error(v, "unknown mode '%s': expected one of %s", arg,
			   mode_list());
}

/* A --format argument; or a usage error (status 2). */
int arg_format(const struct verb *v, const char *arg,
	       enum output_format *format)
{
	if (strcmp(arg, "text") == 0)
		*format = FORMAT_TEXT;
	else if (strcmp(arg, "json") == 0)
		*format = FORMAT_JSON;
	else if (strcmp(arg, "prometheus") == 0)
		*format = FORMAT_PROMETHEUS;
	else
		return usage_error(v, "unknown format '%s': expected text, json "
				   "or prometheus", arg);
	return 0;
}

/*
 * getopt_long() for a verb: "-h/--help" prints the verb's help and exits
 * 0; an unknown option or a missing argument exits 2. longopts must hold
 * {"help", no_argument, NULL, 'h'}.
 */
int verb_getopt(const struct verb *v, int argc, char *argv[],
		const struct option *longopts)
{
	const struct option *o;
	char shortopts[64] = ":";
	size_t n = 1;
	int opt;

	/* a printable option value is also a short option */
	for (o = longopts; o->name && n + 2 < sizeof(shortopts); o++) {
		if (o->val <= ' ' || o->val > '~')
			continue;
		shortopts[n++] = (char)o->val;
		if (o->has_arg == required_argument)
			shortopts[n++] = ':';
	}
	shortopts[n] = '\0';
	opterr = 0;
	opt = getopt_long(argc, argv, shortopts, longopts, NULL);
	switch (opt) {
	case 'h':
		verb_help(v, stdout);
		exit(EXIT_OK);
	case ':':
		exit(usage_error(v, "option '%s' needs an argument",
				 argv[optind - 1]));
	case '?':
		if (optopt)
			exit(usage_error(v, "unknown option '-%c'", optopt));
		exit(usage_error(v, "unknown option '%s'", argv[optind - 1]));
	}
	return opt;
}

/* After a verb's options and arguments: nothing may be left (or exit 2). */
void verb_no_args(const struct verb *v, int argc, char *argv[])
{
	if (optind < argc)
		exit(usage_error(v, "unexpected argument '%s'", argv[optind]));
}

/* -o, -n, -r, -J into o; false if opt is none of them. */
bool table_option(struct table_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case OPT_OUTPUT:
		o->output = arg;
		return true;
	case OPT_NOHEADINGS:
		o->noheadings = true;
		return true;
	case OPT_RAW:
		o->raw = true;
		return true;
	case OPT_JSON:
		o->json = true;
		return true;
	}
	return false;
}

/* The columns -o chose (or the defaults); or a usage error (status 2). */
int table_columns(const struct verb *v, const struct table_col *cols,
		  size_t ncols, const char *defaults, struct table_opts *o)
{
	const char *bad;
	size_t len;

	if (o->json && !o->output && (o->noheadings || o->raw))
		return usage_error(v, "-n and -r are for the table, not -J "
				   "(unless -o chooses columns)");
	if (table_select(cols, ncols, defaults, o, &bad, &len) == 0)
		return 0;
	if (o->n == TABLE_COLS_MAX)
		return usage_error(v, "too many columns");
	return usage_error(v, "unknown column '%.*s' (see '" PROGRAM_NAME
			   " %s --help')", (int)len, bad, v->name);
}
