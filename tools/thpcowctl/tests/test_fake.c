// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): thpcowctl run as a
 * process against test_fakedev.so (tests/fakedev.c), a stand-in for the
 * module preloaded into it: each verb's requests, output and errors.
 */
#include <uapi/thpcow.h>

#include "test.h"

static const struct test tests[] = {
	/* status failing (or lying) when the module is simply not there;
	 * exit 3 (UNKNOWN to Nagios) where the kernel needs no module */
	SH("cli: status without the module: exit 3, or 0 where not needed",
	   "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; "
	   "p=$(\"$1/thpcowctl\" probe --json); out=$(\"$1/thpcowctl\" status); rc=$?; "
	   "grep -qx 'module loaded: *no' <<<\"$out\" || echo \"$out\"; "
	   "case $p in *'\"whole THP\"'*) [ $rc = 0 ];; *) [ $rc = 3 ];; esac || "
	   "echo \"rc $rc with $p\"", ""),
	/* --check needing the module; the shipped example not valid */
	SH("cli: apply --check of dist/thpcow.conf", "/bin/bash",
	   "\"$1/thpcowctl\" apply --check \"$1/../../dist/thpcow.conf\"", ""),
	/* probe without an answer, or exit 0 when it has none */
	SH("cli: probe answers splits, whole THP or unknown (exit 1)", "/bin/bash",
	   "out=$(\"$1/thpcowctl\" probe --json); rc=$?; case $out in "
	   "*'\"without_thpcow\":\"splits\"'*|*'\"without_thpcow\":\"whole THP\"'*) "
	   "[ $rc = 0 ];; *'\"without_thpcow\":\"unknown\"'*) [ $rc = 1 ];; "
	   "*) false;; esac", ""),
	/* the THP settings not read, or the whole "always [madvise] never" */
	SH("cli: status shows the THP settings", "/usr/bin/jq",
	   "t=/sys/kernel/mm/transparent_hugepage; [ -r $t/enabled ] || exit 0; "
	   "w() { sed 's/.*\\[\\(.*\\)\\].*/\\1/' \"$t/$1\"; }; "
	   "\"$1/thpcowctl\" status --json | jq -r '[.thp_enabled, .thp_defrag, "
	   ".thp_use_zero_page, .khugepaged_defrag] | join(\" \")' | "
	   "grep -qxF \"$(w enabled) $(w defrag) $(cat $t/use_zero_page) "
	   "$(cat $t/khugepaged/defrag)\" || echo differ", ""),
	/* status without the module not saying what the kernel does */
	SH("cli: status without the module: what the kernel does alone", "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; \"$1/thpcowctl\" status | "
	   "grep -E '^without thpcow: +(splits|whole THP|unknown)$' >/dev/null", ""),
	/* check: a state that is not the kernel's (CRITICAL where nothing is
	 * needed), or an exit status that is not the state */
	SH("cli: check without the module: OK where not needed, else CRITICAL",
	   "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; "
	   "p=$(\"$1/thpcowctl\" probe --json); out=$(\"$1/thpcowctl\" check); rc=$?; "
	   "case $p in *'\"whole THP\"'*) w='0 THPCOW OK - not needed: Linux';; "
	   "*'\"splits\"'*) w='2 THPCOW CRITICAL - module not loaded, and Linux';; "
	   "*) w='3 THPCOW UNKNOWN - module not loaded';; esac; "
	   "case \"$rc $out\" in \"$w\"*) ;; *) echo \"$rc $out\";; esac", ""),
	/* a metric a real parser refuses, or values other than the counters */
	SH("stats --format prometheus: prometheus_client parses it",
	   "/usr/lib/python3/dist-packages/prometheus_client/parser.py",
	   "export THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null; "
	   "t=$(mktemp -d); LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" "
	   "stats --format prometheus >\"$t/p\" && "
	   "{ LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" stats -n -r; "
	   "echo policies 2; echo global_mode zero; } >\"$t/s\" && "
	   "\"$1/../../tests/lib/prometheus-check.py\" \"$t/p\" \"$t/s\" 2097152; "
	   "rm -rf \"$t\"", "ok\n"),
	/* usage's metrics refused by a real parser, or other than debugfs'
	 * rows (the fake device's, as debugfs usage would show them) */
	SH("usage --format prometheus: prometheus_client parses it",
	   "/usr/lib/python3/dist-packages/prometheus_client/parser.py",
	   "export THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null; "
	   "t=$(mktemp -d); LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" "
	   "usage --format prometheus >\"$t/p\" && "
	   "printf '# scope\\ttarget\\tsubstituted\\tcopied\\tsplit\\tfallback_ineligible\\t"
	   "fallback_uffd\\tfallback_alloc\\tfallback_charge\\tfallback_unstable\\t"
	   "fallback_pinned\\tthp_bytes\\tname\\n"
	   "cgroup\\t99\\t128\\t0\\t0\\t0\\t2\\t3\\t0\\t0\\t0\\t268435456\\t"
	   "/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\\n"
	   "pid\\t42\\t64\\t1\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t136314880\\tqemu\"kvm\\n"
	   "other\\t-\\t0\\t0\\t0\\t5\\t0\\t0\\t0\\t0\\t0\\t0\\t-\\n"
	   "# slots 1 of 1024\\n' >\"$t/d\" && "
	   "\"$1/../../tests/lib/prometheus-check.py\" --usage \"$t/p\" \"$t/d\"; "
	   "rm -rf \"$t\"", "ok\n"),

	/* below: against test_fakedev.so, which checks arguments as the
	 * module does and logs the policy commands it accepted */

	/* cgroup_fd -1 (not 0) for a pid, or --children lost */
	FAKE("fake: set --pid --children", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=1 flags=1 pid=1234 cgroup=-\n",
	     "set", "--pid", "1234", "--children", "zero"),
	/* a pid or flags left in a global request */
	FAKE("fake: set --global", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n",
	     "set", "--global", "zero"),
	/* the cgroup fd not opened, or not a cgroup2 directory */
	FAKE_CG("fake: set --cgroup / opens the cgroup2 root", NULL, 0, NULL,
		NULL, "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n",
		"set", "--cgroup", "/", "zero"),
	/* a file in cgroupfs passed on as a cgroup */
	FAKE_CG("fake: a cgroup file is not a cgroup", NULL, 1, NULL,
		"/cgroup.procs: not a cgroup v2 directory\n", NULL,
		"set", "--cgroup", "cgroup.procs", "zero"),
	/* an existing directory outside cgroup2 reported as missing below it */
	FAKE_CG("fake: /proc is not a cgroup", NULL, 1, NULL,
		"thpcowctl: /proc: not a cgroup v2 directory\n", NULL,
		"set", "--cgroup", "/proc", "zero"),
	/* a missing cgroup reported as something else */
	FAKE_CG("fake: a missing cgroup", NULL, 1, NULL,
		"/no-such-cgroup: No such file or directory\n", NULL,
		"clear", "--cgroup", "no-such-cgroup"),
	/* the modes beyond zero, as the module takes them (mode numbers) */
	FAKE("fake: set copy", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=2 flags=0 pid=1 cgroup=-\n",
	     "set", "--pid", "1", "copy"),
	FAKE("fake: set split", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=3 flags=0 pid=0 cgroup=-\n",
	     "set", "--global", "split"),
	/* EOPNOTSUPP from a module that predates a mode, as a raw errno */
	FAKE("fake: an unsupported mode", "FAKE_MODES=2", 1, NULL,
	     "thpcowctl: mode 'copy' is not supported by this module version\n",
	     NULL, "set", "--pid", "1", "copy"),
	/* ESRCH shown as a raw errno */
	FAKE("fake: no such process", NULL, 1, NULL,
	     "thpcowctl: no such process: 999999\n", NULL,
	     "set", "--pid", "999999", "zero"),
	/* ENOENT on clear shown as a raw errno */
	FAKE("fake: clear without a policy", "FAKE_ABSENT=1", 1, NULL,
	     "thpcowctl: no policy for pid 42\n",
	     "CLEAR scope=2 mode=0 flags=0 pid=42 cgroup=-\n",
	     "clear", "--pid", "42"),
	/* clear --global refused for having no entry */
	FAKE("fake: clear --global", "FAKE_ABSENT=1", 0, NULL, NULL,
	     "CLEAR scope=0 mode=0 flags=0 pid=0 cgroup=-\n", "clear", "--global"),
	/* a mode sent with GET, or the effective fields dropped */
	FAKE("fake: get --pid --json", NULL, 0,
	     ",\"mode\":\"zero\",\"flags\":[\"children\"],\"substitutions\":5,"
	     "\"present\":true,\"effective_mode\":\"zero\","
	     "\"effective_scope\":\"pid\",\"effective_cgroup\":null,"
	     "\"effective_cgroup_id\":null}\n", NULL,
	     "GET scope=2 mode=0 flags=0 pid=1 cgroup=-\n",
	     "get", "--pid", "1", "--json"),
	/* a policy that is not there shown as mode "kernel" */
	FAKE("fake: get --pid without a policy", "FAKE_ABSENT=1", 0,
	     "\"mode\":null,\"flags\":[],\"substitutions\":0,\"present\":false,"
	     "\"effective_mode\":\"zero\",\"effective_scope\":\"cgroup\","
	     "\"effective_cgroup\":",
	     NULL, "GET", "get", "--pid", "1", "--json"),
	/* the id of the cgroup whose rule applies not shown */
	FAKE("fake: get --pid names the cgroup id", "FAKE_ABSENT=1", 0,
	     "\"effective_cgroup_id\":1}\n",
	     NULL, "GET", "get", "--pid", "1", "--json"),
	/* the cgroup shown by the argument rather than below the root */
	FAKE_CG("fake: get --cgroup text", NULL, 0,
		"scope:         cgroup\ncgroup:        /\ncgroup id:     1\n"
		"mode:          zero\n", NULL, "GET scope=1",
		"get", "--cgroup", "/"),
	/* the global default shown as absent */
	FAKE("fake: get --global --json", NULL, 0,
	     "{\"scope\":\"global\",\"mode\":\"zero\",\"flags\":[],"
	     "\"substitutions\":5,\"present\":true}\n", NULL, "GET scope=0",
	     "get", "--global", "--json"),
	/* LIST not sized first, or entries read past what was filled */
	FAKE("fake: list", NULL, 0,
	     "SCOPE  TARGET         MODE   FLAGS    SUBSTITUTIONS\n"
	     "pid    42 (qemu\"kvm)  zero   children             7\n"
	     "cgroup /machine.slice kernel -                    0\n", NULL,
	     "LIST room=0\nLIST room=6\n", "list"),
	/* USAGE not sized first, or a row missing from the table */
	/* (libsmartcols shows a backslash as \x5c, as lsblk does) */
	FAKE("fake: usage table", NULL, 0,
	     "SCOPE  TARGET                                             SUBSTITUTED COPIED FALLBACKS THP_MIB ANON_THP_MIB\n"
	     "cgroup /machine.slice/machine-qemu\\x5cx2d1\\x5cx2dvm.scope         128      0         5     256            -\n"
	     "pid    42 (qemu\"kvm)                                               64      1         0     130            -\n"
	     "other  (other)                                                      0      0         5       0            -\n",
	     NULL, "USAGE room=0\nUSAGE room=7\n", "usage"),
	/* JSON rows without their counters, MiB or an escaped path */
	FAKE("fake: usage --json", NULL, 0,
	     "{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"cgroup\","
	     "\"cgroup\":\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\","
	     "\"cgroup_id\":99,\"substituted\":128,\"copied\":0,\"split\":0,"
	     "\"fallback_ineligible\":0,\"fallback_uffd\":2,"
	     "\"fallback_alloc\":3,\"fallback_charge\":0,"
	     "\"fallback_unstable\":0,\"fallback_pinned\":0,"
	     "\"fallbacks\":5,\"thp_bytes\":268435456,\"thp_mib\":256,"
	     "\"anon_thp_bytes\":null,\"anon_bytes\":null},{\"scope\":\"pid\",\"pid\":42,"
	     "\"comm\":\"qemu\\\"kvm\",", NULL, "USAGE", "usage", "--json"),
	/* the exposition format without HELP/TYPE, units or escaped labels */
	FAKE("fake: usage --format prometheus", NULL, 0,
	     "# HELP thpcow_usage_substituted_total Write faults on the huge zero page given a whole THP.\n"
	     "# TYPE thpcow_usage_substituted_total counter\n"
	     "thpcow_usage_substituted_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\"} 128\n"
	     "thpcow_usage_substituted_total{scope=\"other\"} 0\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* a pid rule's row in the families the cgroup rows sum in: its
	 * faults counted twice by sum() */
	FAKE("fake: usage prometheus: pid rules in a family of their own", NULL, 0,
	     "# TYPE thpcow_pid_rule_substituted_total counter\n"
	     "thpcow_pid_rule_substituted_total{pid=\"42\",comm=\"qemu\\\"kvm\"} 64\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* the table's size missing */
	FAKE("fake: usage prometheus: slots", NULL, 0,
	     "# TYPE thpcow_usage_slots gauge\nthpcow_usage_slots 1024\n"
	     "# HELP thpcow_usage_slots_used ",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	FAKE("fake: usage prometheus fallbacks by reason", NULL, 0,
	     "thpcow_usage_fallbacks_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\",reason=\"alloc\"} 3\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	FAKE("fake: usage prometheus bytes", NULL, 0,
	     "# TYPE thpcow_usage_thp_bytes_total counter\n"
	     "thpcow_usage_thp_bytes_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\"} 268435456\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* --pid not keeping only the process's row */
	FAKE("fake: usage --pid", NULL, 0,
	     "{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"pid\",\"pid\":42,",
	     NULL, "USAGE", "usage", "--pid", "42", "--json"),
	FAKE("fake: usage --pid of a missing process", NULL, 1, NULL,
	     "thpcowctl: no such process: 999999\n", "USAGE",
	     "usage", "--pid", "999999"),
	FAKE("fake: usage --pid of a process without a pid rule", NULL, 1, NULL,
	     "thpcowctl: pid 1: no pid rule covers it", "USAGE",
	     "usage", "--pid", "1"),
	/* a cgroup without a row shown as nothing, or a file taken for one */
	FAKE_CG("fake: usage --cgroup without a row is zeros", NULL, 0,
		"{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"cgroup\",\"cgroup\":\"/\","
		"\"cgroup_id\":1,\"substituted\":0,", NULL, "USAGE",
		"usage", "--cgroup", "/", "--json"),
	FAKE_CG("fake: usage --cgroup of a file", NULL, 1, NULL,
		"not a cgroup v2 directory", "USAGE",
		"usage", "--cgroup", "/cgroup.procs"),
	FAKE("fake: usage --pid and --cgroup", NULL, 2, NULL,
	     "thpcowctl: usage: --pid, --cgroup and --machine are mutually exclusive\n",
	     "", "usage", "--pid", "42", "--cgroup", "/"),
	FAKE("fake: usage --machine and --pid", NULL, 2, NULL,
	     "--pid, --cgroup and --machine are mutually exclusive\n",
	     "", "usage", "--machine", "vm", "--pid", "42"),
	/* a VM named by its scope only (its number changes at each start),
	 * by libvirt's machine name qemu-1-vm (so does its 1); machined's
	 * SCOPE= unquoted, quoted and shell-escaped (later systemd), then
	 * C-escaped as Debian 12's systemd 252 writes it */
	SH("fake: usage names a VM by systemd-machined's name and UUID", "/bin/bash",
	   "m=$(mktemp -d); printf '%s\\n' '# This is private data. Do not parse.' "
	   "NAME=qemu-1-vm 'SCOPE=\"machine-qemu\\\\x2d1\\\\x2dvm.scope\"' SERVICE=libvirt-qemu "
	   "ID=0123456789abcdef0123456789abcdef CLASS=vm >\"$m/qemu-1-vm\"; "
	   "ln -s qemu-1-vm \"$m/unit:machine-qemu\\x2d1\\x2dvm.scope\"; "
	   "export THPCOWCTL_MACHINES=$m THPCOWCTL_DEVICE=" MISSING_DEVICE
	   " FAKE_LOG=/dev/null LD_PRELOAD=\"$1/test_fakedev.so\"; "
	   "\"$1/thpcowctl\" usage --format prometheus | grep -F 'thpcow_usage_substituted_total{'; "
	   "\"$1/thpcowctl\" usage -o MACHINE,MACHINE_UUID,SUBSTITUTED --machine vm; "
	   "\"$1/thpcowctl\" usage --machine vm2 2>&1 | sed \"s|$m|M|\"; "
	   "echo \"rc=${PIPESTATUS[0]}\"; "
	   "sed -i 's/^SCOPE=\"\\(.*\\)\"$/SCOPE=\\1/' \"$m/qemu-1-vm\"; "
	   "\"$1/thpcowctl\" usage -o MACHINE,SUBSTITUTED -n -r --machine vm; rm -rf \"$m\"",
	   "thpcow_usage_substituted_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\","
	   "machine=\"vm\",machine_uuid=\"01234567-89ab-cdef-0123-456789abcdef\"} 128\n"
	   "thpcow_usage_substituted_total{scope=\"other\"} 0\n"
	   "MACHINE MACHINE_UUID                         SUBSTITUTED\n"
	   "vm      01234567-89ab-cdef-0123-456789abcdef         128\n"
	   "thpcowctl: machine vm2: not known to systemd-machined (M)\nrc=1\n"
	   "vm 128\n"),
	FAKE("fake: usage --format bogus", NULL, 2, NULL,
	     "thpcowctl: usage: unknown format 'bogus'", "",
	     "usage", "--format", "bogus"),
	FAKE("fake: usage --json --format", NULL, 2, NULL,
	     "mutually exclusive", "", "usage", "--json", "--format", "json"),
	/* usage's table options: -o's columns, -J -o as libsmartcols' JSON
	 * (null for a cell a row does not have), -n -r, and -p from the
	 * option table */
	FAKE("fake: usage -J -o", NULL, 0,
	     "{\n   \"usage\": [\n      {\n         \"scope\": \"cgroup\",\n"
	     "         \"cgroup_id\": 99,\n         \"pid\": null\n      },{\n",
	     NULL, "USAGE", "-J", "-o", "SCOPE,CGROUP_ID,PID", "usage"),
	FAKE("fake: usage -p PID -n -r -o", NULL, 0,
	     "pid 42 qemu\"kvm 64 136314880\n", NULL, "USAGE", "usage", "-p",
	     "42", "-n", "-r", "-o", "SCOPE,PID,COMM,SUBSTITUTED,THP_BYTES"),
	FAKE_CG("fake: usage -c PATH", NULL, 0,
		"cgroup / 0\n", NULL, "USAGE", "usage", "-c", "/", "-n", "-r",
		"-o", "SCOPE,CGROUP,SUBSTITUTED"),
	/* a list that grew past the room not asked for again */
	FAKE("fake: list retries when the list grew", "FAKE_LIST_GROW=1", 0,
	     "pid    43 (late)      zero   -                    0\n"
	     "pid    42 (qemu\"kvm)  zero   children             7\n"
	     "cgroup /machine.slice kernel -                    0\n", NULL,
	     "LIST room=0\nLIST room=6\nLIST room=14\n", "list"),
	/* the counters not named from include/uapi/thpcow-stats.h */
	FAKE("fake: stats", NULL, 0,
	     "COUNTER             VALUE\nhook_calls              1\n"
	     "substituted            11\n", NULL, NULL,
	     "stats"),
	/* headline counters from the wrong index; fallbacks not summed */
	FAKE("fake: status --json", NULL, 0,
	     "\"native_zero\":true,\"global_mode\":\"zero\",\"policies\":2,"
	     "\"substituted\":11,\"fallbacks\":566,\"hook_calls\":1,", NULL,
	     "GET scope=0", "status", "--json"),
	/* another ABI's answers trusted */
	FAKE("fake: status with another ABI", "FAKE_ABI=2", 1,
	     "module abi:         2\nthpcowctl version:  " THPCOW_VERSION "\n",
	     "ABI mismatch: the module (" THPCOW_VERSION ") speaks ABI 2", NULL, "status"),
	/* a command sent to a module of another ABI */
	FAKE("fake: list with another ABI", "FAKE_ABI=2", 1, NULL,
	     "ABI mismatch", NULL, "list"),
	/* the module's version not shown */
	FAKE("fake: version", NULL, 0,
	     "thpcowctl " THPCOW_VERSION " (ABI 1)\nthpcow " THPCOW_VERSION
	     " (ABI 1)\n", NULL, NULL, "version"),
	/* COMMAND's exit status lost, or --children not passed */
	FAKE("fake: exec runs COMMAND under the policy", NULL, 7, NULL, NULL,
	     "SET scope=2 mode=1 flags=1 pid=", "exec", "zero", "--children",
	     "--", "sh", "-c", "exit 7"),
	/* a policy left behind for a command that never ran */
	FAKE("fake: exec of a missing COMMAND clears the policy, exit 127",
	     NULL, 127, NULL, "(the policy on pid ",
	     "CLEAR scope=2 mode=0 flags=0 pid=", "exec", "zero", "--",
	     "/nonexistent/command"),
	/* a rule of the file not set, or the stale list not read */
	APPLY("fake: apply sets the file's rules", "FAKE_LIST_ROOT=1",
	      "global zero\ncgroup / zero\n", 0, NULL,
	      "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n"
	      "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n"
	      "LIST room=0\nLIST room=6\n"),
	/* a cgroup rule the file dropped kept; pid rules cleared with it */
	APPLY("fake: apply clears cgroup rules not in the file, not pid rules",
	      "FAKE_LIST_ROOT=1", "global kernel\n", 0, NULL,
	      "SET scope=0 mode=0 flags=0 pid=0 cgroup=-\n"
	      "LIST room=0\nLIST room=6\n"
	      "CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n"),
	/* no global line taken as "global kernel" (modprobe.d's default lost) */
	APPLY("fake: apply without a global line leaves it", "FAKE_LIST_ROOT=1",
	      "cgroup / kernel\n", 0, NULL,
	      "SET scope=1 mode=0 flags=0 pid=0 cgroup=ok\n"
	      "LIST room=0\nLIST room=6\n"),
	/* the good lines of a bad file applied */
	APPLY("fake: apply of a bad file changes nothing", NULL,
	      "global zero\ncgroup / fast\n", 1,
	      "thpcowctl: <stdin>:2: unknown mode 'fast'", NULL),
	/* the rules before a missing cgroup applied */
	APPLY("fake: apply with a missing cgroup changes nothing", NULL,
	      "global zero\ncgroup / zero\ncgroup /no-such-cgroup zero\n", 1,
	      "thpcowctl: <stdin>:3: /", NULL),
	/* a drop-in not read, or one that is not *.conf (a package manager's
	 * .dpkg-old, a README) read */
	SH("fake: apply reads FILE, then FILE.d/*.conf",
	   "/sys/fs/cgroup/cgroup.controllers",
	   "d=$(mktemp -d); echo '# nothing here' >\"$d/t.conf\"; mkdir \"$d/t.conf.d\"; "
	   "echo 'global copy' >\"$d/t.conf.d/20-b.conf\"; "
	   "echo 'global split' >\"$d/t.conf.d/10-a.conf.dpkg-old\"; "
	   "echo 'bogus' >\"$d/t.conf.d/README\"; "
	   "THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null "
	   "LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" apply \"$d/t.conf\" "
	   "| sed \"s|$d/||g\"; rm -rf \"$d\"",
	   "t.conf.d/20-b.conf:1: global copy\n"
	   "applied t.conf and t.conf.d/*.conf\n"),
	/* a bad drop-in leaving the good file applied, the drop-ins out of
	 * order, or one silently overriding the file's rule for a target */
	SH("cli: apply --check: a bad drop-in or a target named twice fails all",
	   "/bin/bash",
	   "d=$(mktemp -d); printf 'global zero\\n' >\"$d/t.conf\"; "
	   "mkdir \"$d/t.conf.d\"; echo 'global fast' >\"$d/t.conf.d/b.conf\"; "
	   "echo 'global copy' >\"$d/t.conf.d/c.conf\"; "
	   "echo 'cgroup' >\"$d/t.conf.d/a.conf\"; "
	   "echo 'bogus' >\"$d/t.conf.d/README\"; "
	   "echo 'bogus' >\"$d/t.conf.d/d.conf.dpkg-old\"; "
	   "\"$1/thpcowctl\" apply --check \"$d/t.conf\" 2>&1 | sed \"s|$d/||g\"; "
	   "echo \"rc=${PIPESTATUS[0]}\"; rm -rf \"$d\"",
	   "thpcowctl: t.conf.d/a.conf:1: expected 'cgroup PATH MODE'\n"
	   "thpcowctl: t.conf.d/a.conf: 1 error\n"
	   "thpcowctl: t.conf.d/b.conf:1: unknown mode 'fast': expected one of kernel, zero, copy, split\n"
	   "thpcowctl: t.conf.d/b.conf: 1 error\n"
	   "thpcowctl: t.conf.d/c.conf:1: a second global line (the first is t.conf:1)\n"
	   "thpcowctl: t.conf.d/c.conf: 1 error\nrc=1\n"),
	/* --check setting anything */
	{ "fake: apply --check changes nothing", test_cli, &(const struct cli_case){
	  { "apply", "--check", "-" }, 0, NULL, NULL, NEED_FAKE | NEED_CGROUP2,
	  NULL, NULL, "global zero\ncgroup / zero\n", true } },
	/* apply silent about what it changed (the journal shows it) */
	{ "fake: apply says what it set", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 0,
	  "<stdin>:1: global zero\n<stdin>:2: cgroup / zero\napplied <stdin>\n",
	  NULL, NEED_FAKE | NEED_CGROUP2, "FAKE_LIST_ROOT=1",
	  "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n"
	  "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n"
	  "LIST room=0\nLIST room=6\n", "global zero\ncgroup / zero\n", true } },
	/* ... and what it cleared */
	{ "fake: apply says what it cleared", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 0,
	  "<stdin>:1: global kernel\ncleared cgroup / (not in <stdin>)\napplied <stdin>\n",
	  NULL, NEED_FAKE | NEED_CGROUP2, "FAKE_LIST_ROOT=1",
	  "SET scope=0 mode=0 flags=0 pid=0 cgroup=-\n"
	  "LIST room=0\nLIST room=6\n"
	  "CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n", "global kernel\n", true } },
	/* a rule cleared on another cgroup that took the listed path */
	APPLY("fake: apply clears no cgroup but the rule's", "FAKE_LIST_ROOT=7",
	      "", 1, "thpcowctl: clear cgroup / (not in <stdin>): ",
	      "LIST room=0\nLIST room=6\n"),
	/* global options not reaching the verb */
	FAKE("fake: -J before the verb", NULL, 0, "{\"policies\":[{\"scope\":\"pid\"",
	     NULL, "LIST room=6\n", "-J", "list"),
	FAKE("fake: --json before the verb", NULL, 0, "{\"loaded\":true,", NULL,
	     "GET scope=0", "--json", "status"),
	FAKE("fake: -n -o before the verb, -r after it", NULL, 0,
	     "pid 42 qemu\"kvm\ncgroup  \n", NULL, "LIST room=6\n",
	     "-n", "-o", "SCOPE,PID,COMM", "list", "-r"),
	FAKE("fake: --output=LIST --noheadings --raw", NULL, 0,
	     "zero\nkernel\n", NULL, "LIST room=6\n", "list", "--output=mode",
	     "--noheadings", "--raw"),
	/* the short options of the scopes */
	FAKE("fake: set -p", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=1 flags=0 pid=1234 cgroup=-\n", "set", "-p", "1234",
	     "zero"),
	FAKE("fake: set -g", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=3 flags=0 pid=0 cgroup=-\n", "set", "-g", "split"),
	FAKE_CG("fake: clear -c", NULL, 0, NULL, NULL,
		"CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n", "clear", "-c", "/"),
	FAKE("fake: get -J -p", NULL, 0, "{\"scope\":\"pid\",\"pid\":1,", NULL,
	     "GET scope=2", "get", "-J", "-p", "1"),
	FAKE("fake: -pPID attached", NULL, 0, "pid:                 77\n", NULL,
	     "GET scope=2 mode=0 flags=0 pid=77 ",
	     "get", "-p77"),
	FAKE("fake: stats --format json is -J", NULL, 0,
	     "{\"policies\":2,\"counters\":{\"hook_calls\":1,", NULL, NULL,
	     "stats", "--format", "json"),
	FAKE("fake: stats --format text is the table", NULL, 0,
	     "COUNTER             VALUE\n", NULL, NULL, "stats", "--format", "text"),
	FAKE("fake: stats --format prometheus", NULL, 0,
	     "# TYPE thpcow_substituted_total counter\nthpcow_substituted_total 11\n",
	     NULL, "GET scope=0", "stats", "--format", "prometheus"),
	/* check: the fake's counters, 566 fallbacks of 708 (79.9 %): the
	 * thresholds not applied, or perfdata not in the plugins' form */
	FAKE("fake: check: CRITICAL over -c, with perfdata", NULL, 2,
	     "THPCOW CRITICAL - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); fallbacks 79.9 % >= 50 % | given=142c "
	     "fallbacks=566c fallback_pct=79.9%;20;50;0;100 policies=2;;;0 "
	     "slots_used=1;921;;0;1024\n", NULL, "USAGE room=7", "check"),
	FAKE("fake: check: WARNING over -w", NULL, 1,
	     "THPCOW WARNING - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); fallbacks 79.9 % >= 70 % |", NULL,
	     "USAGE room=7", "check", "-w", "70", "-c", "90"),
	FAKE("fake: check: OK under -w", NULL, 0, "THPCOW OK - mode zero,",
	     NULL, "USAGE room=7", "check", "-w", "80", "-c", "90"),
	/* a verdict on too few faults */
	FAKE("fake: check: fallbacks judged only after --min-faults", NULL, 0,
	     "THPCOW OK - ", NULL, "USAGE room=7", "check", "--min-faults", "1000"),
	FAKE("fake: check: the usage table full", "FAKE_SLOTS_USED=922", 1,
	     "THPCOW WARNING - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); usage table 922 of 1024 rows: new cgroups count "
	     "as other (usage_slots) |", NULL, "USAGE room=7", "check", "-w", "80",
	     "-c", "90"),
	/* a loaded module reported as down, or the build info missing */
	FAKE("fake: stats --format prometheus: up, build info", NULL, 0,
	     "# TYPE thpcow_up gauge\nthpcow_up 1\n# HELP thpcow_build_info",
	     NULL, "GET scope=0", "stats", "--format", "prometheus"),
	/* the header repeated, or a row without its time */
	SH("fake: stats --watch 1 --count 2: a header, then two rows", "/bin/bash",
	   "THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null "
	   "LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" stats --watch 1 "
	   "--count 2 -o TIME,SUBSTITUTED | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T"
	   "[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4}/T/'",
	   "TIME                      SUBSTITUTED\nT            0\nT            0\n"),
	/* --watch not printing rates per interval, or not stopping */
	FAKE("fake: stats --watch 1 --count 1", NULL, 0,
	     "\"deltas\":{\"hook_calls\":0,", NULL, NULL,
	     "stats", "--watch", "1", "--count", "1", "--json"),
};

TEST_AREA(fake_tests, tests);
