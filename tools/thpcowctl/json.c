// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the JSON writer (see json.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "thpcowctl.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

/* A string literal of at most max bytes (stops at a NUL). */
void json_escape(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max), len;

	fputc('"', f);
	while (n) {
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
				break;
			}
			len = utf8_seq_len(p, n);
			if (!len) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(p, 1, len, f);
			p += len;
			n -= len;
			continue;
		}
		p++;
		n--;
	}
	fputc('"', f);
}

/* The separator and "key": before any value. */
static void json_member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		json_escape(j->f, key, strlen(key));
		fputc(':', j->f);
	}
}

static void json_open(struct json *j, const char *key, char open, char close)
{
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		abort();	/* a bug in the caller, not in the input */
	json_member(j, key);
	fputc(open, j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->close[j->depth] = close;
}

void json_object(struct json *j, const char *key)
{
	json_open(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	json_open(j, key, '[', ']');
}

/* Close the innermost object or array; closing the outermost ends the line. */
void json_end(struct json *j)
{
	if (j->depth == 0)
		abort();
	fputc(j->close[j->depth--], j->f);
	if (j->depth == 0) {
		fputc('\n', j->f);
		j->first[0] = true;
	}
}

void json_string(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json_null(j, key);
		return;
	}
	json_string_n(j, key, s, strlen(s));
}

void json_string_n(struct json *j, const char *key, const char *s, size_t max)
{
	json_member(j, key);
	json_escape(j->f, s, max);
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	json_member(j, key);
	fprintf(j->f, "%llu", v);
}

/* Rates and the like: two decimals are all anyone reads. */
void json_double(struct json *j, const char *key, double v)
{
	if (!isfinite(v)) {
		json_null(j, key);	/* JSON has no NaN or infinity */
		return;
	}
	json_member(j, key);
	fprintf(j->f, "%.2f", v);
}

/* A count of units of 10^-digits (a time in ns, 9), exactly, as a decimal. */
void json_fixed(struct json *j, const char *key, unsigned long long v,
		unsigned int digits)
{
	unsigned long long unit = 1;
	unsigned int i;

	for (i = 0; i < digits; i++)
		unit *= 10;
	json_member(j, key);
	if (digits)
		fprintf(j->f, "%llu.%0*llu", v / unit, (int)digits, v % unit);
	else
		fprintf(j->f, "%llu", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_member(j, key);
	fputs("null", j->f);
}
