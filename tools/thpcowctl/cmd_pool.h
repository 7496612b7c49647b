/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entry of pool (cmd_pool.c). */
#ifndef THPCOWCTL_CMD_POOL_H
#define THPCOWCTL_CMD_POOL_H

#include "args.h"

extern const struct verb pool_verb;

#endif /* THPCOWCTL_CMD_POOL_H */
