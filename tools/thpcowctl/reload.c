// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: what reload and status decide without the module (reload.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reload.h"
#include "thpcowctl.h"

extern char **environ;

/* FILE under proc/PID, whole, NUL-terminated (caller frees); NULL if unread. */
static char *read_whole(const char *proc, const char *pid, const char *file,
			size_t *len)
{
	char path[PATH_MAX];
	size_t size = 4096, n = 0, r;
	char *buf = NULL, *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", proc, pid, file);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	for (;;) {
		p = realloc(buf, size + 1);
		if (!p)
			break;
		buf = p;
		r = fread(buf + n, 1, size - n, f);
		n += r;
		if (n < size)
			break;
		size *= 2;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Does proc/PID hold a userfaultfd? */
static bool holds_userfaultfd(const char *proc, const char *pid)
{
	char path[PATH_MAX], link[64];
	struct dirent *d;
	bool found = false;
	ssize_t n;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s/fd", proc, pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "%s/%s/fd/%s", proc, pid, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = strcmp(link, "anon_inode:[userfaultfd]") == 0;
	}
	closedir(dir);
	return found;
}

/* proc/PID's vCPU threads: how many, and how many have run (utime, stime). */
static void vcpu_threads(const char *proc, const char *pid, int *vcpus, int *ran)
{
	char path[PATH_MAX], comm[32], stat[1024], *p;
	unsigned long long utime, stime;
	struct dirent *d;
	DIR *dir;

	*vcpus = *ran = 0;
	snprintf(path, sizeof(path), "%s/%s/task", proc, pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/task/%s/comm", proc, pid,
			 d->d_name);
		if (read_line(path, comm, sizeof(comm)) ||
		    strncmp(comm, "CPU ", 4) ||
		    (!strstr(comm, "/KVM") && !strstr(comm, "/TCG")))
			continue;
		(*vcpus)++;
		snprintf(path, sizeof(path), "%s/%s/task/%s/stat", proc, pid,
			 d->d_name);
		if (read_line(path, stat, sizeof(stat)))
			continue;
		/* after "(comm)": state is field 3, utime 14, stime 15 */
		p = strrchr(stat, ')');
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u "
				"%*u %*u %llu %llu", &utime, &stime) == 2 &&
		    utime + stime > 0)
			(*ran)++;
	}
	closedir(dir);
}

/* Its name: -name guest=NAME,... (libvirt's) or -name NAME, else comm. */
static void qemu_name(const char *proc, const char *pid, const char *args,
		      size_t len, char *name, size_t size)
{
	const char *a, *v;
	char path[PATH_MAX];

	for (a = args; a < args + len; a += strlen(a) + 1) {
		if (strcmp(a, "-name") || a + strlen(a) + 1 >= args + len)
			continue;
		v = a + strlen(a) + 1;
		if (strncmp(v, "guest=", 6) == 0)
			v += 6;
		snprintf(name, size, "%.*s", (int)strcspn(v, ","), v);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/comm", proc, pid);
	if (read_line(path, name, size))
		snprintf(name, size, "pid %s", pid);
}

pid_t incoming_migration(const char *proc, char *name, size_t size)
{
	int vcpus, ran;
	bool incoming;
	struct dirent *d;
	pid_t found = 0;
	const char *a;
	char *args;
	size_t len;
	DIR *dir;

	dir = opendir(proc);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		args = read_whole(proc, d->d_name, "cmdline", &len);
		if (!args)
			continue;
		incoming = false;
		for (a = args; a < args + len; a += strlen(a) + 1)
			if (!strcmp(a, "-incoming") || !strcmp(a, "--incoming"))
				incoming = true;
		if (incoming) {
			vcpu_threads(proc, d->d_name, &vcpus, &ran);
			if (holds_userfaultfd(proc, d->d_name) ||
			    (vcpus && !ran)) {
				found = (pid_t)atoi(d->d_name);
				qemu_name(proc, d->d_name, args, len, name, size);
			}
		}
		free(args);
	}
	closedir(dir);
	return found;
}

const char *module_version_relation(const char *loaded, const char *installed)
{
	int cmp;

	if (!loaded || !installed || !loaded[0] || !installed[0])
		return NULL;
	cmp = strverscmp(loaded, installed);
	return cmp < 0 ? "older than" : cmp > 0 ? "newer than" : NULL;
}

int run_command(char *const argv[])
{
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
