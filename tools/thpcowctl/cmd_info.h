/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entries of status, check, version and stats (cmd_info.c). */
#ifndef THPCOWCTL_CMD_INFO_H
#define THPCOWCTL_CMD_INFO_H

#include "args.h"

extern const struct verb status_verb, check_verb, version_verb, stats_verb;

#endif /* THPCOWCTL_CMD_INFO_H */
