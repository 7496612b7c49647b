// SPDX-License-Identifier: GPL-2.0
/* thpcowctl collapse: smaps and pagemap decisions (see collapse.h). */
#include <stdlib.h>
#include <string.h>

#include "collapse.h"

const char *const skip_names[SKIP_NR] = {
	[SKIP_THP] = "thp",
	[SKIP_SPARSE] = "sparse",
	[SKIP_UFFD] = "uffd",
	[SKIP_NOHUGEPAGE] = "nohugepage",
};

/* Anonymous memory that may show a name: none, the heap, the stack, a
 * prctl(PR_SET_VMA_ANON_NAME) name. [vdso], [vvar] and the like are not. */
static bool anon_name(const char *name)
{
	return !name[0] || strcmp(name, "[heap]") == 0 ||
		strncmp(name, "[stack", 6) == 0 ||
		strncmp(name, "[anon:", 6) == 0;
}

/* "VmFlags: rd wr mr mw me ac um" (two letters each), modified in place. */
static void vm_flags(char *s, struct vma *v)
{
	static const char *const special[] = { "io", "pf", "ht" };
	char *flag, *save;
	size_t i;

	for (flag = strtok_r(s, " \n", &save); flag;
	     flag = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(flag, "um") || !strcmp(flag, "uw") || !strcmp(flag, "ui"))
			v->uffd = true;
		else if (!strcmp(flag, "nh"))
			v->nohugepage = true;
		for (i = 0; i < sizeof(special) / sizeof(special[0]); i++)
			if (!strcmp(flag, special[i]))
				v->special = true;
	}
}

int smaps_next(FILE *f, struct vma *v)
{
	char *line = NULL, perms[8] = "", name[64];
	unsigned long start, end, inode;
	size_t cap = 0;
	int ret = 0, n;

	memset(v, 0, sizeof(*v));
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "VmFlags:", 8) == 0) {
			vm_flags(line + 8, v);
			ret = 1;
			break;
		}
		name[0] = '\0';
		n = sscanf(line, "%lx-%lx %7s %*x %*x:%*x %lu %63s", &start,
			   &end, perms, &inode, name);
		if (n < 4)
			continue;	/* "Rss: 4 kB" and the like */
		v->start = start;
		v->end = end;
		v->anon_private = perms[3] == 'p' && inode == 0 && anon_name(name);
	}
	free(line);
	return ret;
}

unsigned long range_first(const struct vma *v)
{
	return (v->start + HPAGE_SIZE - 1) & ~(HPAGE_SIZE - 1);
}

unsigned long range_end(const struct vma *v)
{
	return v->end & ~(HPAGE_SIZE - 1);
}

void range_scan(const uint64_t pm[HPAGE_PTES], uint64_t zero_pfn,
		struct range_scan *s)
{
	uint64_t pfn;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->pfn0 = pm[0] & PM_PFN_MASK;
	s->aligned_run = (pm[0] & PM_PRESENT) && s->pfn0 % HPAGE_PTES == 0;
	for (i = 0; i < HPAGE_PTES; i++) {
		if (!(pm[i] & PM_PRESENT)) {
			s->aligned_run = false;
			continue;
		}
		pfn = pm[i] & PM_PFN_MASK;
		s->present++;
		if (pfn != zero_pfn)
			s->data++;
		if (pfn != s->pfn0 + i)
			s->aligned_run = false;
	}
}
