// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the libkmod helpers of load, unload, status and probe. */
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "kmod.h"
#include "thpcowctl.h"

/* libkmod's own messages, errors only, through our one helper. */
static void __attribute__((format(printf, 6, 0)))
kmod_log(void *data, int priority, const char *file, int line,
	 const char *fn, const char *format, va_list args)
{
	char msg[512];

	(void)data, (void)file, (void)line, (void)fn;
	if (priority > LOG_ERR)
		return;
	vsnprintf(msg, sizeof(msg), format, args);
	msg[strcspn(msg, "\n")] = '\0';
	error_msg("libkmod: %s", msg);
}

struct kmod_ctx *module_ctx_new(void)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (!ctx) {
		error_msg("libkmod: cannot create a context");
		return NULL;
	}
	kmod_set_log_fn(ctx, kmod_log, NULL);
	kmod_set_log_priority(ctx, LOG_ERR);
	return ctx;
}

bool module_live(struct kmod_module *mod)
{
	int state = kmod_module_get_initstate(mod);

	return state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING ||
	       state == KMOD_MODULE_BUILTIN;
}

bool module_installed(void)
{
	return module_installed_version(NULL, 0);
}

/* The "version" of the installed module's file (modinfo -F version). */
static void file_version(struct kmod_module *mod, char *buf, size_t len)
{
	struct kmod_list *info = NULL, *l;

	snprintf(buf, len, "%s", "");
	if (kmod_module_get_info(mod, &info) < 0)
		return;
	kmod_list_foreach(l, info) {
		if (strcmp(kmod_module_info_get_key(l), "version") == 0) {
			snprintf(buf, len, "%s", kmod_module_info_get_value(l));
			break;
		}
	}
	kmod_module_info_free_list(info);
}

bool module_installed_version(char *buf, size_t len)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod = NULL;
	bool ret = false;

	if (!ctx)
		return false;
	if (kmod_module_new_from_name(ctx, MODULE_NAME, &mod) == 0) {
		ret = kmod_module_get_path(mod) != NULL;
		if (ret && buf)
			file_version(mod, buf, len);
		kmod_module_unref(mod);
	}
	kmod_unref(ctx);
	return ret;
}
