#!/usr/bin/env python3
"""One rank of a real PyTorch training job over NCCL, in one of the parallelism styles real clusters run, with the
phases real jobs have.

Started by record.py inside the rank's own network namespace. Logs each phase change as a JSON line (epoch ms) to
--events, so that the trace's ground truth comes from what the job did, not from a plan.

Styles (--style):
  ddp       DistributedDataParallel: bucketed all-reduce overlapping backward.
  fsdp      torch.distributed.fsdp.fully_shard per block: all-gather of every block in forward and backward,
            reduce-scatter of the gradients. Evaluation keeps all-gathering (traffic, no pause); checkpoints are
            sharded (every rank writes its own shard, then a barrier).
  pipeline  one stage per rank, GPipe: micro-batches forward (send/recv of activations to the next stage only), then
            backward (gradients to the previous stage). Evaluation is forward only; each stage writes its checkpoint.
  tp        tensor parallel inside data parallel: --tp ranks split every block (column then row parallel, an
            all-reduce in the tensor-parallel group per block forward and backward: many small all-reduces), the
            data-parallel replicas all-reduce the gradients once a step.
Phases, for every style: NCCL init, training, evaluation passes, checkpoints, gradient accumulation (fixed --accum or
a number of micro-steps drawn every step from --accum-choices), data-loader stalls at given times (--stalls: the
stalled rank waits for its batch, the others wait for it in their next collective). Rank 0 decides every phase for
all ranks: one broadcast at the start of each step.
"""
import argparse
import json
import os
import random
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--job", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="rank 0's address")
    p.add_argument("--port", type=int, default=29500)
    p.add_argument("--events", required=True, help="JSON lines file to append phase events to")
    p.add_argument("--style", choices=["ddp", "fsdp", "pipeline", "tp"], default="ddp")
    p.add_argument("--duration", type=float, default=300, help="seconds of training, then a clean exit")
    p.add_argument("--width", type=int, default=2048, help="hidden width: gradient bytes ~ layers*width^2*4")
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--micro-batches", type=int, default=8, help="pipeline: micro-batches per step")
    p.add_argument("--tp", type=int, default=2, help="tp: ranks per tensor-parallel group")
    p.add_argument("--compute-ms", type=float, default=0, help="extra GPU work per micro-step (ms)")
    p.add_argument("--accum", type=int, default=1, help="micro-steps per optimizer step (gradient accumulation)")
    p.add_argument("--accum-choices", default="", help="comma-separated micro-step counts; rank 0 draws one per step")
    p.add_argument("--seed", type=int, default=1, help="rank 0's draws (--accum-choices)")
    p.add_argument("--stalls", default="", help="AT:SECS,...: the data loader stalls SECS at AT s after training began"
                                                " (wall clock, rank 0's); stall i hits rank i mod world")
    p.add_argument("--stall-rank", type=int, default=-1, help="every stall hits this rank (default: round-robin)")
    p.add_argument("--stall-read", default="", help="a stalled loader reads this file in 64 KiB chunks every "
                                                    "--stall-read-ms (throttled storage: still reading) instead of "
                                                    "sleeping")
    p.add_argument("--stall-read-ms", type=float, default=10)
    p.add_argument("--block-fifo", default="", help="on SIGUSR1 the rank blocks reading this FIFO (a read that never "
                                                    "returns, as from a hung mount), outside any collective")
    p.add_argument("--eval-every", type=float, default=0, help="seconds of training between evaluation passes")
    p.add_argument("--eval-secs", type=float, default=0, help="length of an evaluation pass")
    p.add_argument("--eval-rank0-only", action="store_true",
                   help="ddp: only rank 0 evaluates, the others wait in the metric's all-reduce (as a job that "
                        "evaluates on rank 0 alone does)")
    p.add_argument("--ckpt-every", type=float, default=0, help="seconds of training between checkpoints")
    p.add_argument("--ckpt-secs", type=float, default=0, help="at least this long writing a checkpoint")
    p.add_argument("--ckpt-dir", default="/tmp")
    p.add_argument("--cpu", action="store_true", help="gloo on the CPU: a dry run of the recorder without a GPU")
    # under torchrun (record.py's "torchrun" jobs) the arguments come through the environment
    a = p.parse_args(json.loads(os.environ["TRAIN_JOB_ARGS"]) if len(sys.argv) == 1 and "TRAIN_JOB_ARGS" in os.environ
                     else None)

    events = open(a.events, "a", buffering=1)

    def log(event, **extra):
        events.write(json.dumps({"t": int(time.time() * 1000), "job": a.job, "rank": a.rank, "event": event,
                                 **extra}) + "\n")

    log("init_start", pid=os.getpid(), style=a.style)
    if a.block_fifo:
        def block(signum, frame):
            # the recorder holds the FIFO open for writing and never writes: open returns, read never does
            log("blocked_read_start", path=a.block_fifo)
            fd = os.open(a.block_fifo, os.O_RDONLY)
            os.read(fd, 1)
        signal.signal(signal.SIGUSR1, block)
    global DEV
    # under torchrun the worker would otherwise expect the agent's store at --master:--port; it runs its own
    os.environ.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    if a.cpu:
        # a dry run of the recorder's mechanics on a machine without a GPU: gloo on the CPU
        DEV = "cpu"
        dist.init_process_group("gloo", init_method=f"tcp://{a.master}:{a.port}", rank=a.rank, world_size=a.world)
    else:
        torch.cuda.set_device(0)  # CUDA_VISIBLE_DEVICES names the GPU
        dist.init_process_group("nccl", init_method=f"tcp://{a.master}:{a.port}", rank=a.rank, world_size=a.world,
                                device_id=torch.device("cuda", 0))
    torch.manual_seed(a.rank)
    style = STYLES[a.style](a)
    work = torch.randn(4096 if DEV == "cuda" else 256, 4096 if DEV == "cuda" else 256, device=DEV)
    # NCCL connects lazily: the first collectives are part of init, as on real jobs
    dist.all_reduce(torch.ones(1, device=DEV))
    style.warm_up()
    sync()
    log("init_done", params=style.params())

    def extra_compute(ms):
        if ms <= 0:
            return
        end = time.time() + ms / 1000
        while time.time() < end:
            for _ in range(4):
                torch.mm(work, work)
            sync()

    choices = [int(c) for c in a.accum_choices.split(",") if c]
    stalls = sorted((float(at), float(secs)) for at, secs in (s.split(":") for s in a.stalls.split(",") if s))
    draws = random.Random(a.seed)
    start = time.time()
    trained = 0.0  # seconds of training, excluding evaluation, checkpoints and stalls
    next_eval = a.eval_every if a.eval_every > 0 else float("inf")
    next_ckpt = a.ckpt_every if a.ckpt_every > 0 else float("inf")
    stall_i = 0
    step = 0
    log("train_start")
    while True:
        # rank 0's clock decides for all: ranks that decide on their own clocks disagree sooner or later, and one
        # then waits in a collective the others never enter (an early recording hung exactly so)
        stall_ms, stall_rank = 0, -1
        if stall_i < len(stalls) and time.time() - start >= stalls[stall_i][0]:
            stall_ms = int(stalls[stall_i][1] * 1000)
            stall_rank = a.stall_rank if a.stall_rank >= 0 else stall_i % a.world
            stall_i += 1
        due = torch.tensor([trained >= next_eval, trained >= next_ckpt, trained >= a.duration, stall_ms, stall_rank,
                            draws.choice(choices) if choices else a.accum], dtype=torch.int64, device=DEV)
        dist.broadcast(due, src=0)
        eval_due, ckpt_due, stop, stall_ms, stall_rank, micro_steps = (int(v) for v in due.tolist())
        if stop:
            break
        if eval_due:
            next_eval = trained + a.eval_every
            log("eval_start")
            end = time.time() + a.eval_secs
            alone = a.eval_rank0_only and not style.evaluation_talks
            with torch.no_grad():
                while not (alone and a.rank != 0):
                    style.evaluate()
                    extra_compute(50)
                    if not style.evaluation_talks:
                        if time.time() >= end:
                            break
                        continue
                    # an evaluation that communicates runs as many passes on every rank: rank 0 says when to stop
                    # (ranks that stopped on their own clocks hung in mismatched collectives in a first recording)
                    more = torch.tensor([time.time() < end], dtype=torch.int32, device=DEV)
                    dist.broadcast(more, src=0)
                    if not more.item():
                        break
            # an evaluation ends with its metric reduced across ranks: one tiny collective
            dist.all_reduce(torch.ones(1, device=DEV))
            log("eval_end")
        if ckpt_due:
            next_ckpt = trained + a.ckpt_every
            log("ckpt_start")
            if style.writes_checkpoint():
                end = time.time() + a.ckpt_secs
                path = os.path.join(a.ckpt_dir, f"{a.job}-rank{a.rank}-ckpt.pt")
                while True:
                    torch.save({"model": style.state(), "step": step}, path)
                    with open(path, "rb+") as f:
                        os.fsync(f.fileno())
                    if time.time() >= end:
                        break
            dist.barrier()  # the writers finish before anyone trains on, as with torch.distributed.checkpoint
            log("ckpt_end")
        if stall_rank == a.rank:
            # this rank's data loader has no batch ready; the others block in their next collective
            log("loader_stall_start", ms=stall_ms, reading=bool(a.stall_read))
            if a.stall_read:
                slow_read(a.stall_read, stall_ms / 1000, a.stall_read_ms / 1000)
            else:
                time.sleep(stall_ms / 1000)
            log("loader_stall_end")
        t0 = time.time()
        for micro in range(micro_steps):
            style.train(last=micro == micro_steps - 1)
            extra_compute(a.compute_ms)
        style.step()
        sync()
        step += 1
        trained += time.time() - t0
        if step % 10 == 0:
            log("step", step=step, ms=int((time.time() - t0) * 1000), micro=micro_steps)
    log("train_end", steps=step, secs=round(time.time() - start, 1))
    dist.destroy_process_group()
    log("exit")


DEV = "cuda"


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def slow_read(path, secs, every):
    """A data loader on throttled storage: 64 KiB reads, one every `every` s, for `secs` s (still making progress)."""
    end = time.time() + secs
    with open(path, "rb", buffering=0) as f:
        while time.time() < end:
            if not f.read(65536):
                f.seek(0)
            time.sleep(every)


def blocks(width, layers):
    return [nn.Sequential(nn.Linear(width, width), nn.GELU()) for _ in range(layers)]


class Ddp:
    evaluation_talks = False  # evaluation runs the bare model: no collective until its metric

    def __init__(self, a):
        from torch.nn.parallel import DistributedDataParallel
        self.a = a
        self.model = nn.Sequential(*blocks(a.width, a.layers)).to(DEV)
        self.ddp = DistributedDataParallel(self.model, bucket_cap_mb=25)
        self.opt = torch.optim.SGD(self.ddp.parameters(), lr=1e-4)
        self.x = torch.randn(a.batch, a.width, device=DEV)

    def warm_up(self):
        pass

    def params(self):
        return sum(p.numel() for p in self.model.parameters())

    def train(self, last):
        # no_sync on all but the last micro-step: one all-reduce burst per optimizer step
        with (self.ddp.no_sync() if not last else _Null()):
            self.ddp(self.x).square().mean().backward()

    def step(self):
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)

    def evaluate(self):
        self.model(self.x)

    def writes_checkpoint(self):
        return self.a.rank == 0  # the replicas are equal: rank 0 writes, the others wait in the barrier

    def state(self):
        return self.model.state_dict()


class Fsdp(Ddp):
    evaluation_talks = True

    def __init__(self, a):
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard
        self.a = a
        mesh = init_device_mesh(DEV, (a.world,))
        self.model = nn.Sequential(*blocks(a.width, a.layers)).to(DEV)
        for block in self.model:
            fully_shard(block, mesh=mesh)
        fully_shard(self.model, mesh=mesh)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-4)
        self.x = torch.randn(a.batch, a.width, device=DEV)

    def train(self, last):
        # gradients are reduce-scattered on the last micro-step only, as accumulation does with FSDP
        self.model.set_requires_gradient_sync(last)
        self.model(self.x).square().mean().backward()

    def evaluate(self):
        self.model(self.x)  # every block is all-gathered again: evaluation is not quiet

    def writes_checkpoint(self):
        return True  # sharded: every rank writes its own shard

    def state(self):
        return {k: v.to_local() if hasattr(v, "to_local") else v for k, v in self.model.state_dict().items()}


class Pipeline(Ddp):
    evaluation_talks = True

    def __init__(self, a):
        self.a = a
        self.stage, self.stages = a.rank, a.world
        self.model = nn.Sequential(*blocks(a.width, a.layers)).to(DEV)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-4)
        self.micro = a.batch // a.micro_batches
        self.x = torch.randn(self.micro, a.width, device=DEV)

    def warm_up(self):
        # NCCL connects each neighbour pair at its first send: part of init
        with torch.no_grad():
            self.forward_all(train=False)

    def forward_all(self, train):
        ins, outs = [], []
        for _ in range(self.a.micro_batches):
            if self.stage == 0:
                inp = self.x
            else:
                inp = torch.empty(self.micro, self.a.width, device=DEV)
                dist.recv(inp, src=self.stage - 1)
                inp.requires_grad_(train)
            out = self.model(inp)
            if self.stage < self.stages - 1:
                dist.send(out.detach().contiguous(), dst=self.stage + 1)
            ins.append(inp)
            outs.append(out)
        return ins, outs

    def train(self, last):
        ins, outs = self.forward_all(train=True)
        for inp, out in zip(ins, outs):
            if self.stage == self.stages - 1:
                out.square().mean().backward()
            else:
                grad = torch.empty_like(out)
                dist.recv(grad, src=self.stage + 1)
                out.backward(grad)
            if self.stage > 0:
                dist.send(inp.grad.contiguous(), dst=self.stage - 1)

    def evaluate(self):
        self.forward_all(train=False)

    def writes_checkpoint(self):
        return True  # each stage holds its own layers


class _CopyToTp(torch.autograd.Function):
    """Identity forward; the input's gradient is summed over the tensor-parallel group (column-parallel input)."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        dist.all_reduce(g, group=ctx.group)
        return g, None


class _ReduceFromTp(torch.autograd.Function):
    """The row-parallel output summed over the tensor-parallel group; identity backward."""

    @staticmethod
    def forward(ctx, x, group):
        x = x.clone()
        dist.all_reduce(x, group=group)
        return x

    @staticmethod
    def backward(ctx, g):
        return g, None


class Tp(Ddp):
    evaluation_talks = True

    def __init__(self, a):
        self.a = a
        if a.world % a.tp:
            sys.exit(f"--tp {a.tp} does not divide the world of {a.world}")
        # every rank creates every group, in the same order: tp groups of neighbours, dp groups across them
        for g in range(a.world // a.tp):
            ranks = list(range(g * a.tp, (g + 1) * a.tp))
            group = dist.new_group(ranks)
            if a.rank in ranks:
                self.tp_group = group
        for i in range(a.tp):
            ranks = list(range(i, a.world, a.tp))
            group = dist.new_group(ranks)
            if a.rank in ranks:
                self.dp_group, self.dp_size = group, len(ranks)
        shard = a.width // a.tp
        self.model = nn.ModuleList(nn.ModuleList([nn.Linear(a.width, shard), nn.Linear(shard, a.width, bias=False)])
                                   for _ in range(a.layers)).to(DEV)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=1e-4)
        self.x = torch.randn(a.batch, a.width, device=DEV)

    def forward(self, x):
        for col, row in self.model:
            h = nn.functional.gelu(col(_CopyToTp.apply(x, self.tp_group)))
            x = x + _ReduceFromTp.apply(row(h), self.tp_group)
        return x

    def train(self, last):
        self.forward(self.x).square().mean().backward()
        if last:
            # the replicas' gradients, one flat all-reduce per step
            grads = [p.grad for p in self.model.parameters()]
            flat = torch.cat([g.flatten() for g in grads])
            dist.all_reduce(flat, group=self.dp_group)
            flat /= self.dp_size
            offset = 0
            for g in grads:
                g.copy_(flat[offset:offset + g.numel()].view_as(g))
                offset += g.numel()

    def evaluate(self):
        self.forward(self.x)

    def writes_checkpoint(self):
        return self.a.rank < self.a.tp  # the first replica's shards; the other replicas wait in the barrier


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


STYLES = {"ddp": Ddp, "fsdp": Fsdp, "pipeline": Pipeline, "tp": Tp}

if __name__ == "__main__":
    sys.exit(main())
