#!/usr/bin/env python3
"""Compares rdmamon's GPU samples (JSON lines as on rdma.gpu-samples) with nvidia-smi run beside the collector
(`nvidia-smi --query-gpu=timestamp,index,utilization.gpu,utilization.memory,power.draw,clocks.sm,uuid
--format=csv,noheader,nounits --loop-ms=100`): for each sample, the mean of nvidia-smi's readings of the same GPU
over the sample's interval (ts - intervalMs, ts]. Usage: agreement.py SAMPLES.jsonl NVIDIA_SMI.csv"""
import datetime
import json
import sys


def readings(path):
    out = []
    for line in open(path):
        f = [v.strip() for v in line.split(",")]
        if len(f) < 7:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            continue
        num = lambda v: None if v.startswith("[") else float(v)
        out.append((t.timestamp() * 1000, int(f[1]), num(f[2]), num(f[3]), num(f[4]), num(f[5])))
    return out


def main():
    samples = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
    samples = [s for s in samples if "gpu" in s and "utilizationPercent" in s]
    smi = readings(sys.argv[2])
    fields = [("utilizationPercent", 2, 10), ("memoryUtilizationPercent", 3, 5), ("powerWatts", 4, 30),
              ("smClockMHz", 5, 100)]
    worst = {f: 0.0 for f, _, _ in fields}
    agree = {f: 0 for f, _, _ in fields}
    compared = 0
    print("gpu  ts             " + "  ".join(f"{f[:12]:>12}/smi" for f, _, _ in fields) + "  processes")
    for s in samples:
        window = [r for r in smi if r[1] == s["gpu"] and s["ts"] - s["intervalMs"] < r[0] <= s["ts"]]
        if not window:
            continue
        compared += 1
        cells = []
        for f, i, tol in fields:
            vals = [r[i] for r in window if r[i] is not None]
            ref = sum(vals) / len(vals) if vals else None
            got = s.get(f)
            if ref is not None and got is not None:
                d = abs(got - ref)
                worst[f] = max(worst[f], d)
                agree[f] += d <= tol
            cells.append(f"{'-' if got is None else round(got, 1):>12}/{'-' if ref is None else round(ref, 1):<4}")
        print(f"{s['gpu']:>3}  {s['ts']}  " + "  ".join(cells) + f"  {s.get('processes')}")
    print(f"\n{compared} samples compared with nvidia-smi's readings over the same interval")
    for f, _, tol in fields:
        print(f"  {f}: within {tol} of nvidia-smi in {agree[f]}/{compared}, largest difference {worst[f]:.1f}")


if __name__ == "__main__":
    main()
