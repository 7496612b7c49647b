// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: the kernel's own behaviour on a write fault on the huge zero
 * page. In a fresh 2 MiB-aligned range with MADV_HUGEPAGE: a write to a
 * first 2 MiB must get a THP (else nothing can be said), then a read of a
 * second maps the huge zero page and a write there either gets a THP too
 * (the kernel substitutes) or splits. The THPs are counted in the range's
 * VMA in /proc/self/smaps, before and after, so merged neighbours do not
 * matter. Nothing outside this process changes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "probe.h"
#include "thpcowctl.h"

#define PMD_SIZE	(2UL << 20)
#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage/"

/* AnonHugePages (kB) of the VMA holding addr, or -1. */
static long anon_huge_kb(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, start, end;
	FILE *f = fopen("/proc/self/smaps", "re");
	bool in = false;
	char line[512];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = start <= a && a < end;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

enum kernel_zero kernel_zero_probe(char *why, size_t len)
{
	enum kernel_zero ret = KERNEL_ZERO_UNKNOWN;
	volatile char *first, *second;
	long before, after_first, after_second;
	char enabled[128] = "", zero[16] = "";
	char *map;

	read_line(THP_SYSFS "enabled", enabled, sizeof(enabled));
	read_line(THP_SYSFS "use_zero_page", zero, sizeof(zero));
	if (!enabled[0] || strstr(enabled, "[never]")) {
		snprintf(why, len, "THP is off (transparent_hugepage/enabled: %s)",
			 enabled[0] ? "never" : "missing");
		return ret;
	}
	if (strcmp(zero, "1")) {
		snprintf(why, len, "the huge zero page is off "
			 "(transparent_hugepage/use_zero_page: %s)",
			 zero[0] ? zero : "missing");
		return ret;
	}
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1) {
		snprintf(why, len, "THP is disabled for this process (PR_SET_THP_DISABLE)");
		return ret;
	}
	map = mmap(NULL, 3 * PMD_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return ret;
	}
	first = (char *)(((uintptr_t)map + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	second = first + PMD_SIZE;
	if (madvise((void *)first, 2 * PMD_SIZE, MADV_HUGEPAGE)) {
		snprintf(why, len, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
		goto out;
	}
	before = anon_huge_kb((const void *)first);
	first[0] = 1;
	after_first = anon_huge_kb((const void *)first);
	if (before < 0 || after_first - before < (long)(PMD_SIZE >> 10)) {
		snprintf(why, len, "no THP to be had now (a first write got 4 KiB)");
		goto out;
	}
	(void)second[0];
	second[0] = 1;
	after_second = anon_huge_kb((const void *)second);
	ret = after_second - after_first >= (long)(PMD_SIZE >> 10) ?
		KERNEL_ZERO_SUBSTITUTES : KERNEL_ZERO_SPLITS;
out:
	munmap(map, 3 * PMD_SIZE);
	return ret;
}

const char *kernel_zero_name(enum kernel_zero k)
{
	switch (k) {
	case KERNEL_ZERO_SPLITS:
		return "splits";
	case KERNEL_ZERO_SUBSTITUTES:
		return "whole THP";
	default:
		return "unknown";
	}
}

/* "6.1" of "6.1.0-57-amd64"; 0, or -1 if release is not N.N... */
int series_of(const char *release, char *series, size_t len)
{
	unsigned int major, minor;
	int n = 0;

	if (sscanf(release, "%u.%u%n", &major, &minor, &n) != 2 || !n)
		return -1;
	snprintf(series, len, "%u.%u", major, minor);
	return 0;
}

static int in_list(const char *series, const char *list)
{
	size_t n = strlen(series);
	const char *p;

	for (p = list; (p = strstr(p, series)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* Does release's configuration set CONFIG_UBUNTU_ODM_DRIVERS? */
static int ubuntu_kernel(const char *release)
{
	static const char *const where[] = { "/boot/config-%s", "/lib/modules/%s/build/.config" };
	char path[256], line[256];
	size_t i;
	int found = 0;

	for (i = 0; i < ARRAY_SIZE(where) && !found; i++) {
		FILE *f;

		snprintf(path, sizeof(path), where[i], release);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f))
			found = !strncmp(line, "CONFIG_UBUNTU_ODM_DRIVERS=", 26) &&
				(line[26] == 'y' || line[26] == 'm');
		fclose(f);
	}
	return found;
}

/*
 * "9.6:5.14" of "5.14.0-570.32.1.el9_6.x86_64" (RHEL's) or of
 * "5.14.0-570.32.1.el9.6" (the harness's build); 0, or -1 if release does
 * not name a RHEL release.
 */
static int rhel_release(const char *release, const char *series, char *out,
			size_t len)
{
	const char *p = strstr(release, ".el");
	unsigned int major, minor;
	char sep;
	int n = 0;

	if (!p || sscanf(p, ".el%u%c%u%n", &major, &sep, &minor, &n) != 3 ||
	    (sep != '_' && sep != '.') || (p[n] && p[n] != '.'))
		return -1;
	snprintf(out, len, "%u.%u:%s", major, minor, series);
	return 0;
}

int series_known(const char *release)
{
	char s[32], r[48];

	if (series_of(release, s, sizeof(s)))
		return 0;
	if (!rhel_release(release, s, r, sizeof(r)))
		return in_list(r, THPCOW_RHEL_RELEASES);
	return in_list(s, THPCOW_SERIES) ||
		(in_list(s, THPCOW_UBUNTU_SERIES) && ubuntu_kernel(release));
}

const char *kernel_zero_switch(void)
{
	char v[16] = "";

	if (read_line(THP_SYSFS "zero_page_full_cow", v, sizeof(v)))
		return NULL;
	return strcmp(v, "0") ? "on" : "off";
}

const char *kernel_zero_path(const char *sw, bool loaded, bool native)
{
	bool on = sw && !strcmp(sw, "on");

	if (!sw)
		return NULL;
	if (!loaded)
		return on ? "the kernel's own whole THP (its zero_page_full_cow is on)" :
			"the kernel's split (its zero_page_full_cow is off: "
			"writing 1 there gives whole THPs without thpcow)";
	if (native)
		return "the kernel's own whole THP (zero_page_full_cow was on when "
			"thpcow loaded: 'zero' passes through, 'split' splits)";
	return on ? "thpcow's whole THP in the memory its rules name, the kernel's "
		"own (zero_page_full_cow, on since thpcow loaded) elsewhere" :
		"thpcow's whole THP in the memory its rules name, the kernel's "
		"split elsewhere (zero_page_full_cow is off)";
}

/* One sentence on what k means for thpcow on release. */
const char *kernel_zero_advice(enum kernel_zero k, const char *release)
{
	const char *sw = kernel_zero_switch();

	if (k == KERNEL_ZERO_SUBSTITUTES && sw && !strcmp(sw, "on"))
		return "this kernel gives whole THPs by itself (its "
			"zero_page_full_cow switch is on): " NEEDED_ONLY_FOR;
	if (k == KERNEL_ZERO_SUBSTITUTES)
		return "this kernel gives whole THPs by itself (Linux >= 6.13): "
			NEEDED_ONLY_FOR;
	if (!series_known(release))
		return k == KERNEL_ZERO_SPLITS ?
			"this kernel splits, and thpcow does not support its series yet" :
			"thpcow does not support this kernel's series";
	return k == KERNEL_ZERO_SPLITS ?
		"this kernel splits: thpcow gives whole THPs to the memory its rules name" :
		"cannot tell whether this kernel splits";
}
