/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: the lines of a tracefs trace_pipe that carry thpcow:thpcow_fault
 * events, parsed and printed (module/trace.h has the event's format:
 * "pid=%d comm=%s address=0x%lx outcome=%s").
 */
#ifndef THPCOWCTL_TRACE_H
#define THPCOWCTL_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACE_SYSTEM_DIR	"events/" MODULE_NAME
#define TRACE_EVENT_NAME	"thpcow_fault"
#define TRACE_COMM_LEN		16	/* the kernel's TASK_COMM_LEN */
#define TRACE_OUTCOME_LEN	32

struct trace_event {
	pid_t pid;				/* the thread group */
	char comm[TRACE_COMM_LEN];		/* NUL-terminated */
	unsigned long long address;
	char outcome[TRACE_OUTCOME_LEN];	/* a counter's name */
};

enum trace_line {
	TRACE_LINE_OTHER,	/* not ours: some other event, a fragment */
	TRACE_LINE_EVENT,	/* a thpcow_fault event, in *ev */
	TRACE_LINE_LOST,	/* "CPU:N [LOST M EVENTS]": M in *lost (0: unknown) */
	TRACE_LINE_BAD,		/* a thpcow_fault line that does not parse */
};

enum trace_line trace_parse_line(const char *line, struct trace_event *ev,
				 unsigned long long *lost);
void print_trace_header(FILE *f);
void print_trace_event(FILE *f, const struct trace_event *ev, bool json);

#endif /* THPCOWCTL_TRACE_H */
