/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of usage (cmd_usage.c). */
#ifndef THPCOWCTL_CMD_USAGE_H
#define THPCOWCTL_CMD_USAGE_H

#include "args.h"

extern const struct verb usage_verb;

#endif /* THPCOWCTL_CMD_USAGE_H */
