// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: systemd-machined's machines, from its state files (machines.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "machines.h"
#include "thpcowctl.h"

const char *machines_dir(void)
{
	const char *dir = getenv("THPCOWCTL_MACHINES");

	return dir && dir[0] ? dir : MACHINES_DIR;
}

/* machined's ID=: 32 hex digits; as a UUID 8-4-4-4-12, or "" if not. */
static void uuid_format(const char *id, char *uuid, size_t len)
{
	size_t i, o = 0;

	uuid[0] = '\0';
	if (strspn(id, "0123456789abcdefABCDEF") != 32 || id[32] || len < 37)
		return;
	for (i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			uuid[o++] = '-';
		uuid[o++] = id[i];
	}
	uuid[o] = '\0';
}

/*
 * A value as machined writes it: unquoted and C-escaped (cescape(): Debian
 * 12's systemd 252 writes a scope's "\x2d" as "\\x2d"), or in double
 * quotes with \\, \", \$ and \` escaped (shell_maybe_quote(), in later
 * systemd). A value with nothing to escape is as is in both.
 */
static void value_copy(char *dst, size_t len, const char *v)
{
	size_t o = 0, n = strlen(v);
	bool quoted = n >= 2 && v[0] == '"' && v[n - 1] == '"';
	const char *escaped = quoted ? "\\\"$`" : "\\";

	if (quoted) {
		v++;
		n -= 2;
	}
	for (; n && o + 1 < len; v++, n--) {
		if (*v == '\\' && n > 1 && strchr(escaped, v[1])) {
			v++;
			n--;
		}
		dst[o++] = *v;
	}
	dst[o] = '\0';
}

/*
 * libvirt names its QEMU guests' machines qemu-ID-NAME (libvirt's
 * virDomainDriverGenerateMachineName()), ID a number that changes at each
 * start: for those the domain's NAME, for others machined's name as is.
 */
static void name_of_libvirt(char *name)
{
	size_t n;

	if (strncmp(name, "qemu-", 5))
		return;
	n = strspn(name + 5, "0123456789");
	if (n && name[5 + n] == '-' && name[6 + n])
		memmove(name, name + 6 + n, strlen(name + 6 + n) + 1);
}

int machine_parse(FILE *f, const char *name, struct machine *m)
{
	char line[512], service[64] = "";
	size_t len;

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strncmp(line, "NAME=", 5) == 0)
			value_copy(m->name, sizeof(m->name), line + 5);
		else if (strncmp(line, "SCOPE=", 6) == 0)
			value_copy(m->scope, sizeof(m->scope), line + 6);
		else if (strncmp(line, "ID=", 3) == 0)
			uuid_format(line + 3, m->uuid, sizeof(m->uuid));
		else if (strncmp(line, "SERVICE=", 8) == 0)
			value_copy(service, sizeof(service), line + 8);
	}
	if (strcmp(service, "libvirt-qemu") == 0)
		name_of_libvirt(m->name);
	return m->scope[0] ? 0 : -1;
}

int machines_read(const char *dir, struct machine **m, size_t *n)
{
	struct machine *all = NULL, *more;
	struct dirent *de;
	size_t count = 0;
	char path[4096];
	DIR *d = opendir(dir);
	FILE *f;

	*m = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : (error_msg("%s: %s", dir,
							strerror(errno)), -1);
	while ((de = readdir(d))) {
		/* machined's own files: unit-*, and its temporaries */
		if (de->d_name[0] == '.' || strncmp(de->d_name, "unit:", 5) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		more = realloc(all, (count + 1) * sizeof(*all));
		if (!more) {
			fclose(f);
			break;
		}
		all = more;
		if (machine_parse(f, de->d_name, &all[count]) == 0)
			count++;
		fclose(f);
	}
	closedir(d);
	*m = all;
	*n = count;
	return 0;
}

const struct machine *machine_of_cgroup(const struct machine *m, size_t n,
					const char *path, size_t max)
{
	size_t i, len, plen = strnlen(path, max);
	const char *p;

	for (i = 0; i < n; i++) {
		len = strlen(m[i].scope);
		for (p = path; (p = memchr(p, '/', plen - (size_t)(p - path)));
		     p++) {
			if ((size_t)(path + plen - (p + 1)) >= len &&
			    memcmp(p + 1, m[i].scope, len) == 0 &&
			    (p + 1 + len == path + plen || p[1 + len] == '/'))
				return &m[i];
		}
	}
	return NULL;
}
