// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the verbs that only look: status, version, stats. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "output.h"
#include "probe.h"
#include "thpcowctl.h"

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

int cmd_status(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct thpcow_stats st;
	struct module_info mi;
	struct utsname uts;
	bool json = false, have_stats = false, have_mode = false;
	enum kernel_zero k = KERNEL_ZERO_UNKNOWN;
	const char *without = NULL;
	unsigned int mode = 0;
	int opt, ret, sb;
	char why[160];

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
	}
	sb = secure_boot();

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
	};

	print_fields(stdout, fields, ARRAY_SIZE(fields), json);
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

/* Like v4l2loopback-ctl: the tool's version, and the loaded module's. */
int cmd_version(const struct verb *v, int argc, char *argv[])
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_stats(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "watch", required_argument, NULL, OPT_WATCH },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long watch = 0, count = 0, i;
	struct thpcow_stats st, prev;
	struct timespec deadline;
	bool json = false;
	double then, t;
	int opt, ret = 0, fd;

	while (!ret && (opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_JSON)
			json = true;
		else if (opt == OPT_WATCH)
			ret = arg_uint(v, "SECONDS", optarg, 24 * 3600, &watch);
		else if (opt == OPT_COUNT)
			ret = arg_uint(v, "N", optarg, UINT_MAX, &count);
	}
	if (ret)
		return ret;
	verb_no_args(v, argc, argv);
	if (count && !watch)
		return usage_error(v, "--count needs --watch");

	fd = device_open();
	if (fd < 0)
		return EXIT_FAIL;
	if (device_stats(fd, &st))
		goto fail;
	if (!watch) {
		print_counters(stdout, &st, NULL, 0, json);
		close(fd);
		return EXIT_OK;
	}
	/* absolute deadlines: the intervals do not drift */
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	then = now();
	for (i = 0; !count || i < count; i++) {
		deadline.tv_sec += watch;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &deadline, NULL) == EINTR)
			;
		prev = st;
		if (device_stats(fd, &st))
			goto fail;
		t = now();
		print_counters(stdout, &st, &prev, t - then, json);
		then = t;
		if (fflush(stdout))
			goto fail;
	}
	close(fd);
	return EXIT_OK;
fail:
	close(fd);
	return EXIT_FAIL;
}
