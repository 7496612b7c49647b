/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of probe (cmd_probe.c). */
#ifndef THPCOWCTL_CMD_PROBE_H
#define THPCOWCTL_CMD_PROBE_H

#include "args.h"

extern const struct verb probe_verb;

#endif /* THPCOWCTL_CMD_PROBE_H */
