// SPDX-License-Identifier: GPL-2.0
/*
 * devwatch DIR NAME: count how often an entry NAME is created in DIR (as
 * devtmpfs does in /dev when a device is registered, however briefly),
 * from the moment it prints "ready" until it gets SIGTERM or SIGINT; then
 * print "created N" and exit 0.
 */
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "prog.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char *argv[])
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long created = 0;
	ssize_t len;
	int fd;

	if (argc != 3)
		die(EXIT_USAGE, "usage: devwatch DIR NAME");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_CREATE) < 0)
		die(1, "watching %s: %s", argv[1], strerror(errno));
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		/* A bounded wait: a signal between the test and poll() is seen. */
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			die(1, "reading events: %s", len ? strerror(errno) : "EOF");
		for (char *p = buf; p < buf + len;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && !strcmp(ev->name, argv[2]))
				created++;
			p += sizeof(*ev) + ev->len;
		}
	}
	printf("created %lu\n", created);
	return 0;
}
