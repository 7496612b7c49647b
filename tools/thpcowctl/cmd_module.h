/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the table entries of load, unload and reload (cmd_module.c). */
#ifndef THPCOWCTL_CMD_MODULE_H
#define THPCOWCTL_CMD_MODULE_H

#include "args.h"

extern const struct verb load_verb, unload_verb, reload_verb;

#endif /* THPCOWCTL_CMD_MODULE_H */
