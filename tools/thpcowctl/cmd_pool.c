// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl pool: the module's pool of pre-zeroed THPs, its parameter
 * pool_mib (MiB per NUMA node) and what debugfs says of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_pool.h"
#include "output.h"
#include "parse.h"
#include "thpcowctl.h"

#define POOL_PARAM	SYSFS_MODULE "/parameters/pool_mib"
#define DEBUGFS_POOL	"/sys/kernel/debug/" MODULE_NAME "/pool"
#define POOL_FIELDS	64
#define POOL_MIB_MAX	(1ULL << 31)

/* pool_mib = @mib; what the module said, in thpcowctl's words. */
static int pool_set(unsigned long long mib)
{
	char buf[32];
	int fd, n, err = 0;

	n = snprintf(buf, sizeof(buf), "%llu\n", mib);
	fd = open(POOL_PARAM, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, buf, n) != n)
		err = errno;
	if (fd >= 0)
		close(fd);
	switch (err) {
	case 0:
		return EXIT_OK;
	case ENOENT:
		error_msg("pool: " MODULE_NAME " is not loaded (or is older than the pool)");
		break;
	case EPERM:
	case EACCES:
		error_msg("pool: permission denied: root (CAP_SYS_ADMIN) is needed");
		break;
	case EINVAL:
		error_msg("pool: %llu MiB: not a multiple of 2 MiB, or more than "
			  "half of the memory over all NUMA nodes", mib);
		break;
	case EOPNOTSUPP:
		error_msg("pool: this kernel gives a write on the huge zero page "
			  "a THP itself: a pool would serve nothing");
		break;
	default:
		error_msg("pool: %s: %s", POOL_PARAM, strerror(err));
	}
	return EXIT_FAIL;
}

/* debugfs' KEY VALUE lines, as fields. */
static int pool_show(bool json)
{
	static char keys[POOL_FIELDS][32];
	struct field fields[POOL_FIELDS];
	unsigned long long v;
	size_t n = 0;
	char line[128];
	FILE *f = fopen(DEBUGFS_POOL, "re");

	if (!f) {
		if (errno == ENOENT)
			error_msg("pool: no %s (the module is not loaded, or debugfs "
				  "is not mounted)", DEBUGFS_POOL);
		else
			error_msg("pool: %s: %s", DEBUGFS_POOL, strerror(errno));
		return EXIT_FAIL;
	}
	while (n < POOL_FIELDS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %llu", keys[n], &v) == 2) {
			fields[n] = FIELD_UINT(keys[n], keys[n], v);
			n++;
		}
	fclose(f);
	print_fields(stdout, fields, n, json);
	return EXIT_OK;
}

static int cmd_pool(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long mib = 0;
	bool json = false;
	int opt;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1)
		json |= opt == OPT_JSON;
	if (optind == argc)
		return pool_show(json);
	if (argc - optind > 1)
		return usage_error(v, "one MIB at most");
	if (json)
		return usage_error(v, "-J shows the pool; it takes no MIB");
	if (strcmp(argv[optind], "off") &&
	    parse_uint(argv[optind], POOL_MIB_MAX, &mib))
		return usage_error(v, "'%s' is not a number of MiB, nor off",
				   argv[optind]);
	return pool_set(mib);
}

const struct verb pool_verb = {
	.name = "pool", .fn = cmd_pool,
	.summary = "show, size or turn off the pool of pre-zeroed THPs",
	.synopsis = "[-J] [MIB | off]",
	.help = HELP_JSON
		"  MIB             keep MIB of zeroed THPs per NUMA node for 'zero'\n"
		"                  (a multiple of 2; 0 or off: no pool); without it,\n"
		"                  show the pool (debugfs): mib, target, thps,\n"
		"                  poisoned, refill_ns, cpu_ns, nodeN_thps, nodeN_target\n",
};
