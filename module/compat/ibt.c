// SPDX-License-Identifier: GPL-2.0
/*
 * Indirect branch tracking, and the check that thpcow's calls into the
 * kernel are direct.
 *
 * After symbols.c pointed the static calls at what it resolved, the kernel
 * has patched each trampoline into "jmp rel32" and, where the architecture
 * inlines static calls (x86 with objtool), each call site this module
 * records in its static call site list into "call rel32" (a tail call:
 * "jmp rel32" or "jcc rel32"). thpcow_static_call_check() reads that code
 * back before the hook goes live; anything else refuses the load, naming
 * the function.
 */
#include "../thpcow.h"

#include <linux/module.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

bool thpcow_assume_ibt;
module_param_named(assume_ibt, thpcow_assume_ibt, bool, 0444);
MODULE_PARM_DESC(assume_ibt,
		 "Act as on a CPU that enforces indirect branch tracking: refuse to load if any call would need an ENDBR64 that is not there");

bool thpcow_ibt_enforced(void)
{
#ifdef CONFIG_X86_KERNEL_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		return true;
#endif
	return thpcow_assume_ibt;
}

bool thpcow_has_endbr(const void *fn)
{
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	/* The kernel's is_endbr() also accepts a sealed site: not this. */
	return !get_kernel_nofault(insn, (const u32 *)fn) &&
	       insn == gen_endbr();
#else
	return true;
#endif
}

int thpcow_ibt_check_entry(const char *name, const void *fn)
{
	if (thpcow_has_endbr(fn) || !thpcow_ibt_enforced())
		return 0;
	pr_err("%s has no ENDBR64: the kernel's indirect call to it would fault on a CPU that enforces IBT\n",
	       name);
	return -ENOEXEC;
}

/* The target of the call, jmp or jcc rel32 at @insn; NULL for anything else. */
static void *thpcow_branch_target(void *insn, u8 *op)
{
	u8 buf[6];
	s32 rel;

	*op = 0;
	if (copy_from_kernel_nofault(buf, insn, sizeof(buf)))
		return NULL;
	*op = buf[0];
	if (buf[0] == CALL_INSN_OPCODE || buf[0] == JMP32_INSN_OPCODE) {
		memcpy(&rel, buf + 1, sizeof(rel));
		return insn + 5 + rel;
	}
	if (buf[0] == 0x0f && (buf[1] & 0xf0) == 0x80) {
		memcpy(&rel, buf + 2, sizeof(rel));
		return insn + 6 + rel;
	}
	return NULL;
}

/*
 * Does a call to @to reach @func directly? With call depth tracking
 * (retbleed=stuff, 6.2 on) the kernel sends it to @func's accounting
 * thunk in the padding just before @func (callthunks_translate_call_dest()).
 */
static bool thpcow_call_reaches(void *to, void *func)
{
	if (to == func)
		return true;
#if defined(X86_FEATURE_CALL_DEPTH) && defined(CONFIG_FUNCTION_PADDING_BYTES)
	if (cpu_feature_enabled(X86_FEATURE_CALL_DEPTH) && to < func &&
	    func - to <= CONFIG_FUNCTION_PADDING_BYTES)
		return true;
#endif
	return false;
}

static int thpcow_bad_branch(const char *name, const char *what, void *insn,
			     void *func)
{
	pr_err("cannot call %s directly: %s at %pS is %6ph, not a direct branch to %pS\n",
	       name, what, insn, insn, func);
	return -ENOEXEC;
}

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* static_call_addr() and __static_call_key() of kernel/static_call_inline.c */
static void *thpcow_static_call_addr(struct static_call_site *site)
{
	return (void *)((long)site->addr + (long)&site->addr);
}

static unsigned long thpcow_static_call_key(struct static_call_site *site)
{
	return (long)site->key + (long)&site->key;
}

static int thpcow_static_call_check_sites(const char *name,
					  struct static_call_key *key,
					  void *func, unsigned int *sites)
{
	struct static_call_site *site = THIS_MODULE->static_call_sites;
	struct static_call_site *stop = site + THIS_MODULE->num_static_call_sites;
	unsigned long k;
	void *insn, *to;
	bool ok;
	u8 op;

	for (; site < stop; site++) {
		k = thpcow_static_call_key(site);
		if ((struct static_call_key *)(k & ~STATIC_CALL_SITE_FLAGS) != key)
			continue;
		insn = thpcow_static_call_addr(site);
		to = thpcow_branch_target(insn, &op);
		if (!func)	/* a call to nothing: a NOP, or a return */
			ok = op != CALL_INSN_OPCODE;
		else if (k & STATIC_CALL_SITE_TAIL)
			ok = to && op != CALL_INSN_OPCODE && to == func;
		else
			ok = op == CALL_INSN_OPCODE && thpcow_call_reaches(to, func);
		if (!ok)
			return thpcow_bad_branch(name, "the call site", insn, func);
		(*sites)++;
	}
	return 0;
}
#else
static int thpcow_static_call_check_sites(const char *name,
					  struct static_call_key *key,
					  void *func, unsigned int *sites)
{
	/* Every call goes through the trampoline. */
	return 0;
}
#endif

int thpcow_static_call_check(const char *name, struct static_call_key *key,
			     void *tramp, void *func, unsigned int *sites)
{
	void *to;
	u8 op;

	if (!thpcow_static_calls_direct())
		return 0;
	if (READ_ONCE(key->func) != func)
		return thpcow_bad_branch(name, "the static call key", key, func);
	to = thpcow_branch_target(tramp, &op);
	if (func && (op != JMP32_INSN_OPCODE || to != func))
		return thpcow_bad_branch(name, "the trampoline", tramp, func);
	return thpcow_static_call_check_sites(name, key, func, sites);
}
