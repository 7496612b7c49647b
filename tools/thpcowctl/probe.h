/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: does the running kernel, without thpcow, split a write fault on
 * the huge zero page or give it a whole THP (Linux 6.13 on)? Found out by
 * trying, in this process's own memory, as the module does at load.
 */
#ifndef THPCOWCTL_PROBE_H
#define THPCOWCTL_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * module/Kbuild's thpcow-series, thpcow-ubuntu-series and
 * thpcow-rhel-releases (tests/host/install.t checks they agree); the second
 * only for a kernel configured from Ubuntu's tree (CONFIG_UBUNTU_ODM_DRIVERS),
 * as Kbuild tells it; the third RHEL_MAJOR.RHEL_MINOR:series, for a release
 * whose uname -r carries RHEL's ".elMAJOR_MINOR" (Kbuild reads the headers'
 * RHEL_RELEASE_CODE, which a running kernel does not show)
 */
#define THPCOW_SERIES	"5.10 6.1 6.12 7.3"
#define THPCOW_UBUNTU_SERIES	"5.15 6.8"
#define THPCOW_RHEL_RELEASES	"9.6:5.14 10.0:6.12"
#define THPCOW_SERIES_ALL	THPCOW_SERIES ", Ubuntu's " THPCOW_UBUNTU_SERIES \
				" and RHEL's " THPCOW_RHEL_RELEASES
/* the end of what is said where the kernel substitutes by itself */
#define NEEDED_ONLY_FOR	"thpcow is needed only for copy or split"

enum kernel_zero {
	KERNEL_ZERO_UNKNOWN,	/* no huge zero page or no THP to try with */
	KERNEL_ZERO_SPLITS,	/* a split and one 4 KiB page (<= 6.12) */
	KERNEL_ZERO_SUBSTITUTES, /* a whole THP, by itself (>= 6.13) */
};

/* Try; on KERNEL_ZERO_UNKNOWN, why holds the reason. */
enum kernel_zero kernel_zero_probe(char *why, size_t len);
const char *kernel_zero_name(enum kernel_zero k);
/* One sentence on what k means for thpcow on release (status, probe). */
const char *kernel_zero_advice(enum kernel_zero k, const char *release);

/*
 * A kernel's own switch for the fault (openEuler's 6.6 backport of 6.13's
 * behaviour: transparent_hugepage/zero_page_full_cow): "on", "off", or
 * NULL where there is none. kernel_zero_path() says, in one sentence,
 * which path a write fault on the huge zero page takes there, with the
 * module loaded or not and, loaded, whether it found the kernel
 * substituting at load (native zero); NULL where there is no switch.
 */
const char *kernel_zero_switch(void);
const char *kernel_zero_path(const char *sw, bool loaded, bool native);

/*
 * Is the series (VERSION.PATCHLEVEL) of release one thpcow knows? An Ubuntu
 * series only where release's configuration (/boot/config-RELEASE, else its
 * headers' .config) sets CONFIG_UBUNTU_ODM_DRIVERS; a RHEL release only
 * with its series ("5.14.0-570.32.1.el9_6.x86_64": 9.6:5.14).
 */
int series_of(const char *release, char *series, size_t len);
int series_known(const char *release);

#endif /* THPCOWCTL_PROBE_H */
