/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of collapse (cmd_collapse.c). */
#ifndef THPCOWCTL_CMD_COLLAPSE_H
#define THPCOWCTL_CMD_COLLAPSE_H

#include "args.h"

extern const struct verb collapse_verb;

#endif /* THPCOWCTL_CMD_COLLAPSE_H */
