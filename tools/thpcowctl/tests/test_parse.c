// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): numbers, terminal
 * widths, modes, and JSON and text escaping (parse.c, json.c, output.c),
 * called directly.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "output.h"
#include "parse.h"

#include "test.h"

/* --- numbers ------------------------------------------------------------ */

struct num_case {
	const char *in;
	int ret;		/* 0, -EINVAL or -ERANGE */
	pid_t val;
};

static int test_pid(const void *arg)
{
	const struct num_case *c = arg;
	pid_t val = -1;
	int ret = parse_pid(c->in, &val);

	if (ret != c->ret)
		return fail("parse_pid(\"%s\") returned %d, want %d", c->in,
			    ret, c->ret);
	if (!ret && val != c->val)
		return fail("parse_pid(\"%s\") gave %d, want %d", c->in, val,
			    c->val);
	return PASS;
}

/* parse_uint's own bound, below what strtoull can hold. */
static int test_uint_max(const void *arg)
{
	unsigned long long v;

	(void)arg;
	if (parse_uint("10", 10, &v) || v != 10)
		return fail("10 with max 10 refused");
	if (parse_uint("11", 10, &v) != -ERANGE)
		return fail("11 with max 10 accepted");
	return PASS;
}

/* --- terminal width ---------------------------------------------------- */

struct width_case {
	const char *s;
	size_t width;
};

static int test_width(const void *arg)
{
	const struct width_case *c = arg;
	size_t w = utf8_width(c->s);

	if (w != c->width)
		return fail("utf8_width(\"%s\") = %zu, want %zu", c->s, w,
			    c->width);
	return PASS;
}

#define WIDTH(name, str, w) \
	{ name, test_width, &(const struct width_case){ str, w } }

/* --- modes -------------------------------------------------------------- */

struct mode_case {
	const char *in;
	int ret;
	unsigned int mode;
};

static int test_mode(const void *arg)
{
	const struct mode_case *c = arg;
	unsigned int mode = THPCOW_MODE_NR;
	int ret = parse_mode(c->in, &mode);

	if (ret != c->ret || (!ret && mode != c->mode))
		return fail("parse_mode(\"%s\") = %d, mode %u; want %d, mode %u",
			    c->in, ret, mode, c->ret, c->mode);
	if (!ret)
		return expect_str("mode_name()", mode_name(mode), c->in);
	return PASS;
}

/* --- JSON and text escaping --------------------------------------------- */

struct str_case {
	const char *in;
	size_t max;		/* 0: strlen(in) */
	const char *want;
};

static int test_json_escape(const void *arg)
{
	const struct str_case *c = arg;
	char *got = NULL;
	int ret;

	CAPTURE(got, f, json_escape(f, c->in, c->max ? c->max : strlen(c->in)));
	ret = expect_str("json_escape", got, c->want);
	free(got);
	return ret;
}

static int test_text(const void *arg)
{
	const struct str_case *c = arg;
	char *got = NULL;
	int ret;

	CAPTURE(got, f, fput_text(f, c->in, c->max ? c->max : strlen(c->in)));
	ret = expect_str("fput_text", got, c->want);
	free(got);
	return ret;
}

static void write_nested(FILE *f)
{
	struct json j;

	json_init(&j, f);
	json_object(&j, NULL);
	json_uint(&j, "a", 1);
	json_array(&j, "b");
	json_uint(&j, NULL, 2);
	json_string(&j, NULL, "x");
	json_object(&j, NULL);
	json_end(&j);
	json_end(&j);
	json_null(&j, "c");
	json_bool(&j, "d", false);
	json_double(&j, "e", 1.0 / 3);
	json_double(&j, "f", 0.0 / 0.0);
	json_string(&j, "g", NULL);
	json_end(&j);
}

static int test_json_nesting(const void *arg)
{
	char *got = NULL;
	int ret;

	(void)arg;
	CAPTURE(got, f, write_nested(f));
	ret = expect_str("nested JSON", got,
			 "{\"a\":1,\"b\":[2,\"x\",{}],\"c\":null,\"d\":false,"
			 "\"e\":0.33,\"f\":null,\"g\":null}\n");
	free(got);
	return ret;
}

#define PID(desc, ...)	CASE(test_pid, desc, num_case, __VA_ARGS__)
#define MODE(desc, ...)	CASE(test_mode, desc, mode_case, __VA_ARGS__)
#define JSON(desc, ...)	CASE(test_json_escape, desc, str_case, __VA_ARGS__)
#define TEXT(desc, ...)	CASE(test_text, desc, str_case, __VA_ARGS__)

static const struct test tests[] = {
	/* a sign check that rejects good input */
	PID("pid: 1234 is accepted", "1234", 0, 1234),
	/* an off-by-one at the top of pid_t */
	PID("pid: INT_MAX is accepted", "2147483647", 0, INT_MAX),
	/* pid 0 means "the caller" in many APIs; it must not slip through */
	PID("pid: 0 is refused", "0", -EINVAL, 0),
	/* strtol() accepts a sign; a negative pid is a process group */
	PID("pid: -5 is refused", "-5", -EINVAL, 0),
	/* strtoull() accepts "+5" and silently negates "-5" */
	PID("pid: +5 is refused", "+5", -EINVAL, 0),
	/* strtol() without an end check */
	PID("pid: trailing junk is refused", "12abc", -EINVAL, 0),
	/* trailing whitespace is junk too */
	PID("pid: a trailing space is refused", "12 ", -EINVAL, 0),
	/* strtol() skips leading whitespace */
	PID("pid: a leading space is refused", " 12", -EINVAL, 0),
	/* an empty string parses as 0 with strtol() */
	PID("pid: the empty string is refused", "", -EINVAL, 0),
	/* base 0 would read hex */
	PID("pid: 0x10 is refused", "0x10", -EINVAL, 0),
	/* a value past pid_t truncated into a valid-looking pid */
	PID("pid: INT_MAX + 1 is out of range", "2147483648", -ERANGE, 0),
	/* ERANGE from strtoull() ignored: wraps to ULLONG_MAX */
	PID("pid: 2^64 is out of range", "18446744073709551616", -ERANGE, 0),
	/* the max argument ignored */
	{ "uint: max is enforced", test_uint_max, NULL },

	/* trace pads its comm column by these (run under C.UTF-8) */
	WIDTH("width: ASCII", "wrf", 3),
	WIDTH("width: one column per accented letter", "d\xc3\xa9j\xc3\xa0", 4),
	/* code points, not columns: CJK takes two each */
	WIDTH("width: CJK takes two columns each", "\xe6\xbc\xa2\xe5\xad\x97", 4),
	/* a combining accent takes none */
	WIDTH("width: a combining accent takes none", "e\xcc\x81", 1),
	/* a byte that is no UTF-8 is shown as one escape's start */
	WIDTH("width: a stray byte takes one", "a\xff", 2),

	/* a table that drifted from THPCOW_MODE_NAMES */
	MODE("mode: kernel", "kernel", 0, THPCOW_MODE_KERNEL),
	MODE("mode: zero", "zero", 0, THPCOW_MODE_ZERO),
	MODE("mode: copy", "copy", 0, THPCOW_MODE_COPY),
	MODE("mode: split", "split", 0, THPCOW_MODE_SPLIT),
	/* a prefix match (strncmp) */
	MODE("mode: a prefix is refused", "zer", -EINVAL, 0),
	/* a match that ignores what follows */
	MODE("mode: a longer word is refused", "zeros", -EINVAL, 0),
	/* strcasecmp: modes are exact words */
	MODE("mode: case matters", "ZERO", -EINVAL, 0),
	/* a number taken as the enum value */
	MODE("mode: a number is refused", "1", -EINVAL, 0),
	/* an empty string matching the first name */
	MODE("mode: the empty string is refused", "", -EINVAL, 0),

	/* no escaping: a quote ends the string early */
	JSON("json: quotes are escaped", "say \"hi\"", 0, "\"say \\\"hi\\\"\""),
	/* a backslash starts an escape of its own */
	JSON("json: backslashes are escaped", "a\\b", 0, "\"a\\\\b\""),
	/* raw control characters are invalid JSON */
	JSON("json: \\n and \\t use short escapes", "a\nb\tc", 0, "\"a\\nb\\tc\""),
	/* other control characters need \u00XX */
	JSON("json: other control characters as \\u00XX", "\x01\x1f\x7f", 0,
	     "\"\\u0001\\u001f\\u007f\""),
	/* high bytes mangled (e.g. sign-extended char compared < 0x20) */
	JSON("json: UTF-8 passes through", "d\xc3\xa9j\xc3\xa0 \xe6\x97\xa5 \xf0\x9f\x98\x80",
	     0, "\"d\xc3\xa9j\xc3\xa0 \xe6\x97\xa5 \xf0\x9f\x98\x80\""),
	/* a lead byte taken with whatever follows it */
	JSON("json: a lead byte without continuation becomes U+FFFD", "\xc3(",
	     0, "\"\\ufffd(\""),
	/* a comm cut mid-character by the kernel made invalid JSON */
	JSON("json: a truncated sequence becomes U+FFFD", "ab\xc3", 0, "\"ab\\ufffd\""),
	/* lone continuation bytes copied through */
	JSON("json: a stray continuation byte becomes U+FFFD", "\x80z", 0,
	     "\"\\ufffdz\""),
	/* overlong encodings smuggle '/' or NUL */
	JSON("json: an overlong form becomes U+FFFD", "\xc0\xaf", 0,
	     "\"\\ufffd\\ufffd\""),
	/* UTF-16 surrogates are not characters */
	JSON("json: an encoded surrogate becomes U+FFFD", "\xed\xa0\x80", 0,
	     "\"\\ufffd\\ufffd\\ufffd\""),
	/* reading a fixed-size field past its end */
	JSON("json: a fixed-size field stops at its size", "abcdef", 3, "\"abc\""),
	/* commas between members and after nested containers */
	{ "json: nesting, commas, null, NaN", test_json_nesting, NULL },

	/* a comm with a newline forging a table row */
	TEXT("text: control characters become \\xNN", "a\nb\x1b[1m", 0,
	     "a\\x0ab\\x1b[1m"),
	/* UTF-8 names shown as escapes */
	TEXT("text: UTF-8 passes through", "d\xc3\xa9j\xc3\xa0", 0, "d\xc3\xa9j\xc3\xa0"),
	/* a broken sequence written raw to the terminal */
	TEXT("text: invalid UTF-8 becomes \\xNN", "a\xff", 0, "a\\xff"),
};

TEST_AREA(parse_tests, tests);
