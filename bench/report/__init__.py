# SPDX-License-Identifier: GPL-2.0
"""make bench's report, in three steps (bench/report.py runs them):

- summary.py reads the guests' raw results (raw/GUEST-wN.jsonl and
  GUEST.meta.json) and computes every statistic: results.json;
- render_w1.py ... render_w7.py turn one workload's summary into its
  markdown table and plot, headline.py the README's tables;
- goals.py holds the goals as data ({metric, target, predicate}) and
  evaluates them against the summary: one table.

The renderers read only the summary (as written to results.json), never
the raw results."""
