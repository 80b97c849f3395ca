#!/usr/bin/env python3
"""The fields rdmamon's GPU source reads, at the same rate, through pynvml (nvidia-ml-py): the process that
`rdmamon bench collector --gpu --beside` measures beside it.
  testbed/gpu/pynvml_reader.py [READ_MS] [INTERVAL_MS]
Every GPU every READ_MS (200): utilization (GPU and memory), power, SM clock; every INTERVAL_MS (1000): the compute
processes and the MIG mode. Runs until killed."""
import sys
import time

import pynvml

read_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 200
interval_ms = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
pynvml.nvmlInit()
handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
uuids = [pynvml.nvmlDeviceGetUUID(h) for h in handles]
every = max(1, interval_ms // read_ms)
n = 0
due = time.monotonic()
while True:
    if n % every == 0:
        for h in handles:
            pids = [p.pid for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h)]
            try:
                pynvml.nvmlDeviceGetMigMode(h)
            except pynvml.NVMLError:
                pass
    for h in handles:
        u = pynvml.nvmlDeviceGetUtilizationRates(h)
        w = pynvml.nvmlDeviceGetPowerUsage(h)
        c = pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
    n += 1
    due += read_ms / 1000
    time.sleep(max(0.0, due - time.monotonic()))
