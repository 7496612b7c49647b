/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: what every part of the tool shares: exit statuses, the one
 * error helper, small file helpers and the verb table's shape.
 */
#ifndef THPCOWCTL_H
#define THPCOWCTL_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PROGRAM_NAME	"thpcowctl"
#define MODULE_NAME	"thpcow"
#define SYSFS_MODULE	"/sys/module/" MODULE_NAME

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* the operation failed */
	EXIT_USAGE	= 2,	/* the command line was wrong */
	EXIT_NOT_LOADED	= 3,	/* status: the module is not loaded */
	EXIT_NOEXEC	= 127,	/* exec: COMMAND could not be run */
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

struct table_col;
struct table_opts;

struct verb {
	const char *name;
	int (*fn)(const struct verb *v, int argc, char *argv[]);
	const char *summary;	/* one line for 'thpcowctl --help' */
	const char *usage;	/* synopsis, after 'thpcowctl NAME ' */
	const char *help;	/* option lines for 'thpcowctl NAME --help' */
	bool takes_mode;	/* help lists the mode names */
	void (*columns)(FILE *f);	/* help: the columns -o takes */
};

/* util.c */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verror_msg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void error_context(const char *where);
int read_line(const char *path, char *buf, size_t len);
bool cpu_has_flag(const char *flag);
size_t utf8_seq_len(const unsigned char *s, size_t n);
size_t utf8_width(const char *s);	/* terminal columns, by the locale */

/* main.c: argument parsing shared by the verbs; usage errors return 2 */
int verb_getopt(const struct verb *v, int argc, char *argv[],
		const struct option *longopts);
int usage_error(const struct verb *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int number_error(const struct verb *v, const char *what, const char *arg,
		 int err);
int arg_uint(const struct verb *v, const char *what, const char *arg,
	     unsigned long long max, unsigned long long *out);
int arg_mode(const struct verb *v, const char *arg, unsigned int *mode);
void verb_no_args(const struct verb *v, int argc, char *argv[]);
bool table_option(struct table_opts *o, int opt, const char *arg);
int table_columns(const struct verb *v, const struct table_col *cols,
		  size_t ncols, const char *defaults, struct table_opts *o);

/* the verbs */
int cmd_status(const struct verb *v, int argc, char *argv[]);
int cmd_version(const struct verb *v, int argc, char *argv[]);
int cmd_stats(const struct verb *v, int argc, char *argv[]);
int cmd_set(const struct verb *v, int argc, char *argv[]);
int cmd_get(const struct verb *v, int argc, char *argv[]);
int cmd_clear(const struct verb *v, int argc, char *argv[]);
int cmd_list(const struct verb *v, int argc, char *argv[]);
int cmd_usage(const struct verb *v, int argc, char *argv[]);
int cmd_exec(const struct verb *v, int argc, char *argv[]);
int cmd_load(const struct verb *v, int argc, char *argv[]);
int cmd_unload(const struct verb *v, int argc, char *argv[]);
int cmd_probe(const struct verb *v, int argc, char *argv[]);

/* cmd_module.c: is a thpcow module installed for the running kernel? */
bool module_installed(void);
int cmd_trace(const struct verb *v, int argc, char *argv[]);
int cmd_apply(const struct verb *v, int argc, char *argv[]);
int cmd_collapse(const struct verb *v, int argc, char *argv[]);

#endif /* THPCOWCTL_H */
