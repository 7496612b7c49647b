/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: the virtual machines systemd-machined knows, from its state
 * files (/run/systemd/machines/NAME: NAME=, SCOPE=, ID=, SERVICE=, as
 * machined writes them; no D-Bus), so that usage can name a cgroup row by
 * its VM's name and UUID, which stay the same across restarts while the
 * scope's number does not. A libvirt guest (SERVICE=libvirt-qemu) is named
 * by its domain: machined's NAME=qemu-ID-DOMAIN without the qemu-ID-,
 * whose ID changes at each start too. THPCOWCTL_MACHINES names another
 * directory (tests).
 */
#ifndef THPCOWCTL_MACHINES_H
#define THPCOWCTL_MACHINES_H

#include <stddef.h>
#include <stdio.h>

#define MACHINES_DIR	"/run/systemd/machines"

struct machine {
	char name[256];		/* a libvirt guest's domain, e.g. vm1 */
	char scope[256];	/* the unit, e.g. machine-qemu\x2d1\x2dvm1.scope */
	char uuid[40];		/* 8-4-4-4-12, or "" if machined has none */
};

const char *machines_dir(void);
/* One state file; 0, or -1 if it names no scope. */
int machine_parse(FILE *f, const char *name, struct machine *m);
/* Every machine of dir (none if there is no dir); 0, or -1 reported. */
int machines_read(const char *dir, struct machine **m, size_t *n);
/* The machine whose scope is a component of cgroup path, or NULL. */
const struct machine *machine_of_cgroup(const struct machine *m, size_t n,
					const char *path, size_t max);

#endif /* THPCOWCTL_MACHINES_H */
