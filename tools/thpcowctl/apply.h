/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: applying a rules file (apply.c), for apply and reload. */
#ifndef THPCOWCTL_APPLY_H
#define THPCOWCTL_APPLY_H

#include <stdbool.h>

/*
 * Set the global mode and cgroup rules of FILE and its drop-ins ("-":
 * standard input, no drop-ins), or with check only check them. Each change
 * and error is said on stdout or stderr. 0, or -1 with nothing applied.
 */
int apply_file(const char *file, bool check);

#endif /* THPCOWCTL_APPLY_H */
