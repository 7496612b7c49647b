// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): collapse's reading
 * of smaps and pagemap, and of libvirt's words.
 */
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "libvirt.h"

#include "test.h"

/*
 * libvirt's words: another domain's event taken for ours (a name that is
 * a prefix of another's), "Started Migrated" (incoming begins) taken for
 * the end, a state reason misread.
 */
static int test_virsh_lines(const void *arg)
{
	static const struct {
		const char *line;
		enum mig_state want;
	} ev[] = {
		{ "event 'lifecycle' for domain 'vm1': Started Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm1': Resumed Post-copy", MIG_POSTCOPY },
		{ "event 'lifecycle' for domain 'vm1': Resumed Migrated", MIG_DONE },
		{ "2026-12-02 02:00:00.000+0000: event 'lifecycle' for domain 'vm1': Resumed Migrated",
		  MIG_DONE },
		{ "event 'lifecycle' for domain 'vm10': Resumed Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm': Resumed Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm1': Stopped Failed", MIG_GONE },
		{ "event 'lifecycle' for domain 'vm1': Resumed Unpaused", MIG_WAITING },
		{ "event 'reboot' for domain 'vm1'", MIG_WAITING },
	};
	static const struct {
		const char *line;
		enum mig_state want;
	} st[] = {
		{ "running (migrated)\n", MIG_DONE },
		{ "running (post-copy)\n", MIG_POSTCOPY },
		{ "paused (migrating)\n", MIG_WAITING },
		{ "running (booted)\n", MIG_WAITING },
		{ "shut off (failed)\n", MIG_GONE },
	};
	size_t i;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		if (virsh_event_line(ev[i].line, "vm1", NULL) != ev[i].want)
			return fail("[%s]: %d, want %d", ev[i].line,
				    virsh_event_line(ev[i].line, "vm1", NULL),
				    ev[i].want);
	for (i = 0; i < ARRAY_SIZE(st); i++)
		if (virsh_state_line(st[i].line) != st[i].want)
			return fail("[%s]: %d, want %d", st[i].line,
				    virsh_state_line(st[i].line), st[i].want);
	return PASS;
}

/* --- collapse: smaps and pagemap --------------------------------------- */

#define SMAPS_VMA(range, perms, dev, inode, name, flags)			\
	range " " perms " 00000000 " dev " " inode "  " name "\n"		\
	"Size:               2048 kB\nAnonHugePages:         0 kB\n"		\
	"FilePmdMapped:         0 kB\nVmFlags: " flags "\n"

/* Which mappings collapse looks at, and their flags. */
static int test_smaps(const void *arg)
{
	static const char text[] =
		SMAPS_VMA("00400000-00600000", "r-xp", "fd:01", "123", "/bin/x", "rd ex")
		SMAPS_VMA("7f0000000000-7f0000a00000", "rw-p", "00:00", "0", "", "rd wr hg")
		SMAPS_VMA("7f0000a00000-7f0000e00000", "rw-p", "00:00", "0", "", "rd wr um nh")
		SMAPS_VMA("7f0000e00000-7f0001000000", "rw-s", "00:01", "9", "/dev/zero (deleted)", "rd wr sh")
		SMAPS_VMA("7f0001000000-7f0001200000", "rw-p", "00:00", "0", "[heap]", "rd wr io")
		SMAPS_VMA("7ffff7ffd000-7ffff7fff000", "r--p", "00:00", "0", "[vvar]", "rd pf");
	static const char want[] =
		"00400000-00600000 anon=0 uffd=0 nh=0 special=0 ranges=1\n"
		"7f0000000000-7f0000a00000 anon=1 uffd=0 nh=0 special=0 ranges=5\n"
		"7f0000a00000-7f0000e00000 anon=1 uffd=1 nh=1 special=0 ranges=2\n"
		"7f0000e00000-7f0001000000 anon=0 uffd=0 nh=0 special=0 ranges=1\n"
		"7f0001000000-7f0001200000 anon=1 uffd=0 nh=0 special=1 ranges=1\n"
		"7ffff7ffd000-7ffff7fff000 anon=0 uffd=0 nh=0 special=1 ranges=0\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	char *got = NULL;
	struct vma v;
	int ret;

	(void)arg;
	CAPTURE(got, out, while (smaps_next(f, &v) > 0)
		fprintf(out, "%08lx-%08lx anon=%d uffd=%d nh=%d special=%d ranges=%lu\n",
			v.start, v.end, v.anon_private, v.uffd, v.nohugepage,
			v.special, range_end(&v) > range_first(&v) ?
			(range_end(&v) - range_first(&v)) / HPAGE_SIZE : 0));
	fclose(f);
	ret = expect_str("vmas", got, want);
	free(got);
	return ret;
}

/* Data pages, the zero page, and aligned runs of 512 frames. */
static int test_range_scan(const void *arg)
{
	static uint64_t pm[HPAGE_PTES];
	struct range_scan s;
	unsigned int i;

	(void)arg;
	for (i = 0; i < HPAGE_PTES; i++)
		pm[i] = PM_PRESENT | (1024 + i);
	range_scan(pm, 7, &s);
	if (s.data != 512 || !s.aligned_run || s.pfn0 != 1024)
		return fail("a THP: data %u run %d", s.data, s.aligned_run);
	pm[3] = PM_PRESENT | 7;		/* the zero page */
	pm[4] = PM_SWAP | 1028;		/* swapped out: not present */
	pm[5] = 0;
	range_scan(pm, 7, &s);
	if (s.data != 509 || s.present != 510 || s.aligned_run)
		return fail("4 KiB pages: data %u present %u run %d", s.data,
			    s.present, s.aligned_run);
	for (i = 0; i < HPAGE_PTES; i++)
		pm[i] = PM_PRESENT | (1025 + i);	/* contiguous, unaligned */
	range_scan(pm, 7, &s);
	if (s.aligned_run)
		return fail("an unaligned run taken for a THP");
	return PASS;
}

static const struct test tests[] = {
	{ "collapse: smaps mappings and flags", test_smaps, NULL },
	{ "collapse: pagemap ranges", test_range_scan, NULL },
	{ "collapse: virsh's lifecycle events and states", test_virsh_lines, NULL },
};

TEST_AREA(collapse_tests, tests);
