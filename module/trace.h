/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcow:thpcow_fault, one event per write fault on a huge PMD that the
 * hook saw, with what became of it: the name of the counter it moved
 * ("substituted", "passthrough", "fallback_alloc", ...). Under tracefs as
 * events/thpcow/, for thpcowctl trace, perf and bpftrace alike.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM thpcow

#if !defined(THPCOW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define THPCOW_TRACE_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "compat.h"

TRACE_EVENT(thpcow_fault,
	TP_PROTO(struct vm_fault *vmf, const char *outcome),
	TP_ARGS(vmf, outcome),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(unsigned long, address)
		__string(outcome, outcome)
	),
	TP_fast_assign(
		__entry->pid = current->tgid;
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->address = vmf->address;
		thpcow_assign_str(outcome, outcome);
	),
	TP_printk("pid=%d comm=%s address=0x%lx outcome=%s",
		  __entry->pid, __entry->comm, __entry->address,
		  __get_str(outcome))
);

#endif /* THPCOW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
