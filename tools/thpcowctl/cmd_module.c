// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: load and unload, through libkmod. */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "args.h"
#include "cmd_module.h"
#include "conf.h"
#include "device.h"
#include "kmod.h"
#include "parse.h"
#include "reload.h"
#include "thpcowctl.h"

#define SEE_DMESG	" (see dmesg)"
#define MODULE_ROOT	"permission denied: root (CAP_SYS_MODULE) is needed"

/* What init_module()/finit_module() errors mean, as modprobe words them. */
static void insert_error(const char *what, int err)
{
	switch (err) {
	case EEXIST:
		error_msg("%s: already loaded", what);
		break;
	case ENOENT:
		error_msg("%s: unknown symbol in module, or unknown parameter"
			  SEE_DMESG, what);
		break;
	case ENOEXEC:
		error_msg("%s: invalid module format (built for another "
			  "kernel?)" SEE_DMESG, what);
		break;
	case EPERM:
	case EACCES:
		error_msg("%s: " MODULE_ROOT ", or the kernel refuses unsigned "
			  "modules" SEE_DMESG, what);
		break;
	case EINVAL:
	case EOPNOTSUPP:
		error_msg("%s: %s: a module parameter was refused (is the mode "
			  "supported?)" SEE_DMESG, what, strerror(err));
		break;
	case EKEYREJECTED:
		error_msg("%s: module signature rejected" SEE_DMESG, what);
		break;
	default:
		error_msg("%s: %s" SEE_DMESG, what, strerror(err));
		break;
	}
}

/* The module to load: the installed one, or FILE.ko (which must be ours). */
static int find_module(struct kmod_ctx *ctx, const char *path,
		       struct kmod_module **mod)
{
	struct utsname uts;
	int ret;

	if (path) {
		ret = kmod_module_new_from_path(ctx, path, mod);
		if (ret < 0) {
			error_msg("%s: %s", path, strerror(-ret));
			return -1;
		}
		if (strcmp(kmod_module_get_name(*mod), MODULE_NAME)) {
			error_msg("%s: not the " MODULE_NAME " module (it is '%s')",
				  path, kmod_module_get_name(*mod));
			return -1;
		}
		return 0;
	}
	ret = kmod_module_new_from_name(ctx, MODULE_NAME, mod);
	if (ret < 0) {
		error_msg(MODULE_NAME ": %s", strerror(-ret));
		return -1;
	}
	if (!kmod_module_get_path(*mod) && !module_live(*mod)) {
		if (uname(&uts))
			strcpy(uts.release, "this kernel");
		error_msg(MODULE_NAME ": module not installed for %s "
			  "(try: " PROGRAM_NAME " load --path FILE.ko, "
			  "or make install)", uts.release);
		return -1;
	}
	return 0;
}

/* A file's srcversion (modinfo), in buf; false if it has none. */
static bool file_srcversion(struct kmod_module *mod, char *buf, size_t len)
{
	struct kmod_list *info = NULL, *l;
	bool found = false;

	if (kmod_module_get_info(mod, &info) < 0)
		return false;
	kmod_list_foreach(l, info) {
		if (strcmp(kmod_module_info_get_key(l), "srcversion"))
			continue;
		snprintf(buf, len, "%s", kmod_module_info_get_value(l));
		found = true;
		break;
	}
	kmod_module_info_free_list(info);
	return found;
}

/*
 * load when thpcow is loaded: success, as modprobe's, if it is the same
 * build as the file (the same srcversion; a file that cannot be compared
 * counts as the same) and, with --default, the global mode is MODE.
 */
static int already_loaded(struct kmod_module *mod, const char *path,
			  unsigned int mode)
{
	char loaded[64], file[64], global[32];
	const char *what = path ? path : kmod_module_get_path(mod);

	if (what && file_srcversion(mod, file, sizeof(file)) &&
	    read_line(SYSFS_MODULE "/srcversion", loaded, sizeof(loaded)) == 0 &&
	    strcmp(loaded, file)) {
		error_msg(MODULE_NAME ": already loaded from another build "
			  "(srcversion %s; %s has %s; to reload: " PROGRAM_NAME
			  " unload first)", loaded, what, file);
		return EXIT_FAIL;
	}
	if (mode == THPCOW_MODE_NR)
		return EXIT_OK;
	read_line(SYSFS_MODULE "/parameters/default_mode", global, sizeof(global));
	if (strcmp(global, mode_name(mode)) == 0)
		return EXIT_OK;
	error_msg(MODULE_NAME ": already loaded, with the global mode %s (to "
		  "change it: " PROGRAM_NAME " set --global %s)",
		  global[0] ? global : "unknown", mode_name(mode));
	return EXIT_FAIL;
}

static int cmd_load(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "default", required_argument, NULL, OPT_DEFAULT },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *path = NULL, *what;
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	unsigned int mode = THPCOW_MODE_NR;
	char options[64] = "";
	int opt, ret = 0;

	while (!ret && (opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_PATH)
			path = optarg;
		else if (opt == OPT_DEFAULT)
			ret = arg_mode(v, optarg, &mode);
	}
	if (ret)
		return ret;
	if (mode != THPCOW_MODE_NR)
		snprintf(options, sizeof(options), "default_mode=%s",
			 mode_name(mode));
	verb_no_args(v, argc, argv);

	ctx = module_ctx_new();
	if (!ctx)
		return EXIT_FAIL;
	ret = EXIT_FAIL;
	what = path ? path : MODULE_NAME;
	if (find_module(ctx, path, &mod))
		goto out;
	if (module_live(mod)) {
		ret = already_loaded(mod, path, mode);
		goto out;
	}
	if (path)
		ret = kmod_module_insert_module(mod, 0, options);
	else
		ret = kmod_module_probe_insert_module(mod,
				KMOD_PROBE_FAIL_ON_LOADED, options,
				NULL, NULL, NULL);
	if (ret < 0)
		insert_error(what, -ret);
	ret = ret < 0 ? EXIT_FAIL : EXIT_OK;
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

const struct verb load_verb = {
	.name = "load", .fn = cmd_load,
	.summary = "load the module (installed, or from a file); "
		"success if it is loaded already from the same build",
	.synopsis = "[--default MODE] [--path FILE.ko]",
	.help = "  --default MODE  the global mode to start with\n"
		"  --path FILE.ko  load this file instead of the installed module\n",
	.takes_mode = true,
};

static int cmd_unload(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int ret;

	while (verb_getopt(v, argc, argv, opts) != -1)
		;
	verb_no_args(v, argc, argv);

	ctx = module_ctx_new();
	if (!ctx)
		return EXIT_FAIL;
	ret = kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
	if (ret < 0) {
		error_msg(MODULE_NAME ": %s", strerror(-ret));
	} else if (kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN) {
		error_msg(MODULE_NAME ": built into the kernel, cannot unload");
		ret = -1;
	} else if (!module_live(mod)) {
		error_msg(MODULE_NAME ": module not loaded");
		ret = -1;
	} else {
		/* every error is reported below, in words: not by libkmod too */
		kmod_set_log_priority(ctx, LOG_EMERG);
		ret = kmod_module_remove_module(mod, 0);
		if (ret == -EBUSY || ret == -EAGAIN)
			error_msg(MODULE_NAME ": module is in use (close what holds "
				  THPCOW_DEVICE_PATH ", then try again)");
		else if (ret == -EPERM || ret == -EACCES)
			error_msg(MODULE_NAME ": " MODULE_ROOT);
		else if (ret < 0)
			error_msg(MODULE_NAME ": %s" SEE_DMESG, strerror(-ret));
	}
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

const struct verb unload_verb = {
	.name = "unload", .fn = cmd_unload,
	.summary = "unload the module",
	.synopsis = "",
};

/* Run verb as 'thpcowctl VERB [ARG]' would, from within another verb. */
static int run_verb(const struct verb *v, const char *arg)
{
	char *argv[] = { (char *)v->name, (char *)arg, NULL };

	optind = 0;
	return v->fn(v, arg ? 2 : 1, argv);
}

/* systemctl ACTION UNIT... (without systemd: not run, 1) */
static int systemctl(const char *action, const char *unit, const char *unit2)
{
	char *argv[] = { "systemctl", "--quiet", (char *)action, (char *)unit,
			 (char *)unit2, NULL };

	if (access("/run/systemd/system", F_OK))
		return 1;
	return run_command(argv);
}

#define METRICS_TIMER	"thpcow-metrics.timer"

/*
 * The installed module in place of the loaded one, with guests running:
 * their write faults on the huge zero page get the kernel's split between
 * unload and load (unload waits for the faults in flight). The metrics
 * timer, which opens /dev/thpcow every minute, is stopped meanwhile; the
 * rules are the file's again (rules set by hand are gone with the old
 * module). Refused while a QEMU is still receiving an incoming migration
 * (incoming_migration()), whose guest would lose its THPs just then.
 */
static int cmd_reload(const struct verb *v, int argc, char *argv[])
{
	enum { OPT_FORCE = 0x200, OPT_CONF };
	static const struct option opts[] = {
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "conf", required_argument, NULL, OPT_CONF },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *conf = CONF_PATH;
	bool force = false, timer;
	char name[64];
	int opt, ret;
	pid_t pid;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_FORCE)
			force = true;
		else
			conf = optarg;
	}
	verb_no_args(v, argc, argv);

	pid = force ? 0 : incoming_migration("/proc", name, sizeof(name));
	if (pid > 0) {
		error_msg("reload: %s (QEMU, pid %d) is receiving an incoming "
			  "migration: reload when it has ended (or --force)",
			  name, (int)pid);
		return EXIT_FAIL;
	}
	timer = systemctl("is-active", METRICS_TIMER, NULL) == 0;
	if (timer && systemctl("stop", METRICS_TIMER, "thpcow-metrics.service")) {
		error_msg("reload: systemctl stop " METRICS_TIMER " failed");
		return EXIT_FAIL;
	}
	ret = module_loaded() ? run_verb(&unload_verb, NULL) : EXIT_OK;
	if (ret == EXIT_OK)
		ret = run_verb(&load_verb, NULL);
	if (ret == EXIT_OK && (strcmp(conf, CONF_PATH) || !access(conf, F_OK)))
		ret = apply_file(conf, false) ? EXIT_FAIL : EXIT_OK;
	if (timer && systemctl("start", METRICS_TIMER, NULL)) {
		error_msg("reload: systemctl start " METRICS_TIMER " failed");
		ret = EXIT_FAIL;
	}
	return ret;
}

const struct verb reload_verb = {
	.name = "reload", .fn = cmd_reload,
	.summary = "the installed module in place of the loaded one, "
		"guests running",
	.synopsis = "[--force] [--conf FILE]",
	.help = "  --force         even while a QEMU receives an incoming migration\n"
		"  --conf FILE     apply FILE (default " CONF_PATH ", if it exists)\n",
};
