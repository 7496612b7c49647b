#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py DIR: make bench's report (bench/run runs it). The
summary step reads the guests' raw results (DIR/raw/GUEST-wN.jsonl,
GUEST.meta.json) and writes DIR/results.json; the renderers read that
summary back and write DIR/results.md (the tables, also printed) and
DIR/*.png (gnuplot). The steps live in bench/report/."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from report import headline, summary
from report import render_w1, render_w2, render_w3, render_w4, render_w5, render_w6, render_w7

RENDERERS = {'w1': render_w1, 'w2': render_w2, 'w3': render_w3, 'w4': render_w4,
             'w5': render_w5, 'w6': render_w6, 'w7': render_w7}


def intro(run):
    """Which source and guests the results come from, and the host's load."""
    if not run:
        return []
    ran, kept = run['ran'], run['kept']
    return [f"Source {run['source']}; guests under QEMU TCG (`-cpu max,-erms,-fsrm`) on a 2-core "
            "host. Host load average (1, 5, 15 min) when each guest started → ended: "
            + '; '.join(f"{m['guest']} {m['load_before']} → {m['load_after']} "
                        f"({m['seconds']} s, {m['date'][:10]}{', quick' if m.get('quick') else ''}"
                        f"{', FAILED' if m.get('status') else ''})" for m in run['guests'])
            + (f"; the last run ({', '.join(ran)}) {run['seconds']} s" if ran else '')
            + (f". The other guests' results ({', '.join(kept)}) are "
               "from earlier runs (`bench/run --only` keeps them), of earlier sources: "
               "compare ratios within a guest, not across runs." if ran and kept else '.')
            + '\n']


def render(doc):
    """results.md's lines and the plots [(file, gnuplot script)] from results.json's content."""
    s = doc['summary']
    md, plots = ['# thpcow benchmark (make bench)\n'] + intro(doc['run']) + headline.render(s), []
    for w, r in RENDERERS.items():
        if w in s:
            m, p = r.render(s[w])
            md += m
            plots += p
    if plots:
        md.append('Plots: ' + ', '.join(f'`{p}`' for p, _ in plots) + '.\n')
    return md, plots


def gnuplot(out, plots):
    if not shutil.which('gnuplot'):
        return
    for name, script in plots:
        with tempfile.NamedTemporaryFile('w', suffix='.gp') as gp:
            gp.write(f"set output '{os.path.join(out, name)}'\n" + script)
            gp.flush()
            r = subprocess.run(['gnuplot', gp.name], capture_output=True, text=True)
            if r.returncode:
                sys.stderr.write(f'report.py: gnuplot {name}: {r.stderr}')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'results')
    path = os.path.join(out, 'results.json')
    with open(path, 'w') as f:
        json.dump(summary.summarize(os.path.join(out, 'raw')), f, indent=1)
    # the renderers see the summary as written, nothing more
    with open(path) as f:
        md, plots = render(json.load(f))
    text = '\n'.join(md)
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write(text)
    gnuplot(out, plots)
    print(text)


if __name__ == '__main__':
    main()
