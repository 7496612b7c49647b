/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of apply (cmd_apply.c). */
#ifndef THPCOWCTL_CMD_APPLY_H
#define THPCOWCTL_CMD_APPLY_H

#include "args.h"

extern const struct verb apply_verb;

#endif /* THPCOWCTL_CMD_APPLY_H */
