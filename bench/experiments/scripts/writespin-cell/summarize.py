#!/usr/bin/env python3
"""summarize.py ROUNDS_OUTPUT [REFERENCE]: medians (min-max) per server of rounds.sh's output, and per-round ratios to
REFERENCE, stock NIO by default (each ratio against its window of the same round, so the rounds' drift cancels)."""
import re
import statistics
import sys

LINE = re.compile(r"round (\d+) (\S+): req/s (\d+) cpu ([\d.]+) us/req .*?cs/req (-?[\d.]+)")
rows = [LINE.search(line) for line in open(sys.argv[1])]
rows = [(int(m[1]), m[2], int(m[3]), float(m[4]), float(m[5])) for m in rows if m]
ref = sys.argv[2] if len(sys.argv) > 2 else "nio"
servers = list(dict.fromkeys(r[1] for r in rows))
by = {(r[0], r[1]): r for r in rows}


def span(values, fmt="{:,.0f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


print(f"| server | req/s | CPU us/req | ctx switches/req | req/s / {ref} per round | CPU / {ref} per round |")
print("|---|---|---|---|---|---|")
for s in servers:
    mine = [r for r in rows if r[1] == s]
    rps = [by[(r[0], s)][2] / by[(r[0], ref)][2] for r in mine if (r[0], ref) in by]
    cpu = [by[(r[0], s)][3] / by[(r[0], ref)][3] for r in mine if (r[0], ref) in by]
    cpu_fmt = "{:,.1f}" if max(r[3] for r in mine) < 100 else "{:,.0f}"
    print(f"| {s} | {span([r[2] for r in mine])} | {span([r[3] for r in mine], cpu_fmt)} | "
          f"{span([r[4] for r in mine if r[4] >= 0], '{:.1f}')} | {', '.join(f'{x:.2f}' for x in rps)} | "
          f"{', '.join(f'{x:.2f}' for x in cpu)} |")
