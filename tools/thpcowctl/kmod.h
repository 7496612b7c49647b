/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: libkmod, as the verbs use it. No libkmod type is needed to
 * include this header (status and probe ask only module_installed()).
 */
#ifndef THPCOWCTL_KMOD_H
#define THPCOWCTL_KMOD_H

#include <stdbool.h>

struct kmod_ctx;
struct kmod_module;

/* A libkmod context whose errors go through error_msg(); NULL reported. */
struct kmod_ctx *module_ctx_new(void);
/* Is mod loaded (live, coming, or built in)? */
bool module_live(struct kmod_module *mod);
/* Is a thpcow module installed for the running kernel? */
bool module_installed(void);
/* ... and, in buf (len bytes; empty if it has none), its file's version. */
bool module_installed_version(char *buf, size_t len);

#endif /* THPCOWCTL_KMOD_H */
