/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: what every part of the tool shares: exit statuses, the one
 * error helper and small file helpers.
 */
#ifndef THPCOWCTL_H
#define THPCOWCTL_H

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

/* util.c */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verror_msg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void error_context(const char *where);
int read_line(const char *path, char *buf, size_t len);
bool cpu_has_flag(const char *flag);
size_t utf8_seq_len(const unsigned char *s, size_t n);
size_t utf8_width(const char *s);	/* terminal columns, by the locale */

#endif /* THPCOWCTL_H */
