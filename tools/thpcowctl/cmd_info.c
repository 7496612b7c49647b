// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the verbs that only look: status, check, version, stats. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cmd_info.h"
#include "device.h"
#include "kmod.h"
#include "output.h"
#include "parse.h"
#include "pool.h"
#include "probe.h"
#include "reload.h"
#include "thpcowctl.h"

#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage"
#define DEBUGFS_STATS	"/sys/kernel/debug/" MODULE_NAME "/stats"
#define SECURE_BOOT_VAR	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* 1 if UEFI Secure Boot is on, 0 if off, -1 if unknown (no EFI). */
static int secure_boot(void)
{
	unsigned char b[5];
	FILE *f = fopen(SECURE_BOOT_VAR, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(b, 1, sizeof(b), f);	/* 4 bytes of attributes, the value */
	fclose(f);
	return n == sizeof(b) ? b[4] == 1 : -1;
}

/*
 * A THP sysfs setting: the [chosen] word of "always [madvise] never", or
 * the file's line ("1"); NULL if the file is not there (an older kernel).
 */
static const char *thp_setting(const char *file, char *buf, size_t len)
{
	char path[256], *lb, *rb;

	snprintf(path, sizeof(path), THP_SYSFS "/%s", file);
	if (read_line(path, buf, len))
		return NULL;
	lb = strchr(buf, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (!rb)
		return buf;
	*rb = '\0';
	return lb + 1;
}

/* The bytes of a PMD-sized THP (2 MiB on x86-64). */
static unsigned long long thp_bytes(void)
{
	unsigned long long v;
	char buf[32];

	if (read_line(THP_SYSFS "/hpage_pmd_size", buf, sizeof(buf)) ||
	    parse_uint(buf, ~0ULL, &v) || !v)
		return 2ULL << 20;
	return v;
}

/* What can be learnt about the module without changing anything. */
struct module_info {
	bool loaded;		/* /sys/module/thpcow exists */
	char version[64];	/* from sysfs; empty if unknown */
	bool have_abi;		/* ver holds the VERSION ioctl's answer */
	bool abi_ok;		/* ... and it is our ABI */
	struct thpcow_version ver;
	int fd;			/* the device if it speaks our ABI, or -1 */
};

/* Returns 0, or -1 (reported) if the module is loaded but not usable. */
static int module_info(struct module_info *mi)
{
	memset(mi, 0, sizeof(*mi));
	mi->fd = -1;
	mi->loaded = module_loaded();
	if (!mi->loaded)
		return 0;
	read_line(SYSFS_MODULE "/version", mi->version, sizeof(mi->version));
	mi->fd = device_open_raw();
	if (mi->fd < 0)
		return -1;
	mi->have_abi = device_version(mi->fd, &mi->ver) == 0;
	mi->abi_ok = mi->have_abi && device_check_abi(&mi->ver) == 0;
	if (mi->abi_ok)
		return 0;
	close(mi->fd);
	mi->fd = -1;
	return -1;
}

static int get_global_mode(int fd, unsigned int *mode)
{
	struct scope_arg global = { .scope = THPCOW_SCOPE_GLOBAL, .given = 1 };
	struct thpcow_policy p;
	struct target t;

	target_open(&global, &t);
	target_policy(&t, &p);
	if (device_policy(fd, "status", THPCOW_IOC_GET, &p, &t))
		return -1;
	*mode = p.mode;
	return 0;
}

/*
 * Indirect branch tracking: does the CPU (with the kernel) enforce it, and
 * if not, did the module load with assume_ibt=1 to act as if?
 */
static const char *ibt_state(const struct module_info *mi)
{
	if (cpu_has_flag("ibt"))
		return "enforced";
	if (mi->abi_ok && (mi->ver.features & THPCOW_FEATURE_IBT))
		return "assumed (assume_ibt=1)";
	return "not enforced";
}

static int cmd_status(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char thp[5][64];
	static struct pool_info pool;
	unsigned long long pool_mib = 0, pool_thps = 0;
	bool have_pool_mib, have_pool_thps;
	struct thpcow_stats st;
	struct module_info mi;
	struct utsname uts;
	bool json = false, have_stats = false, have_mode = false;
	enum kernel_zero k = KERNEL_ZERO_UNKNOWN;
	const char *without = NULL, *sw = kernel_zero_switch();
	unsigned int mode = 0;
	int opt, ret, sb;
	char why[160], installed[64];

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1)
		json |= opt == OPT_JSON;
	verb_no_args(v, argc, argv);

	memset(&st, 0, sizeof(st));
	ret = module_info(&mi) ? EXIT_FAIL : EXIT_OK;
	if (mi.fd >= 0) {
		have_stats = device_stats(mi.fd, &st) == 0;
		have_mode = get_global_mode(mi.fd, &mode) == 0;
		if (!have_stats || !have_mode)
			ret = EXIT_FAIL;
		close(mi.fd);
	}
	if (uname(&uts))
		strcpy(uts.release, "unknown");
	/* without the module: what the kernel does by itself, tried here */
	if (!mi.loaded) {
		k = kernel_zero_probe(why, sizeof(why));
		without = kernel_zero_name(k);
		/* as systemctl status: not active; but not where it is not
		 * needed (Nagios would read 3 as UNKNOWN): a kernel whose own
		 * switch for the fault is off splits, whatever else it has */
		if (k != KERNEL_ZERO_SUBSTITUTES || (sw && strcmp(sw, "on")))
			ret = EXIT_NOT_LOADED;
	}
	sb = secure_boot();
	/* the pool: its size per node (sysfs), and what it holds (debugfs) */
	have_pool_mib = read_line(SYSFS_MODULE "/parameters/pool_mib", why, sizeof(why)) == 0 &&
			parse_uint(why, ~0ULL, &pool_mib) == 0;
	have_pool_thps = have_pool_mib && pool_read(POOL_DEBUGFS, &pool) == 0 &&
			 pool_get(&pool, "thps", &pool_thps);

	const struct field fields[] = {
		FIELD_BOOL("module loaded", "loaded", mi.loaded),
		FIELD_STR("module version", "module_version",
			  mi.version[0] ? mi.version : NULL),
		FIELD_UINT_IF("module abi", "abi", mi.ver.abi, mi.have_abi),
		FIELD_STR("thpcowctl version", "tool_version", THPCOW_VERSION),
		FIELD_UINT("thpcowctl abi", "tool_abi", THPCOW_ABI_VERSION),
		FIELD_STR("kernel", "kernel", uts.release),
		FIELD_STR("ibt", "ibt", ibt_state(&mi)),
		FIELD_BOOL_IF("direct calls", "direct_calls",
			      mi.ver.features & THPCOW_FEATURE_DIRECT_CALLS,
			      mi.abi_ok),
		FIELD_STR("without thpcow", "without_thpcow", without),
		FIELD_BOOL_IF("secure boot", "secure_boot", sb == 1, sb >= 0),
		FIELD_BOOL_IF("native zero", "native_zero",
			      mi.ver.features & THPCOW_FEATURE_NATIVE_ZERO,
			      mi.abi_ok),
		FIELD_STR("global mode", "global_mode",
			  have_mode ? mode_name(mode) : NULL),
		FIELD_UINT_IF("policies", "policies", st.policies, have_stats),
		FIELD_UINT_IF("substituted", "substituted",
			      st.counters[THPCOW_STAT_SUBSTITUTED], have_stats),
		FIELD_UINT_IF("fallbacks", "fallbacks", stats_fallbacks(&st),
			      have_stats),
		FIELD_UINT_IF("hook calls", "hook_calls",
			      st.counters[THPCOW_STAT_HOOK_CALLS], have_stats),
		FIELD_UINT_IF("pool mib per node", "pool_mib", pool_mib,
			      have_pool_mib),
		FIELD_UINT_IF("pool thps", "pool_thps", pool_thps, have_pool_thps),
		FIELD_UINT_IF("pool hits", "pool_hit",
			      st.counters[THPCOW_STAT_POOL_HIT], have_stats),
		/* what decides fallback_ineligible and fallback_alloc */
		FIELD_STR("thp enabled", "thp_enabled",
			  thp_setting("enabled", thp[0], sizeof(thp[0]))),
		FIELD_STR("thp defrag", "thp_defrag",
			  thp_setting("defrag", thp[1], sizeof(thp[1]))),
		FIELD_STR("thp use_zero_page", "thp_use_zero_page",
			  thp_setting("use_zero_page", thp[2], sizeof(thp[2]))),
		FIELD_STR("khugepaged defrag", "khugepaged_defrag",
			  thp_setting("khugepaged/defrag", thp[3], sizeof(thp[3]))),
		FIELD_STR("thp 2048kB enabled", "thp_2048kB_enabled",
			  thp_setting("hugepages-2048kB/enabled", thp[4],
				      sizeof(thp[4]))),
		/* a kernel's own switch for the fault (openEuler's) */
		FIELD_STR("kernel switch", "zero_page_full_cow", sw),
		FIELD_STR("zero-page path", "zero_page_path",
			  kernel_zero_path(sw, mi.loaded,
					   mi.abi_ok && (mi.ver.features &
							 THPCOW_FEATURE_NATIVE_ZERO))),
	};

	print_fields(stdout, fields, ARRAY_SIZE(fields), json);
	/* after an upgrade (or a downgrade), until the module is reloaded */
	if (!json && mi.version[0] &&
	    module_installed_version(installed, sizeof(installed)) &&
	    module_version_relation(mi.version, installed))
		printf("The loaded module is %s, the installed one %s: reload "
		       "it (" PROGRAM_NAME " reload)\n", mi.version, installed);
	if (!json && !mi.loaded) {
		printf("%s\n", kernel_zero_advice(k, uts.release));
		if (sb == 1 && module_installed())
			printf("Secure Boot is on: the module loads only if signed "
			       "with an enrolled key (DKMS signs with "
			       "/var/lib/dkms/mok.key; mokutil --import "
			       "/var/lib/dkms/mok.pub, then reboot)\n");
	}
	return ret;
}

/* The monitoring-plugins convention: check's exit statuses. */
enum { CHECK_OK, CHECK_WARNING, CHECK_CRITICAL, CHECK_UNKNOWN };
static const char *const check_names[] = {
	"OK", "WARNING", "CRITICAL", "UNKNOWN",
};

struct check {
	int state;
	char text[512];		/* what made it so, "; "-separated */
	char perf[512];
};

/* Raise c to state (never lower it), adding why to its text. */
static void __attribute__((format(printf, 3, 4)))
check_say(struct check *c, int state, const char *fmt, ...)
{
	size_t len = strlen(c->text);
	va_list ap;

	if (state > c->state)
		c->state = state;
	if (len && len + 2 < sizeof(c->text)) {
		strcpy(c->text + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->text + len, sizeof(c->text) - len, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
check_perf(struct check *c, const char *fmt, ...)
{
	size_t len = strlen(c->perf);
	va_list ap;

	if (len && len + 1 < sizeof(c->perf))
		c->perf[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(c->perf + len, sizeof(c->perf) - len, fmt, ap);
	va_end(ap);
}

struct check_args {
	unsigned long long warn, crit;	/* fallback % */
	unsigned long long min_faults, slots_warn;	/* slots_warn: % */
};

/* The module is loaded and answers: its counters against the thresholds. */
static void check_module(int fd, const struct check_args *a, struct check *c)
{
	struct thpcow_usage_entry *entries;
	struct thpcow_usage u;
	struct thpcow_stats st;
	unsigned long long given, fb, faults;
	unsigned int mode;
	double pct = 0;
	size_t n;

	if (device_stats(fd, &st) || get_global_mode(fd, &mode)) {
		check_say(c, CHECK_UNKNOWN, "the module's counters cannot be read");
		return;
	}
	given = st.counters[THPCOW_STAT_SUBSTITUTED] +
		st.counters[THPCOW_STAT_COPIED];
	fb = stats_fallbacks(&st);
	faults = given + fb;
	if (faults)
		pct = 100.0 * (double)fb / (double)faults;
	check_say(c, CHECK_OK, "mode %s, %u policies, %llu THPs given, "
		  "%llu fallbacks (%.1f %%)", mode_name(mode), st.policies,
		  given, fb, pct);
	if (!st.policies && mode == THPCOW_MODE_KERNEL)
		check_say(c, CHECK_WARNING, "no policy: thpcow changes nothing "
			  "(/etc/thpcow.conf; systemctl reload thpcow)");
	if (faults >= a->min_faults && pct >= (double)a->crit)
		check_say(c, CHECK_CRITICAL, "fallbacks %.1f %% >= %llu %%", pct,
			  a->crit);
	else if (faults >= a->min_faults && pct >= (double)a->warn)
		check_say(c, CHECK_WARNING, "fallbacks %.1f %% >= %llu %%", pct,
			  a->warn);
	check_perf(c, "given=%lluc fallbacks=%lluc fallback_pct=%.1f%%;%llu;%llu;0;100 "
		   "policies=%u;;;0", given, fb, pct, a->warn, a->crit,
		   st.policies);
	if (device_usage(fd, &entries, &n, &u)) {
		check_say(c, CHECK_UNKNOWN, "the usage table cannot be read");
		return;
	}
	free(entries);
	if (u.slots && (unsigned long long)u.slots_used * 100 >=
		       (unsigned long long)u.slots * a->slots_warn)
		check_say(c, CHECK_WARNING, "usage table %u of %u rows: new "
			  "cgroups count as other (usage_slots)", u.slots_used,
			  u.slots);
	check_perf(c, "slots_used=%u;%llu;;0;%u", u.slots_used,
		   (unsigned long long)u.slots * a->slots_warn / 100, u.slots);
}

/* After an upgrade, until thpcowctl reload: a warning. */
static void check_version(const struct module_info *mi, struct check *c)
{
	char installed[64];
	const char *rel;

	if (!module_installed_version(installed, sizeof(installed)))
		return;
	rel = module_version_relation(mi->version, installed);
	if (rel)
		check_say(c, CHECK_WARNING, "the loaded module %s is %s the "
			  "installed %s (" PROGRAM_NAME " reload)", mi->version,
			  rel, installed);
}

/*
 * The monitoring-plugins convention (Nagios, Icinga, Zabbix's, Sensu's):
 * one line "THPCOW STATE - what | perfdata" on standard output, and the
 * state as the exit status (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN, also
 * for a usage error).
 */
static int cmd_check(const struct verb *v, int argc, char *argv[])
{
	enum { OPT_WARN = 'w', OPT_CRIT = 'c', OPT_MIN = 0x200, OPT_SLOTS };
	static const struct option opts[] = {
		{ "warning", required_argument, NULL, OPT_WARN },
		{ "critical", required_argument, NULL, OPT_CRIT },
		{ "min-faults", required_argument, NULL, OPT_MIN },
		{ "slots-warning", required_argument, NULL, OPT_SLOTS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct check_args a = { .warn = 20, .crit = 50, .min_faults = 100,
				.slots_warn = 90 };
	struct check c = { 0 };
	enum kernel_zero k;
	struct module_info mi;
	struct utsname uts;
	char why[160];
	int opt, fd, err, ret = 0;

	while (!ret && (opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_WARN)
			ret = arg_uint(v, "percentage", optarg, 100, &a.warn);
		else if (opt == OPT_CRIT)
			ret = arg_uint(v, "percentage", optarg, 100, &a.crit);
		else if (opt == OPT_MIN)
			ret = arg_uint(v, "fault count", optarg, ~0ULL, &a.min_faults);
		else
			ret = arg_uint(v, "percentage", optarg, 100, &a.slots_warn);
	}
	if (ret)
		return CHECK_UNKNOWN;
	verb_no_args(v, argc, argv);
	if (a.warn > a.crit)
		return usage_error(v, "--warning %llu is above --critical %llu",
				   a.warn, a.crit);
	if (uname(&uts))
		strcpy(uts.release, "unknown");

	if (!module_loaded()) {
		k = kernel_zero_probe(why, sizeof(why));
		if (k == KERNEL_ZERO_SUBSTITUTES)
			check_say(&c, CHECK_OK, "not needed: Linux %s gives whole "
				  "THPs by itself", uts.release);
		else if (k == KERNEL_ZERO_SPLITS)
			check_say(&c, CHECK_CRITICAL, "module not loaded, and Linux "
				  "%s splits the huge zero page (try: %s)",
				  uts.release, load_hint());
		else
			check_say(&c, CHECK_UNKNOWN, "module not loaded; what "
				  "Linux %s does without it is unknown: %s",
				  uts.release, why);
	} else if ((fd = open(device_path(), O_RDWR | O_CLOEXEC)) < 0) {
		err = errno;
		check_say(&c, CHECK_UNKNOWN, "%s: %s%s", device_path(),
			  strerror(err), err == EACCES || err == EPERM ?
			  " (root only: run it through sudo)" : "");
	} else {
		close(fd);
		if (module_info(&mi)) {
			check_say(&c, CHECK_CRITICAL, "the module (%s) does not "
				  "speak this thpcowctl's ABI %u",
				  mi.version[0] ? mi.version : "unknown",
				  THPCOW_ABI_VERSION);
		} else {
			check_module(mi.fd, &a, &c);
			close(mi.fd);
			check_version(&mi, &c);
		}
	}
	printf("THPCOW %s - %s%s%s\n", check_names[c.state], c.text,
	       c.perf[0] ? " | " : "", c.perf);
	return c.state;
}

const struct verb check_verb = {
	.name = "check", .fn = cmd_check,
	.summary = "one status line and exit status for Nagios or Icinga",
	.synopsis = "[-w PCT] [-c PCT] [--min-faults N] [--slots-warning PCT]",
	.help = "  -w, --warning PCT\n"
		"                  WARNING when PCT % of the faults a policy covered\n"
		"                  got no whole THP (default 20)\n"
		"  -c, --critical PCT\n"
		"                  CRITICAL from PCT % (default 50)\n"
		"  --min-faults N  judge the fallbacks only after N faults (100)\n"
		"  --slots-warning PCT\n"
		"                  WARNING when the usage table is PCT % full (90)\n"
		"  (exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)\n",
	.usage_status = CHECK_UNKNOWN,
};

const struct verb status_verb = {
	.name = "status", .fn = cmd_status,
	.summary = "show the module, its global mode, headline counters "
		"and THP settings",
	.synopsis = "[-J]",
	.help = HELP_JSON,
};

/* Like v4l2loopback-ctl: the tool's version, and the loaded module's. */
static int cmd_version(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct module_info mi;
	int ret;

	while (verb_getopt(v, argc, argv, opts) != -1)
		;
	verb_no_args(v, argc, argv);
	ret = module_info(&mi) ? EXIT_FAIL : EXIT_OK;
	if (mi.fd >= 0)
		close(mi.fd);
	printf(PROGRAM_NAME " %s (ABI %u)\n", THPCOW_VERSION, THPCOW_ABI_VERSION);
	if (!mi.loaded)
		printf(MODULE_NAME " module not loaded\n");
	else if (mi.have_abi)
		printf(MODULE_NAME " %s (ABI %u)\n",
		       mi.version[0] ? mi.version : "unknown", mi.ver.abi);
	else
		printf(MODULE_NAME " %s (ABI unknown)\n",
		       mi.version[0] ? mi.version : "unknown");
	return ret;
}

const struct verb version_verb = {
	.name = "version", .fn = cmd_version,
	.summary = "show the versions of thpcowctl and the loaded module",
	.synopsis = "",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Local time, ISO 8601, to the second: the TIME of a --watch row. */
static void timestamp(char *buf, size_t len)
{
	struct tm tm;
	time_t t = time(NULL);

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

struct stats_args {
	struct table_opts o;
	enum output_format format;
	unsigned long long watch, count;
};

static int stats_args(const struct verb *v, int argc, char *argv[],
		      struct stats_args *a)
{
	static const struct option opts[] = {
		OPT_TABLE_ENTRIES,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "watch", required_argument, NULL, OPT_WATCH },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int opt, ret = 0;

	memset(a, 0, sizeof(*a));
	while (!ret && (opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (table_option(&a->o, opt, optarg))
			continue;
		if (opt == OPT_WATCH)
			ret = arg_uint(v, "SECONDS", optarg, 24 * 3600, &a->watch);
		else if (opt == OPT_COUNT)
			ret = arg_uint(v, "N", optarg, UINT_MAX, &a->count);
		else
			ret = arg_format(v, optarg, &a->format);
	}
	if (ret)
		return ret;
	verb_no_args(v, argc, argv);
	if (a->count && !a->watch)
		return usage_error(v, "--count needs --watch");
	if (a->format == FORMAT_JSON)
		a->o.json = true;
	if (a->format == FORMAT_PROMETHEUS &&
	    (a->o.json || a->o.output || a->o.noheadings || a->o.raw || a->watch))
		return usage_error(v, "--format prometheus takes none of -J, -o, "
				   "-n, -r, --watch");
	if (a->watch && a->o.json && a->o.output)
		return usage_error(v, "--watch -J prints every counter: no -o");
	if (a->watch)
		return table_columns(v, watch_cols(), watch_ncols,
				     watch_defaults, &a->o);
	return table_columns(v, counter_cols, counter_ncols, counter_defaults,
			     &a->o);
}

/* debugfs' hook_armed: 1 or 0, or -1 if it cannot be read. */
static int hook_armed(void)
{
	char line[64];
	int armed = -1;
	FILE *f = fopen(DEBUGFS_STATS, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "hook_armed %d", &armed) == 1)
			break;
	fclose(f);
	return armed;
}

static int stats_once(int fd, const struct stats_args *a)
{
	static struct pool_info pool;
	struct thpcow_stats st;
	unsigned int mode;

	if (device_stats(fd, &st))
		return EXIT_FAIL;
	if (a->format != FORMAT_PROMETHEUS) {
		print_counters(stdout, &st, &a->o);
		return EXIT_OK;
	}
	if (get_global_mode(fd, &mode))
		return EXIT_FAIL;
	print_prometheus(stdout, &st, mode_name(mode), thp_bytes(),
			 hook_armed());
	/* the pool's size and cost, where debugfs shows them */
	if (pool_read(POOL_DEBUGFS, &pool) == 0)
		print_prometheus_pool(stdout, &pool);
	return EXIT_OK;
}

/*
 * --format prometheus: thpcow_up and thpcow_build_info, then the counters
 * if the module answers. Without the module that is all, and not an error
 * (node-exporter serves thpcow_up 0, not a stale file); a module that is
 * loaded but does not answer is one (thpcow_up 0, exit 1).
 */
static int stats_prometheus(void)
{
	struct module_info mi;
	struct utsname uts;
	int ret = EXIT_OK;

	if (uname(&uts))
		strcpy(uts.release, "unknown");
	if (module_info(&mi))
		ret = EXIT_FAIL;
	print_prometheus_head(stdout, mi.fd >= 0, mi.version, uts.release);
	if (mi.fd < 0)
		return ret;
	ret = stats_once(mi.fd, &(const struct stats_args){
		.format = FORMAT_PROMETHEUS });
	close(mi.fd);
	return ret;
}

/* Like vmstat: the header once, then a row per interval. */
static int stats_watch(int fd, const struct stats_args *a)
{
	struct thpcow_stats st, prev;
	struct timespec deadline;
	struct table t, *tp = NULL;
	unsigned long long i;
	int ret = EXIT_FAIL;
	double then, now_s;
	char when[40];

	if (device_stats(fd, &st))
		return EXIT_FAIL;
	if (!a->o.json) {
		table_init(&t, watch_cols(), &a->o, "intervals", stdout);
		tp = &t;
	}
	/* absolute deadlines: the intervals do not drift */
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	then = now();
	for (i = 0; !a->count || i < a->count; i++) {
		deadline.tv_sec += a->watch;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &deadline, NULL) == EINTR)
			;
		prev = st;
		if (device_stats(fd, &st))
			goto out;
		now_s = now();
		timestamp(when, sizeof(when));
		print_interval(stdout, tp, &st, &prev, now_s - then, when);
		then = now_s;
		if (fflush(stdout))
			goto out;
	}
	ret = EXIT_OK;
out:
	if (tp)
		table_free(tp);
	return ret;
}

static int cmd_stats(const struct verb *v, int argc, char *argv[])
{
	struct stats_args a;
	int fd, ret = stats_args(v, argc, argv, &a);

	if (ret)
		return ret;
	if (a.format == FORMAT_PROMETHEUS)
		return stats_prometheus();
	fd = device_open();
	if (fd < 0)
		return EXIT_FAIL;
	ret = a.watch ? stats_watch(fd, &a) : stats_once(fd, &a);
	close(fd);
	return ret;
}

/* stats --help: the columns -o takes, with and without --watch */
static void stats_columns_help(FILE *f)
{
	table_help(f, "Available output columns (-o)", counter_cols,
		   counter_ncols);
	table_help(f, "With --watch", watch_cols(), watch_ncols);
}

const struct verb stats_verb = {
	.name = "stats", .fn = cmd_stats,
	.summary = "show the module's counters, or what they grow by",
	.synopsis = SYNOPSIS_TABLE " [--format FORMAT] [--watch SECONDS [--count N]]",
	.help = HELP_TABLE HELP_FORMAT
		"      --watch SECONDS\n"
		"                  a header, then every SECONDS one row of what the\n"
		"                  counters grew by (columns: see thpcowctl(8))\n"
		"      --count N   with --watch: stop after N intervals\n",
	.columns = stats_columns_help,
};
