/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: thpcow:thpcow_fault events (module/trace.h has the event's
 * fields: pid, comm, address, outcome), as trace prints them. cmd_trace.c
 * reads them, field by field, through libtracefs and libtraceevent.
 */
#ifndef THPCOWCTL_TRACE_H
#define THPCOWCTL_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACE_SYSTEM_NAME	MODULE_NAME
#define TRACE_SYSTEM_DIR	"events/" TRACE_SYSTEM_NAME
#define TRACE_EVENT_NAME	"thpcow_fault"
#define TRACE_COMM_LEN		16	/* the kernel's TASK_COMM_LEN */
#define TRACE_OUTCOME_LEN	32

struct trace_event {
	unsigned long long ts;			/* ns, the instance's clock: boot */
	pid_t pid;				/* the thread group */
	char comm[TRACE_COMM_LEN];		/* NUL-terminated */
	unsigned long long address;
	char outcome[TRACE_OUTCOME_LEN];	/* a counter's name */
};

/*
 * How times are shown. Boot: seconds since boot (CLOCK_BOOTTIME, the
 * instance's trace_clock "boot"), "S.UUUUUU". wall_offset: ns to add to a
 * boot time for the wall-clock time (CLOCK_REALTIME); text shows that,
 * local, when wall is set; JSON always has both.
 */
struct trace_clock {
	bool wall;
	long long wall_offset;
};

void print_trace_header(FILE *f, const struct trace_clock *c);
void print_trace_event(FILE *f, const struct trace_event *ev,
		       const struct trace_clock *c, bool json);
/* lost: events the kernel dropped on cpu before ts, or -1: some, unknown */
void print_trace_lost(FILE *f, int cpu, long long lost, unsigned long long ts,
		      const struct trace_clock *c, bool json);
/* the end: events printed, and lost in all (the instance's overrun) */
void print_trace_end(FILE *f, unsigned long long events,
		     unsigned long long lost, bool json);

#endif /* THPCOWCTL_TRACE_H */
