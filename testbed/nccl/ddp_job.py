#!/usr/bin/env python3
"""One rank of a real PyTorch DDP training job over NCCL, with the phases real jobs have.

Started by record.py inside the rank's own network namespace. Logs each phase change as a JSON line
(epoch ms) to --events, so that the trace's ground truth comes from what the job did, not from a plan.
Phases: NCCL init, training iterations (DDP all-reduce overlapping backward), periodic evaluation passes
(no collective traffic), checkpoints written by rank 0 while the others wait in a barrier, gradient
accumulation (DDP no_sync on all but the last micro-step: multi-second iterations, one burst each).
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--job", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="rank 0's address")
    p.add_argument("--port", type=int, default=29500)
    p.add_argument("--events", required=True, help="JSON lines file to append phase events to")
    p.add_argument("--duration", type=float, default=300, help="seconds of training, then a clean exit")
    p.add_argument("--width", type=int, default=2048, help="hidden width: gradient bytes ~ layers*width^2*4")
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--compute-ms", type=float, default=0, help="extra GPU work per micro-step (ms)")
    p.add_argument("--accum", type=int, default=1, help="micro-steps per optimizer step (gradient accumulation)")
    p.add_argument("--eval-every", type=float, default=0, help="seconds of training between evaluation passes")
    p.add_argument("--eval-secs", type=float, default=0, help="length of an evaluation pass")
    p.add_argument("--ckpt-every", type=float, default=0, help="seconds of training between checkpoints")
    p.add_argument("--ckpt-secs", type=float, default=0, help="at least this long writing a checkpoint (rank 0)")
    p.add_argument("--ckpt-dir", default="/tmp")
    a = p.parse_args()

    events = open(a.events, "a", buffering=1)

    def log(event, **extra):
        events.write(json.dumps({"t": int(time.time() * 1000), "job": a.job, "rank": a.rank, "event": event,
                                 **extra}) + "\n")

    log("init_start", pid=os.getpid())
    torch.cuda.set_device(0)  # CUDA_VISIBLE_DEVICES names the GPU
    dist.init_process_group("nccl", init_method=f"tcp://{a.master}:{a.port}", rank=a.rank, world_size=a.world,
                            device_id=torch.device("cuda", 0))
    torch.manual_seed(a.rank)
    model = nn.Sequential(*[m for _ in range(a.layers) for m in (nn.Linear(a.width, a.width), nn.GELU())]).cuda()
    ddp = DDP(model, bucket_cap_mb=25)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    x = torch.randn(a.batch, a.width, device="cuda")
    work = torch.randn(4096, 4096, device="cuda")
    # NCCL connects lazily: the first collective is part of init, as on real jobs
    dist.all_reduce(torch.ones(1, device="cuda"))
    torch.cuda.synchronize()
    log("init_done", params=sum(p.numel() for p in model.parameters()))

    def extra_compute(ms):
        if ms <= 0:
            return
        end = time.time() + ms / 1000
        while time.time() < end:
            for _ in range(4):
                torch.mm(work, work)
            torch.cuda.synchronize()

    start = time.time()
    trained = 0.0  # seconds of training, excluding eval and checkpoint pauses
    next_eval = a.eval_every if a.eval_every > 0 else float("inf")
    next_ckpt = a.ckpt_every if a.ckpt_every > 0 else float("inf")
    step = 0
    log("train_start")
    while True:
        t0 = time.time()
        for micro in range(a.accum):
            last = micro == a.accum - 1
            ctx = ddp.no_sync() if not last else _null()
            with ctx:
                loss = ddp(x).square().mean()
                loss.backward()
            extra_compute(a.compute_ms)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        step += 1
        trained += time.time() - t0
        if step % 10 == 0:
            log("step", step=step, ms=int((time.time() - t0) * 1000))
        # rank 0's clock decides for all: ranks that decide on their own clocks disagree sooner or later, and one
        # then waits in a collective the others never enter (an early recording hung exactly so)
        due = torch.tensor([trained >= next_eval, trained >= next_ckpt, trained >= a.duration], dtype=torch.int32,
                           device="cuda")
        dist.broadcast(due, src=0)
        eval_due, ckpt_due, stop = (bool(v) for v in due.tolist())
        if stop:
            break
        if eval_due:
            next_eval = trained + a.eval_every
            log("eval_start")
            ddp.eval()
            end = time.time() + a.eval_secs
            with torch.no_grad():
                while time.time() < end:
                    model(x)
                    extra_compute(50)
            # an evaluation ends with its metric reduced across ranks: one tiny collective
            metric = torch.ones(1, device="cuda")
            dist.all_reduce(metric)
            ddp.train()
            log("eval_end")
        if ckpt_due:
            next_ckpt = trained + a.ckpt_every
            log("ckpt_start")
            if a.rank == 0:
                end = time.time() + a.ckpt_secs
                path = os.path.join(a.ckpt_dir, f"{a.job}-ckpt.pt")
                while True:
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
                    with open(path, "rb+") as f:
                        os.fsync(f.fileno())
                    if time.time() >= end:
                        break
            dist.barrier()  # the other ranks wait for rank 0's write, as with torch.distributed.checkpoint
            log("ckpt_end")
    log("train_end", steps=step, secs=round(time.time() - start, 1))
    dist.destroy_process_group()
    log("exit")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
