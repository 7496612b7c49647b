/* SPDX-License-Identifier: GPL-2.0 */
/* What the test programs share: messages, exit statuses, strict numbers. */
#ifndef THPCOW_PROG_H
#define THPCOW_PROG_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *program_invocation_short_name;

enum { EXIT_USAGE = 2 };

/* "PROG: message" to stderr, then exit with status. */
static inline void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* A plain decimal from min to max, or a usage error naming the option. */
static inline unsigned long long number_arg(const char *opt, const char *s,
					    unsigned long long min,
					    unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < min || v > max)
		die(EXIT_USAGE, "%s: '%s' is not a number from %llu to %llu",
		    opt, s, min, max);
	return v;
}

/*
 * The end of a getopt_long() switch: --help prints usage to stdout and
 * exits 0, an unknown option prints it to stderr and exits EXIT_USAGE.
 */
static inline void __attribute__((noreturn))
usage_exit(void (*usage)(FILE *f), int help)
{
	usage(help ? stdout : stderr);
	exit(help ? 0 : EXIT_USAGE);
}

/* After the options: a program that takes no operands refuses one. */
static inline void no_operands(int argc, char *argv[], int first)
{
	if (first < argc)
		die(EXIT_USAGE, "unexpected argument '%s'", argv[first]);
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* THPCOW_PROG_H */
