/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: what reload and status decide without the module or libkmod
 * (reload.c), so that the unit tests (test_reload.c) can call it.
 */
#ifndef THPCOWCTL_RELOAD_H
#define THPCOWCTL_RELOAD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A QEMU, under proc (a /proc), still receiving an incoming migration: its
 * command line has -incoming and either it holds a userfaultfd (a postcopy
 * migration: the guest runs while its memory arrives) or it has vCPU
 * threads ("CPU N/KVM", "CPU N/TCG": libvirt's debug-threads=on) none of
 * which has run yet (a precopy migration: the guest starts when it ends).
 * Returns its pid, with its name (-name guest=NAME, or its comm) in name;
 * 0 if there is none.
 */
pid_t incoming_migration(const char *proc, char *name, size_t len);

/*
 * The loaded module's version against the installed one's: "older than",
 * "newer than", or NULL if they are the same or either is unknown.
 */
const char *module_version_relation(const char *loaded, const char *installed);

/* Run argv (found in PATH), its output ours: its exit status, or -1. */
int run_command(char *const argv[]);

#endif /* THPCOWCTL_RELOAD_H */
