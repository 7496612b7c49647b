/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of trace (cmd_trace.c). */
#ifndef THPCOWCTL_CMD_TRACE_H
#define THPCOWCTL_CMD_TRACE_H

#include "args.h"

extern const struct verb trace_verb;

#endif /* THPCOWCTL_CMD_TRACE_H */
