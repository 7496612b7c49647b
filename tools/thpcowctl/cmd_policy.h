/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entries of the policy verbs (cmd_policy.c). */
#ifndef THPCOWCTL_CMD_POLICY_H
#define THPCOWCTL_CMD_POLICY_H

#include "args.h"

extern const struct verb set_verb, clear_verb, get_verb, list_verb, exec_verb;

#endif /* THPCOWCTL_CMD_POLICY_H */
