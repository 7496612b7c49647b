/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: a small streaming JSON writer. It puts the commas in, escapes
 * strings, and always produces valid JSON: bytes that are not well-formed
 * UTF-8 become U+FFFD. A document ends with a newline (JSON Lines).
 */
#ifndef THPCOWCTL_JSON_H
#define THPCOWCTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	8

struct json {
	FILE *f;
	unsigned int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	char close[JSON_MAX_DEPTH];	/* '}' or ']' */
};

void json_init(struct json *j, FILE *f);
/* key is NULL for a value at the top level or inside an array. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);
void json_string(struct json *j, const char *key, const char *s);
void json_string_n(struct json *j, const char *key, const char *s, size_t max);
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_double(struct json *j, const char *key, double v);
void json_fixed(struct json *j, const char *key, unsigned long long v,
		unsigned int digits);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

void json_escape(FILE *f, const char *s, size_t max);

#endif /* THPCOWCTL_JSON_H */
