/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl collapse: what decides about one 2 MiB range, kept apart from
 * the /proc reading and the syscalls so that it can be tested on a host.
 */
#ifndef THPCOWCTL_COLLAPSE_H
#define THPCOWCTL_COLLAPSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HPAGE_SIZE	(2UL << 20)
#define HPAGE_PTES	512

/* /proc/PID/pagemap (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
#define PM_PFN_MASK	((1ULL << 55) - 1)
/* /proc/kpageflags */
#define KPF_THP_BIT	22
#define KPF_ZERO_BIT	24

/* Why a range was left as it was. */
enum skip_reason {
	SKIP_THP,	/* already a THP */
	SKIP_SPARSE,	/* fewer than --min-present data pages */
	SKIP_UFFD,	/* under a userfaultfd registration */
	SKIP_NOHUGEPAGE,	/* MADV_NOHUGEPAGE (the kernel would refuse) */
	SKIP_NR
};

extern const char *const skip_names[SKIP_NR];

/* A mapping of /proc/PID/smaps, as far as collapse cares. */
struct vma {
	unsigned long start, end;
	bool anon_private;	/* private, no file (heap and stack count) */
	bool uffd;		/* VmFlags um, uw or ui */
	bool nohugepage;	/* VmFlags nh */
	bool special;		/* VmFlags io, pf or ht: never */
};

/* A stream of smaps lines in, one vma out per call; 1, 0 at the end. */
int smaps_next(FILE *f, struct vma *v);

/* The first and end (exclusive) 2 MiB-aligned addresses inside a vma. */
unsigned long range_first(const struct vma *v);
unsigned long range_end(const struct vma *v);

/*
 * One range's pagemap entries: how many map data (present, not the zero
 * page), and whether they are one naturally aligned run of 512 frames
 * (a THP or the huge zero page: kpageflags decides which).
 */
struct range_scan {
	unsigned int data;	/* present and not zero_pfn */
	unsigned int present;
	bool aligned_run;	/* 512 present, pfn0 % 512 == 0, contiguous */
	uint64_t pfn0;
};

void range_scan(const uint64_t pm[HPAGE_PTES], uint64_t zero_pfn,
		struct range_scan *s);

#endif /* THPCOWCTL_COLLAPSE_H */
