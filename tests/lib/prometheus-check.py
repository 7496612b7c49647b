#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""prometheus-check.py PROM DEBUGFS_STATS THP_BYTES: parse PROM (the output of
thpcowctl stats --format prometheus) with prometheus_client's own parser and
check it against the module's debugfs stats file: thpcow_up 1 and a
thpcow_build_info, every counter as thpcow_NAME_total of type counter with a
HELP line (the fallback_* ones as thpcow_fallbacks_total{reason}), the same
values, the bytes given as THPs, the rules, the global mode and hook_armed
(where debugfs shows it) as gauges.

prometheus-check.py --usage PROM DEBUGFS_USAGE: the same for thpcowctl usage
--format prometheus against debugfs usage: every row (scope and cgroup in
thpcow_usage_*, pid and comm in thpcow_pid_rule_*, as labels) with its
substituted, copied and split counters, its fallbacks by reason and its
thp_bytes; the slots as gauges; no row debugfs does not have.

Prints "ok", or one line per difference (exit 1)."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def parse(prom):
    """PROM's samples {(name, sorted labels): value}, the type of each
    sample name, and the families without HELP."""
    with open(prom) as f:
        families = list(text_string_to_metric_families(f.read()))
    samples = {}
    types = {}
    problems = []
    for fam in families:
        if not fam.documentation:
            problems.append(f"{fam.name}: no HELP")
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            samples[key] = s.value
            types[s.name] = fam.type
    return samples, types, problems


def checker(samples, types):
    """check(name, want, type, labels): the differences, as lines."""
    def check(name, want, typ, labels=()):
        labels = tuple(sorted(labels))
        got = samples.pop((name, labels), None)
        if got is None:
            yield f"{name}{dict(labels)}: missing"
        elif got != want:
            yield f"{name}{dict(labels)}: {got}, debugfs says {want}"
        elif types[name] != typ:
            yield f"{name}: type {types[name]}, want {typ}"
    return check


def usage(prom, debugfs):
    samples, types, problems = parse(prom)
    yield from problems
    check = checker(samples, types)
    with open(debugfs) as f:
        lines = f.read().splitlines()
    head = lines[0][2:].split("\t")  # after "# "
    for line in lines[1:]:
        if line.startswith("#"):
            continue
        row = dict(zip(head, line.split("\t")))
        # pid rules: a family of their own (they count in their cgroup's
        # row too, so summing them with the cgroup rows would count twice)
        if row["scope"] == "pid":
            fam = "thpcow_pid_rule"
            labels = [("pid", row["target"]), ("comm", row["name"])]
        else:
            fam = "thpcow_usage"
            labels = [("scope", row["scope"])]
        if row["scope"] == "cgroup":
            labels.append(("cgroup", row["name"]))
            # systemd-machined's names, where the row is a VM's
            for key in list(samples):
                if key[0] != f"{fam}_substituted_total":
                    continue
                extra = [kv for kv in key[1] if kv[0].startswith("machine")]
                if extra and set(key[1]) - set(extra) == set(labels):
                    labels += extra
                    break
        for c in ("substituted", "copied", "split"):
            yield from check(f"{fam}_{c}_total", int(row[c]),
                             "counter", labels)
        for c in head:
            if c.startswith("fallback_"):
                yield from check(f"{fam}_fallbacks_total",
                                 int(row[c]), "counter",
                                 labels + [("reason", c[9:])])
        yield from check(f"{fam}_thp_bytes_total",
                         int(row["thp_bytes"]), "counter", labels)
        # the kernel's own figures: not debugfs', only their types
        for g in ("anon_thp_bytes", "anon_bytes", "thp_coverage_ratio"):
            samples.pop((f"{fam}_{g}", tuple(sorted(labels))), None)
    for fam in ("thpcow_usage", "thpcow_pid_rule"):
        for g in ("anon_thp_bytes", "anon_bytes", "thp_coverage_ratio"):
            if types.get(f"{fam}_{g}", "gauge") != "gauge":
                yield f"{fam}_{g}: not a gauge"
    # the table's size: only that it is there, as gauges
    for g in ("thpcow_usage_slots", "thpcow_usage_slots_used"):
        if samples.pop((g, ()), None) is None or types[g] != "gauge":
            yield f"{g}: missing or not a gauge"
    for name, labels in samples:
        yield f"{name}{dict(labels)}: not in debugfs"


def main(prom, stats, thp_bytes):
    debugfs = {}
    counters = []
    with open(stats) as f:
        for line in f:
            name, value = line.split()
            debugfs[name] = value
            if name == "policies":
                counters = list(debugfs)[:-1]
    samples, types, problems = parse(prom)
    yield from problems
    check = checker(samples, types)

    yield from check("thpcow_up", 1, "gauge")
    for key in list(samples):
        if key[0] == "thpcow_build_info":
            samples.pop(key)  # versions: cli.t's; only that it is there
            break
    else:
        yield "thpcow_build_info: missing"
    for c in counters:
        if c.startswith("fallback_"):
            yield from check("thpcow_fallbacks_total", int(debugfs[c]),
                             "counter", (("reason", c[9:]),))
        else:
            yield from check(f"thpcow_{c}_total", int(debugfs[c]), "counter")
    if "hook_armed" in debugfs:
        yield from check("thpcow_hook_armed", int(debugfs["hook_armed"]),
                         "gauge")
    for c in ("substituted", "copied"):
        yield from check(f"thpcow_{c}_bytes_total",
                         int(debugfs[c]) * thp_bytes, "counter")
    yield from check("thpcow_policies", int(debugfs["policies"]), "gauge")
    for mode in ("kernel", "zero", "copy", "split"):
        yield from check("thpcow_global_mode",
                         int(mode == debugfs["global_mode"]), "gauge",
                         (("mode", mode),))


if __name__ == "__main__":
    if sys.argv[1] == "--usage":
        problems = list(usage(sys.argv[2], sys.argv[3]))
    else:
        problems = list(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    print("\n".join(problems) if problems else "ok")
    sys.exit(1 if problems else 0)
