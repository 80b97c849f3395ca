#!/usr/bin/env python3
"""Prints what a recorded trace holds: per rank, the bytes sent and the peak and median 1 s send rate; the incidents;
the phase events per job. Usage: summarize.py TRACE_DIR [...]"""
import collections
import csv
import gzip
import json
import os
import statistics
import sys


def opened(path):
    return gzip.open(path + ".gz", "rt") if os.path.exists(path + ".gz") else open(path)


for d in sys.argv[1:]:
    meta = json.load(open(os.path.join(d, "trace.json")))
    rows = collections.defaultdict(list)
    with opened(os.path.join(d, "counters.csv")) as f:
        for r in csv.DictReader(f):
            rows[(r["job"], int(r["rank"]))].append((int(r["t_ms"]), int(r["tx_bytes"])))
    print(f"== {meta['name']}: {meta['description']}")
    for (job, rank), series in sorted(rows.items()):
        rates = []
        j = 0
        for i, (t, b) in enumerate(series):
            while series[j][0] < t - 1000:
                j += 1
            if t - series[j][0] >= 900:
                rates.append((b - series[j][1]) * 1000 / (t - series[j][0]))
        active = [r for r in rates if r > 1e6]
        print(f"  {job} rank {rank}: {series[-1][1] - series[0][1]:,} B sent over {len(series)} rows; 1 s rate peak "
              f"{max(rates, default=0) / 1e9:.2f} GB/s, median while active "
              f"{statistics.median(active) / 1e9 if active else 0:.2f} GB/s ({len(active)} of {len(rates)} 1 s windows, one per row, active)")
    for inc in meta["incidents"]:
        print("  incident", inc)
    events = collections.Counter()
    with opened(os.path.join(d, "events.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e["event"] != "step":
                events[(e["job"], e["event"])] += 1
    print("  events", dict(events))
