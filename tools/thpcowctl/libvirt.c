// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: libvirt's lifecycle events and domain state, through virsh. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libvirt.h"
#include "thpcowctl.h"

#define LIBVIRT_URI	"qemu:///system"

static const char *virsh_path(void)
{
	const char *p = getenv("THPCOWCTL_VIRSH");

	return p && p[0] ? p : "virsh";
}

/*
 * "event 'lifecycle' for domain 'NAME': EVENT DETAIL" (virsh-domain-event.c;
 * with --timestamp a time first). The domain's name is matched whole, up
 * to the "': " that ends it (a name may hold quotes).
 */
enum mig_state virsh_event_line(const char *line, const char *domain,
				const char **what)
{
	static const struct {
		const char *text;
		enum mig_state state;
	} events[] = {
		{ "Resumed Post-copy", MIG_POSTCOPY },
		{ "Resumed Migrated", MIG_DONE },
		{ "Started Restored", MIG_DONE },
		{ "Stopped", MIG_GONE },
		{ "Crashed", MIG_GONE },
	};
	static const char tag[] = "event 'lifecycle' for domain '";
	const char *p = strstr(line, tag), *ev;
	size_t len = strlen(domain), i;

	if (!p)
		return MIG_WAITING;
	p += sizeof(tag) - 1;
	if (strncmp(p, domain, len) || strncmp(p + len, "': ", 3))
		return MIG_WAITING;
	ev = p + len + 3;
	if (what)
		*what = ev;
	for (i = 0; i < ARRAY_SIZE(events); i++)
		if (strncmp(ev, events[i].text, strlen(events[i].text)) == 0)
			return events[i].state;
	return MIG_WAITING;
}

/* virshDomainStateToString and its reasons: "running (migrated)". */
enum mig_state virsh_state_line(const char *line)
{
	if (!strncmp(line, "running (migrated)", 18) ||
	    !strncmp(line, "running (restored)", 18))
		return MIG_DONE;
	if (!strncmp(line, "running (post-copy)", 19))
		return MIG_POSTCOPY;
	if (!strncmp(line, "shut off", 8) || !strncmp(line, "crashed", 7))
		return MIG_GONE;
	return MIG_WAITING;
}

/*
 * virsh -q -c qemu:///system ARGS..., its standard output and its standard
 * error pipes' (*fd, *errfd: virsh's words go into thpcowctl's, not
 * bare to the journal).
 */
static pid_t virsh_spawn(char *const args[], int *fd, int *errfd)
{
	char *argv[16] = { "virsh", "-q", "-c", LIBVIRT_URI };
	size_t n = 4;
	int p[2], ep[2];
	pid_t pid;

	while (*args && n + 1 < ARRAY_SIZE(argv))
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	if (pipe2(ep, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		close(ep[0]);
		close(ep[1]);
		return -1;
	}
	if (pid == 0) {
		/* gone with us, whatever ends us */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(p[1], STDOUT_FILENO);
		dup2(ep[1], STDERR_FILENO);
		/* virsh's words are translated: read them in C */
		setenv("LC_ALL", "C", 1);
		execvp(virsh_path(), argv);
		_exit(127);
	}
	close(p[1]);
	close(ep[1]);
	*fd = p[0];
	fcntl(ep[0], F_SETFL, O_NONBLOCK);
	*errfd = ep[0];
	return pid;
}

/*
 * Reap virsh; why it ended into why: "cannot run virsh" (exit 127: the
 * exec failed), else the first line of its standard error without its
 * "error: ", else "" .
 */
static void virsh_reap(pid_t pid, int errfd, int *status, char *why,
		       size_t len)
{
	char buf[512], *p = buf;
	ssize_t got;

	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	got = read(errfd, buf, sizeof(buf) - 1);
	close(errfd);
	buf[got > 0 ? got : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!strncmp(p, "error: ", 7))
		p += 7;
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 127)
		p = "cannot run virsh";
	snprintf(why, len, "%s", p);
}

int virsh_events_start(struct virsh_events *e)
{
	char *args[] = { "event", "--loop", "--event", "lifecycle", NULL };

	memset(e, 0, sizeof(*e));
	e->pid = virsh_spawn(args, &e->fd, &e->errfd);
	if (e->pid < 0)
		return -1;
	fcntl(e->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

int virsh_events_wait(struct virsh_events *e, const char *domain, int ms,
		      enum mig_state *state)
{
	struct pollfd pfd = { .fd = e->fd, .events = POLLIN };
	const char *what = NULL;
	enum mig_state s;
	char *nl, *line;
	ssize_t got;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	got = read(e->fd, e->buf + e->len, sizeof(e->buf) - 1 - e->len);
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
		int status;

		close(e->fd);
		virsh_reap(e->pid, e->errfd, &status, e->why, sizeof(e->why));
		e->pid = 0;
		return -1;
	}
	if (got < 0)
		return 0;
	e->len += (size_t)got;
	e->buf[e->len] = '\0';
	line = e->buf;
	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		s = virsh_event_line(line, domain, &what);
		if (what)
			snprintf(e->last, sizeof(e->last), "%s", what);
		if (s > *state)
			*state = s;
		line = nl + 1;
	}
	e->len -= (size_t)(line - e->buf);
	memmove(e->buf, line, e->len);
	/* a line longer than the buffer: dropped */
	if (e->len == sizeof(e->buf) - 1)
		e->len = 0;
	return 0;
}

void virsh_events_stop(struct virsh_events *e)
{
	if (e->pid <= 0)
		return;
	kill(e->pid, SIGTERM);
	close(e->fd);
	close(e->errfd);
	while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR)
		;
	e->pid = 0;
}

int virsh_domstate(const char *domain, int ms, enum mig_state *state,
		   char *why, size_t whylen)
{
	char *args[] = { "domstate", "--reason", "--", (char *)domain, NULL };
	struct pollfd pfd = { .events = POLLIN };
	struct timespec t0, now;
	char buf[256];
	ssize_t got;
	size_t len = 0;
	int status, left, ready = 0, timed_out = 0, errfd;
	pid_t pid = virsh_spawn(args, &pfd.fd, &errfd);

	if (pid < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a daemon that accepts and never answers: no longer than ms */
	while (len + 1 < sizeof(buf)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = ms - (int)((now.tv_sec - t0.tv_sec) * 1000 +
				  (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left > 0)
			ready = poll(&pfd, 1, left);
		if (left <= 0 || ready == 0) {
			timed_out = 1;
			break;
		}
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			break;
		got = read(pfd.fd, buf + len, sizeof(buf) - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	close(pfd.fd);
	if (timed_out)
		kill(pid, SIGKILL);
	virsh_reap(pid, errfd, &status, why, whylen);
	if (timed_out)
		return -ETIMEDOUT;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !len)
		return -1;
	*state = virsh_state_line(buf);
	return 0;
}
