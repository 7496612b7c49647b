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
 * Events put in time order across CPUs. tracefs_iterate_raw_events() merges
 * the CPUs' buffers by time, but only the events each had when the pass
 * read it: a CPU whose buffer a read found empty is not read again in that
 * pass, so what it records meanwhile comes in the next pass, after the
 * later events of CPUs the pass went on reading. A pass therefore queues its
 * events and gives out only those before it started, less a margin for an
 * event still being written (TRACE_ORDER_MARGIN_NS); the others wait for a
 * later pass, sorted in with its own.
 */
#define TRACE_ORDER_MARGIN_NS	10000000ULL	/* 10 ms */
#define TRACE_QUEUE_MAX		65536		/* events, 4.5 MiB */

struct trace_queue {
	struct trace_event *ev;		/* [head, n): oldest first */
	size_t head, n, size;
};

/* Sort ev in; -1 (ENOMEM) if it cannot be held. */
int trace_queue_add(struct trace_queue *q, const struct trace_event *ev);
/* The oldest event if at or before until: taken off, or NULL. */
const struct trace_event *trace_queue_take(struct trace_queue *q,
					   unsigned long long until);
static inline size_t trace_queue_len(const struct trace_queue *q)
{
	return q->n - q->head;
}

static inline bool trace_queue_empty(const struct trace_queue *q)
{
	return !trace_queue_len(q);
}
void trace_queue_free(struct trace_queue *q);

/*
 * What a pass that began at until (less the margin) may give out once it
 * read an event at ts: it gives the events it found when it began (all
 * those before until) in time order, so none of them still to come is
 * older than ts.
 */
static inline unsigned long long trace_pass_due(unsigned long long until,
						unsigned long long ts)
{
	return ts < until ? ts : until;
}

#ifdef HAVE_LIBTRACEFS
#include <event-parse.h>

/* The event's fields, found by name in its format (tracefs's format file). */
struct trace_format {
	struct tep_event *event;
	struct tep_format_field *pid, *comm, *address, *outcome;
};

/* -1 when the format lacks a field, or has one of another kind */
int trace_format_init(struct trace_format *f, struct tep_event *event);
/* A record of the event, field by field; -1 if it does not fit its format. */
int trace_decode(const struct trace_format *f, struct tep_record *rec,
		 struct trace_event *ev);
#endif

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
/* lost: events the kernel dropped on cpu, seen at ts */
void print_trace_lost(FILE *f, int cpu, unsigned long long lost,
		      unsigned long long ts, const struct trace_clock *c,
		      bool json);
/* the end: events printed, and lost in all (the instance's overrun) */
void print_trace_end(FILE *f, unsigned long long events,
		     unsigned long long lost, bool json);

#endif /* THPCOWCTL_TRACE_H */
