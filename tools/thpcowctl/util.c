// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the error helper every message goes through, and small
 * helpers for files and UTF-8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "thpcowctl.h"

static const char *error_where;

/* While where is not NULL, every message starts with "where: " too. */
void error_context(const char *where)
{
	error_where = where;
}

void verror_msg(const char *fmt, va_list ap)
{
	fputs(PROGRAM_NAME ": ", stderr);
	if (error_where)
		fprintf(stderr, "%s: ", error_where);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* "thpcowctl: <what failed>: <why>", to stderr; the caller words it. */
void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_msg(fmt, ap);
	va_end(ap);
}

/*
 * Read the first line of a (sysfs, proc) file into buf without its
 * newline. Returns 0, or -errno with buf empty.
 */
int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/* Does /proc/cpuinfo list @flag among the first CPU's flags? */
bool cpu_has_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL, *tok, *save;
	size_t len = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &len, f) > 0) {
		if (strncmp(line, "flags", 5) || !strchr(line, ':'))
			continue;
		for (tok = strtok_r(strchr(line, ':') + 1, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			found |= !strcmp(tok, flag);
		break;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes), or 0
 * if there is none: stray continuation bytes, truncated sequences, overlong
 * forms, surrogates and code points past U+10FFFF are all refused.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned int cp, min;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * Columns a string takes on a terminal: wcwidth() of each code point, so
 * two for a wide (CJK) character and none for a combining one, in a UTF-8
 * locale (main() sets LC_CTYPE from the environment). A code point the
 * locale does not know, or a byte that is no UTF-8, takes one.
 */
size_t utf8_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = 0, len, n = strlen(s), i;
	unsigned int cp;
	int cw;

	while (n) {
		len = utf8_seq_len(u, n);
		if (!len) {
			w++, u++, n--;
			continue;
		}
		cp = len == 1 ? u[0] : u[0] & (0x7f >> len);
		for (i = 1; i < len; i++)
			cp = cp << 6 | (u[i] & 0x3f);
		cw = wcwidth((wchar_t)cp);
		w += cw >= 0 ? (size_t)cw : 1;
		u += len, n -= len;
	}
	return w;
}
