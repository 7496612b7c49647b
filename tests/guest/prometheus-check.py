#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""prometheus-check.py PROM DEBUGFS_STATS THP_BYTES: parse PROM (the output of
thpcowctl stats --format prometheus) with prometheus_client's own parser and
check it against the module's debugfs stats file: every counter as
thpcow_NAME_total of type counter with a HELP line, the same values, the
bytes given as THPs, the rules and the global mode as gauges. Prints "ok",
or one line per difference (exit 1)."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main(prom, stats, thp_bytes):
    debugfs = {}
    counters = []
    with open(stats) as f:
        for line in f:
            name, value = line.split()
            debugfs[name] = value
            if name == "policies":
                counters = list(debugfs)[:-1]
    with open(prom) as f:
        families = list(text_string_to_metric_families(f.read()))
    samples = {}
    types = {}
    for fam in families:
        if not fam.documentation:
            yield f"{fam.name}: no HELP"
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            samples[key] = s.value
            types[s.name] = fam.type

    def check(name, want, typ, labels=()):
        got = samples.get((name, labels))
        if got is None:
            yield f"{name}{dict(labels)}: missing"
        elif got != want:
            yield f"{name}{dict(labels)}: {got}, debugfs says {want}"
        elif types[name] != typ:
            yield f"{name}: type {types[name]}, want {typ}"

    for c in counters:
        yield from check(f"thpcow_{c}_total", int(debugfs[c]), "counter")
    for c in ("substituted", "copied"):
        yield from check(f"thpcow_{c}_bytes_total",
                         int(debugfs[c]) * thp_bytes, "counter")
    yield from check("thpcow_policies", int(debugfs["policies"]), "gauge")
    for mode in ("kernel", "zero", "copy", "split"):
        yield from check("thpcow_global_mode",
                         int(mode == debugfs["global_mode"]), "gauge",
                         (("mode", mode),))


if __name__ == "__main__":
    problems = list(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    print("\n".join(problems) if problems else "ok")
    sys.exit(1 if problems else 0)
