/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl collapse --domain: libvirt's word on an incoming migration.
 * virsh (libvirt-clients) is run rather than linked: 'virsh event --loop
 * --event lifecycle' for every domain (the domain may not exist yet when
 * the wait starts), filtered here by name, and 'virsh domstate --reason'
 * after subscribing, and again while no event comes (for a migration that
 * ended before the subscription took effect). On the
 * destination libvirt emits "Resumed Post-copy" when postcopy begins and
 * "Resumed Migrated" when the migration has completed, precopy or postcopy
 * (qemuMigrationDstFinish). THPCOWCTL_VIRSH names another virsh (tests).
 */
#ifndef THPCOWCTL_LIBVIRT_H
#define THPCOWCTL_LIBVIRT_H

#include <stddef.h>
#include <sys/types.h>

/* What libvirt says, in increasing order of finality. */
enum mig_state {
	MIG_WAITING,		/* nothing yet: incoming, or unrelated */
	MIG_POSTCOPY,		/* running on this host, postcopy still going */
	MIG_DONE,		/* migrated (or restored): all RAM is here */
	MIG_GONE,		/* the domain stopped or crashed */
};

/* One line of 'virsh event' about domain; what is not about it: WAITING. */
enum mig_state virsh_event_line(const char *line, const char *domain,
				const char **what);
/* The output of 'virsh domstate --reason' ("running (migrated)"). */
enum mig_state virsh_state_line(const char *line);

struct virsh_events {
	pid_t pid;
	int fd;			/* virsh's standard output, non-blocking */
	int errfd;		/* its standard error */
	char why[256];		/* why it ended, once it has, or "" */
	size_t len;
	char buf[2048];
	char last[128];		/* the last event about the domain, for messages */
};

/* Start 'virsh event'; 0, or -1 (virsh could not be run: not reported). */
int virsh_events_start(struct virsh_events *e);
/*
 * Wait up to ms for lines; the most final state they give for domain into
 * *state (left as it is if none). 0, or -1 when virsh has gone (EOF; why
 * in e->why: "cannot run virsh", its first line of error, or "").
 */
int virsh_events_wait(struct virsh_events *e, const char *domain, int ms,
		      enum mig_state *state);
void virsh_events_stop(struct virsh_events *e);
/*
 * 'virsh domstate --reason domain' now, waiting at most ms for it (then
 * killed); 0, -ETIMEDOUT, or -1 if it had no answer (why into why,
 * as for events).
 */
int virsh_domstate(const char *domain, int ms, enum mig_state *state,
		   char *why, size_t whylen);

#endif /* THPCOWCTL_LIBVIRT_H */
