// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: strict parsing. Numbers are plain decimal: no sign, no
 * whitespace, no base prefix, no trailing junk, no silent wrap-around.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "parse.h"
#include "thpcowctl.h"

static const char *const mode_names[] = THPCOW_MODE_NAMES;
static const char *const scope_names[] = THPCOW_SCOPE_NAMES;

_Static_assert(ARRAY_SIZE(mode_names) == THPCOW_MODE_NR, "THPCOW_MODE_NAMES");
_Static_assert(ARRAY_SIZE(scope_names) == THPCOW_SCOPE_NR, "THPCOW_SCOPE_NAMES");

/* Returns 0, -EINVAL (not a plain decimal) or -ERANGE (above max). */
int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* A positive decimal that fits a pid_t. */
int parse_pid(const char *s, pid_t *out)
{
	unsigned long long v;
	int ret = parse_uint(s, INT_MAX, &v);

	if (ret)
		return ret;
	if (v == 0)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

/* One of THPCOW_MODE_NAMES, exactly (case matters). */
int parse_mode(const char *s, unsigned int *mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mode_names); i++) {
		if (strcmp(s, mode_names[i]) == 0) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *mode_name(unsigned int mode)
{
	return mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : "unknown";
}

const char *scope_name(unsigned int scope)
{
	return scope < ARRAY_SIZE(scope_names) ? scope_names[scope] : "unknown";
}

/* "kernel, zero, copy, split", for help and error messages. */
const char *mode_list(void)
{
	static char buf[128];
	unsigned int i;

	if (!buf[0]) {
		for (i = 0; i < ARRAY_SIZE(mode_names); i++) {
			if (i)
				strcat(buf, ", ");
			strcat(buf, mode_names[i]);
		}
	}
	return buf;
}

/*
 * Record one of the scope options. Returns 1 if opt was one, 0 if it was
 * not, -EINVAL/-ERANGE for a bad --pid value.
 */
int scope_option(struct scope_arg *s, int opt, const char *arg)
{
	int ret;

	switch (opt) {
	case OPT_PID:
		ret = parse_pid(arg, &s->pid);
		if (ret)
			return ret;
		s->scope = THPCOW_SCOPE_PID;
		break;
	case OPT_CGROUP:
		s->cgroup = arg;
		s->scope = THPCOW_SCOPE_CGROUP;
		break;
	case OPT_GLOBAL:
		s->scope = THPCOW_SCOPE_GLOBAL;
		break;
	case OPT_CHILDREN:
		s->children = true;
		return 1;
	default:
		return 0;
	}
	s->given++;
	return 1;
}

/* After the options: exactly one scope, --children only with --pid. */
const char *scope_check(const struct scope_arg *s)
{
	if (s->given == 0)
		return "one of --pid, --cgroup or --global is required";
	if (s->given > 1)
		return "--pid, --cgroup and --global are mutually exclusive";
	if (s->children && s->scope != THPCOW_SCOPE_PID)
		return "--children is only valid with --pid";
	return NULL;
}
