#!/usr/bin/env python3
"""A GPU workload with the phases rdmamon's GPU source must tell apart, on every GPU at once (one process per GPU):
busy with memory traffic (matrix products), idle (a process that holds the GPU and does nothing), busy with no
memory traffic (a spinning kernel, as a rank waiting inside a collective looks), then exit (no process).
Usage: gpu_load.py [SECONDS_PER_PHASE]. Logs each phase change as a JSON line on stdout (epoch ms)."""
import json
import multiprocessing as mp
import sys
import time


def run(gpu, secs):
    import torch
    torch.cuda.set_device(gpu)
    a = torch.randn(8192, 8192, device="cuda")

    def log(phase):
        print(json.dumps({"t": int(time.time() * 1000), "gpu": gpu, "phase": phase}), flush=True)

    log("matmul")
    end = time.time() + secs
    while time.time() < end:
        for _ in range(8):
            a = (a @ a).clamp_(-1, 1)
        torch.cuda.synchronize()
    log("idle")
    time.sleep(secs)
    log("spin")
    end = time.time() + secs
    while time.time() < end:
        torch.cuda._sleep(100_000_000)  # a kernel that spins on the SMs' clock: busy, no memory traffic
        torch.cuda.synchronize()
    log("exit")


if __name__ == "__main__":
    import torch
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 15
    mp.set_start_method("spawn")
    procs = [mp.Process(target=run, args=(g, secs)) for g in range(torch.cuda.device_count())]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
