// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: reading the rules file. A line is blank, a comment, or one
 * rule; words are separated by blanks and a word that starts with '#'
 * starts a comment:
 *
 *	global MODE			the default for all other memory
 *	cgroup PATH MODE		a cgroup v2 directory (as --cgroup PATH)
 *	cgroup? PATH MODE		the same, skipped by apply while PATH
 *					does not exist (made later: a slice
 *					of the first guest's, kubelet's)
 *	collapse-hook on|off		the libvirt hook (not a rule: read by
 *					dist/libvirt-hook-qemu; off without it)
 *
 * Every bad line is reported as "FILE:LINE: what is wrong"; a file with
 * any is not used at all.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "conf.h"
#include "parse.h"
#include "thpcowctl.h"

#define WORDS_MAX	4	/* one more than a rule has: "too many" */

struct conf_line {
	const char *name;
	unsigned int line;
	char *word[WORDS_MAX];
	int n;
};

static int __attribute__((format(printf, 2, 3)))
line_error(const struct conf_line *l, const char *fmt, ...)
{
	char msg[PATH_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_msg("%s:%u: %s", l->name, l->line, msg);
	return -1;
}

/* Split s in place into at most WORDS_MAX words, up to a comment. */
static void split_words(char *s, struct conf_line *l)
{
	const char *blank = " \t\r\n\v\f";
	char *w;

	l->n = 0;
	while (l->n < WORDS_MAX) {
		w = s + strspn(s, blank);
		if (!*w || *w == '#')
			return;
		s = w + strcspn(w, blank);
		l->word[l->n++] = w;
		if (*s)
			*s++ = '\0';
	}
}

/* The mode in word i, or an error. */
static int line_mode(const struct conf_line *l, int i, unsigned int *mode)
{
	if (parse_mode(l->word[i], mode) == 0)
		return 0;
	return line_error(l, "unknown mode '%s': expected one of %s", l->word[i],
			  mode_list());
}

/*
 * PATH as thpcowctl --cgroup takes it, normalised to the path below the
 * cgroup2 root (no repeated or trailing slashes) so that two lines naming
 * the same cgroup are found out. "." and ".." are refused.
 */
static int line_cgroup(const struct conf_line *l, const char *mnt, char **out)
{
	char abs[PATH_MAX], rel[PATH_MAX], *in, *o;
	const char *arg = l->word[1], *c;
	size_t n;
	int ret;

	for (c = arg; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return line_error(l, "cgroup path '%s': '.' and '..' are "
					  "not allowed", arg);
	}
	ret = cgroup_resolve(mnt, arg, abs, sizeof(abs), rel, sizeof(rel));
	if (ret)
		return line_error(l, "cgroup path '%s': %s", arg, strerror(-ret));
	for (in = o = rel; *in; in++)
		if (*in != '/' || o == rel || o[-1] != '/')
			*o++ = *in;
	*o = '\0';
	*out = strdup(rel);
	return *out ? 0 : line_error(l, "%s", strerror(ENOMEM));
}

/* The rule already in c that names the same target as r, if any. */
static const struct conf_rule *conf_find(const struct conf *c,
					 const struct conf_rule *r)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->rules[i].scope == r->scope &&
		    (r->scope != THPCOW_SCOPE_CGROUP ||
		     !strcmp(c->rules[i].cgroup, r->cgroup)))
			return &c->rules[i];
	return NULL;
}

/* One line's rule into r (r->scope THPCOW_SCOPE_NR: none), or an error. */
static int parse_rule(const struct conf_line *l, const char *mnt,
		      struct conf_rule *r)
{
	const char *kw = l->word[0];

	memset(r, 0, sizeof(*r));
	r->line = l->line;
	r->scope = THPCOW_SCOPE_NR;
	if (l->n == 0)
		return 0;
	if (!strcmp(kw, "global")) {
		if (l->n != 2)
			return line_error(l, "expected 'global MODE'");
		r->scope = THPCOW_SCOPE_GLOBAL;
		return line_mode(l, 1, &r->mode);
	}
	if (!strcmp(kw, "cgroup") || !strcmp(kw, "cgroup?")) {
		if (l->n != 3)
			return line_error(l, "expected '%s PATH MODE'", kw);
		if (line_mode(l, 2, &r->mode))
			return -1;
		r->scope = THPCOW_SCOPE_CGROUP;
		r->optional = kw[6] == '?';
		return line_cgroup(l, mnt, &r->cgroup);
	}
	if (!strcmp(kw, "collapse-hook")) {
		if (l->n != 2 || (strcmp(l->word[1], "on") &&
				  strcmp(l->word[1], "off")))
			return line_error(l, "expected 'collapse-hook on' or "
					  "'collapse-hook off'");
		return 0;
	}
	if (!strcmp(kw, "pid"))
		return line_error(l, "pid rules do not belong in a file (pids "
				  "change): use thpcowctl exec or set --pid");
	return line_error(l, "unknown keyword '%s': expected global or cgroup",
			  kw);
}

/* Forget the rules from the start-th on (those of one file). */
static void conf_drop(struct conf *c, size_t start)
{
	while (c->n > start)
		free(c->rules[--c->n].cgroup);
	if (!c->n) {
		free(c->rules);
		c->rules = NULL;
	}
}

static int conf_add(struct conf *c, const struct conf_rule *r)
{
	struct conf_rule *grown = realloc(c->rules, (c->n + 1) * sizeof(*r));

	if (!grown)
		return -ENOMEM;
	c->rules = grown;
	c->rules[c->n++] = *r;
	return 0;
}

/*
 * Add the rules of in (named name in messages and in each rule, so name
 * must outlive c; mnt: the cgroup2 mount point, for paths) to those c has
 * (none at first: { 0 }). A target named twice is an error, in one file or
 * across files. Returns the number of errors reported (c then holds only
 * what the earlier files had), or -1 when in could not be read (reported
 * too).
 */
int conf_parse(FILE *in, const char *name, const char *mnt, struct conf *c)
{
	struct conf_line l = { .name = name };
	const struct conf_rule *first;
	struct conf_rule r;
	char *buf = NULL;
	size_t cap = 0;
	size_t start = c->n;
	ssize_t len;
	int errors = 0, ret = 0;

	while ((len = getline(&buf, &cap, in)) >= 0) {
		l.line++;
		if (strlen(buf) != (size_t)len) {
			errors += line_error(&l, "a NUL byte") < 0;
			continue;
		}
		split_words(buf, &l);
		if (parse_rule(&l, mnt, &r)) {
			errors++;
			continue;
		}
		if (r.scope == THPCOW_SCOPE_NR)
			continue;
		r.file = name;
		first = conf_find(c, &r);
		if (first && first->file != name) {
			/* a drop-in does not override: it is an error too */
			if (r.scope == THPCOW_SCOPE_GLOBAL)
				line_error(&l, "a second global line (the "
					   "first is %s:%u)", first->file,
					   first->line);
			else
				line_error(&l, "cgroup %s already has a rule "
					   "in %s:%u", r.cgroup, first->file,
					   first->line);
			free(r.cgroup);
			errors++;
		} else if (first) {
			if (r.scope == THPCOW_SCOPE_GLOBAL)
				line_error(&l, "a second global line (the "
					   "first is line %u)", first->line);
			else
				line_error(&l, "cgroup %s already has a rule "
					   "on line %u", r.cgroup, first->line);
			free(r.cgroup);
			errors++;
		} else if (conf_add(c, &r)) {
			free(r.cgroup);
			errors += line_error(&l, "%s", strerror(ENOMEM)) < 0;
		}
	}
	if (ferror(in)) {
		error_msg("%s: %s", name, strerror(errno));
		ret = -1;
	}
	free(buf);
	if (ret || errors)
		conf_drop(c, start);
	return ret ? ret : errors;
}

static int dropin_filter(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return de->d_name[0] != '.' && len > 5 &&
	       strcmp(de->d_name + len - 5, ".conf") == 0;
}

/*
 * The drop-ins of file: FILE.d/NAME.conf, sorted by NAME (strcmp order, as
 * systemd's and modprobe.d's), as paths. No directory: none. Returns 0,
 * or -1 reported.
 */
int conf_dropins(const char *file, char ***names, size_t *n)
{
	struct dirent **de;
	char dir[PATH_MAX];
	int i, count;

	*names = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s" CONF_DROPIN_SUFFIX, file);
	count = scandir(dir, &de, dropin_filter, alphasort);
	if (count < 0) {
		if (errno == ENOENT)
			return 0;
		error_msg("%s: %s", dir, strerror(errno));
		return -1;
	}
	*names = calloc((size_t)count + 1, sizeof(**names));
	for (i = 0; i < count; i++) {
		if (*names && asprintf(&(*names)[*n], "%s/%s", dir,
				       de[i]->d_name) >= 0)
			(*n)++;
		free(de[i]);
	}
	free(de);
	if (*n == (size_t)count)
		return 0;
	error_msg("%s: %s", dir, strerror(ENOMEM));
	conf_names_free(*names, *n);
	*names = NULL;
	*n = 0;
	return -1;
}

void conf_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void conf_free(struct conf *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->rules[i].cgroup);
	free(c->rules);
	memset(c, 0, sizeof(*c));
}
