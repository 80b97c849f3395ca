#!/usr/bin/env python3
"""Records real NCCL traffic of PyTorch training jobs (DDP, FSDP, pipeline, tensor parallel: train_job.py), one network namespace per rank, with incidents injected at
known times. Usage: record.py PLAN.json OUTDIR. See README.md beside this file.

Each rank runs in its own network namespace with one NIC (a veth pair into a bridge), so each rank is its own
"node" to NCCL (NCCL_HOSTID per rank, its socket transport on that NIC, IB/P2P/SHM off) and its traffic is
counted on its own interface. The NIC counters are read from the host side of each veth at --hz (default 10 Hz).
With --one-rank-per-gpu every rank has a GPU of its own, and each GPU's telemetry (nvidia-smi's streaming query at
--gpu-hz, and its compute processes) is recorded beside the counters in gpus.csv.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE = "rdmabr0"


def sh(*args, check=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


class Rank:
    def __init__(self, trace_i, job_i, job, rank, gpu):
        self.job = job["name"]
        self.rank = rank
        self.gpu = gpu
        self.ns = f"rm{trace_i}j{job_i}r{rank}"
        self.veth = f"v{trace_i}j{job_i}r{rank}"
        self.ip = f"10.77.{trace_i * 16 + job_i}.{rank + 1}"
        self.proc = None
        self.uuid = None

    def stats(self):
        # the host side's rx is what the rank sent
        base = f"/sys/class/net/{self.veth}/statistics/"
        v = {}
        for name in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets"):
            with open(base + name) as f:
                v[name] = int(f.read())
        return v["rx_bytes"], v["tx_bytes"], v["rx_packets"], v["tx_packets"]


GPU_QUERY = "index,uuid,utilization.gpu,utilization.memory,power.draw,clocks.sm"


def number(text):
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return None  # [N/A], [Not Supported]


class GpuTelemetry:
    """nvidia-smi's streaming query at --gpu-hz, and the compute processes per GPU polled beside it: the readings a
    GPU node offers, as rdmamon's collector reads them."""

    def __init__(self, hz, now_ms):
        self.now_ms = now_ms
        self.rows = []  # (t_ms, index, uuid, util, mem_util, power, sm_mhz, processes or None)
        self.processes = {}  # uuid -> count, from the latest poll; absent until the first poll
        self.lock = threading.Lock()
        self.stopped = False
        self.proc = subprocess.Popen(["nvidia-smi", f"--query-gpu={GPU_QUERY}", "--format=csv,noheader,nounits",
                                      f"--loop-ms={int(1000 / hz)}"], stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.poll_processes, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            f = [v.strip() for v in line.split(",")]
            if len(f) != 6 or not f[0].isdigit():
                continue
            with self.lock:
                self.rows.append((self.now_ms(), int(f[0]), f[1], number(f[2]), number(f[3]), number(f[4]),
                                  number(f[5]), self.processes.get(f[1])))

    def poll_processes(self):
        while not self.stopped:
            r = subprocess.run(["nvidia-smi", "--query-compute-apps=gpu_uuid,pid", "--format=csv,noheader"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                counts = {}
                for line in r.stdout.splitlines():
                    if "," in line:
                        uuid = line.split(",")[0].strip()
                        counts[uuid] = counts.get(uuid, 0) + 1
                known = sh("nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader").stdout.split()
                with self.lock:
                    self.processes = {u: counts.get(u, 0) for u in known}
            time.sleep(0.2)

    def uuids(self):
        r = sh("nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader")
        return {int(i): u.strip() for i, u in (line.split(",") for line in r.stdout.splitlines())}

    def take(self, gpus, since_ms):
        with self.lock:
            return [row for row in self.rows if row[1] in gpus and row[0] >= since_ms]

    def stop(self):
        self.stopped = True
        self.proc.terminate()


def setup_network(ranks):
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "link", "set", BRIDGE, "up")
    for r in ranks:
        sh("ip", "netns", "add", r.ns)
        sh("ip", "link", "add", r.veth, "type", "veth", "peer", "name", "eth0", "netns", r.ns)
        sh("ip", "link", "set", r.veth, "master", BRIDGE)
        sh("ip", "link", "set", r.veth, "up")
        sh("ip", "netns", "exec", r.ns, "ip", "link", "set", "lo", "up")
        sh("ip", "netns", "exec", r.ns, "ip", "addr", "add", r.ip + "/16", "dev", "eth0")
        sh("ip", "netns", "exec", r.ns, "ip", "link", "set", "eth0", "up")


def teardown_network(ranks):
    for r in ranks:
        sh("ip", "link", "del", r.veth, check=False)
        sh("ip", "netns", "del", r.ns, check=False)
    sh("ip", "link", "del", BRIDGE, check=False)


def start_rank(r, job, world, master, trace_dir, job_index):
    env = dict(os.environ)
    env.update({
        "CUDA_VISIBLE_DEVICES": str(r.gpu),
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_NET": "Socket",
        "NCCL_IB_DISABLE": "1",
        "NCCL_P2P_DISABLE": "1",
        "NCCL_SHM_DISABLE": "1",
        "NCCL_NVLS_ENABLE": "0",
        "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
        "NVSHMEM_DISABLE_NVLS": "1",
        "NCCL_HOSTID": f"{r.ns}",
        "NCCL_DEBUG": "WARN",
        "PYTHONUNBUFFERED": "1",
    })
    args = ["ip", "netns", "exec", r.ns, sys.executable, os.path.join(HERE, "train_job.py"),
            "--job", r.job, "--rank", str(r.rank), "--world", str(world), "--master", master,
            "--port", str(29500 + job_index), "--events", os.path.join(trace_dir, "events.jsonl"),
            "--ckpt-dir", os.path.join(trace_dir, "ckpt")] + [str(a) for a in job.get("args", [])]
    log = open(os.path.join(trace_dir, "logs", f"{r.job}-rank{r.rank}.log"), "w")
    r.proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan")
    p.add_argument("out")
    p.add_argument("--hz", type=float, default=10)
    p.add_argument("--only", help="comma-separated trace names of the plan to record")
    p.add_argument("--one-rank-per-gpu", action="store_true",
                   help="every rank gets a GPU of its own (refused when the plan has more ranks than GPUs), and "
                        "each GPU's telemetry is recorded in gpus.csv")
    p.add_argument("--gpu-hz", type=float, default=10, help="GPU telemetry readings per second")
    a = p.parse_args()
    if os.environ.get("NCCL_NVLS_ENABLE", "0") != "0":
        sys.exit("record.py: NCCL_NVLS_ENABLE must stay 0")
    plan = json.load(open(a.plan))
    for i, t in enumerate(plan["traces"]):
        t["index"] = i
    traces = [t for t in plan["traces"] if not a.only or t["name"] in a.only.split(",")]
    ngpu = int(sh("nvidia-smi", "-L").stdout.count("GPU "))
    if not a.one_rank_per_gpu:
        record(traces, a, ngpu)
        return
    # a GPU per rank: the traces that fit on the machine's GPUs together, then the next ones
    batch, used = [], 0
    for t in traces:
        need = sum(job["ranks"] for job in t["jobs"])
        if need > ngpu:
            sys.exit(f"record.py: {t['name']} has {need} ranks but the machine {ngpu} GPUs: "
                     "--one-rank-per-gpu needs a GPU per rank")
        if used + need > ngpu:
            record(batch, a, ngpu)
            batch, used = [], 0
        batch.append(t)
        used += need
    if batch:
        record(batch, a, ngpu)


def record(traces, a, ngpu):
    ranks_of = {}  # trace name -> list of (job, [Rank])
    all_ranks = []
    gpu = 0
    for t in traces:
        ti = t["index"]  # the trace's place in the plan: names stay unique across batches
        jobs = []
        for ji, job in enumerate(t["jobs"]):
            rs = []
            for rank in range(job["ranks"]):
                rs.append(Rank(ti, ji, job, rank, gpu % ngpu))
                gpu += 1
            jobs.append((job, rs))
            all_ranks += rs
        ranks_of[t["name"]] = jobs
    teardown_network(all_ranks)
    setup_network(all_ranks)
    start_epoch_ms = int(time.time() * 1000)
    t0 = time.monotonic()
    truth = {t["name"]: [] for t in traces}
    samples = {t["name"]: [] for t in traces}
    done = set()
    lock = threading.Lock()

    def now_ms():
        return int((time.monotonic() - t0) * 1000)

    telemetry = GpuTelemetry(a.gpu_hz, now_ms) if a.one_rank_per_gpu else None
    if telemetry:
        uuid_of = telemetry.uuids()
        for r in all_ranks:
            r.uuid = uuid_of[r.gpu]

    for t in traces:
        d = os.path.join(a.out, t["name"])
        os.makedirs(os.path.join(d, "logs"), exist_ok=True)
        os.makedirs(os.path.join(d, "ckpt"), exist_ok=True)
        for ji, (job, rs) in enumerate(ranks_of[t["name"]]):
            for r in rs:
                start_rank(r, job, len(rs), rs[0].ip, d, ji)

    def sampler():
        period = 1.0 / a.hz
        nxt = time.monotonic()
        while len(done) < len(traces):
            ms = now_ms()
            with lock:
                for t in traces:
                    if t["name"] in done:
                        continue
                    for job, rs in ranks_of[t["name"]]:
                        for r in rs:
                            samples[t["name"]].append((ms, r.job, r.rank) + r.stats())
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))

    th = threading.Thread(target=sampler, daemon=True)
    th.start()

    # the incidents, in time order, across traces
    schedule = []
    for t in traces:
        for inc in t.get("incidents", []):
            if "onEvent" in inc:
                continue
            schedule.append((inc["at"], "start", t, inc))
            if "end" in inc:
                schedule.append((inc["end"], "end", t, inc))
        schedule.append((t["duration"], "stop", t, None))
    schedule.sort(key=lambda s: (s[0], s[1] != "stop"))

    def find(t, job, rank):
        for j, rs in ranks_of[t["name"]]:
            if j["name"] == job:
                return rs[rank]
        raise KeyError(job)

    def apply(t, inc, what):
        name = t["name"]
        r = find(t, inc["job"], inc["rank"])
        kind = inc["kind"]
        if what == "start":
            if kind == "hang":
                r.proc.send_signal(signal.SIGSTOP)
            elif kind == "crash":
                r.proc.kill()
            elif kind == "slow-link":
                rate = inc.get("rate", "2gbit")
                sh("tc", "qdisc", "add", "dev", r.veth, "root", "tbf", "rate", rate, "burst", "512kb",
                   "latency", "50ms")
                sh("ip", "netns", "exec", r.ns, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", rate,
                   "burst", "512kb", "latency", "50ms")
            elif kind == "link-down":
                # the rank's link is lost: every rank ends up waiting inside a collective that never completes
                sh("ip", "link", "set", r.veth, "down")
            else:
                raise ValueError(kind)
            truth[name].append({"kind": kind, "job": r.job, "rank": r.rank, "atMs": now_ms(),
                                **({"rate": inc["rate"]} if "rate" in inc else {}),
                                **({"note": inc["note"]} if "note" in inc else {})})
        else:
            if kind == "slow-link":
                sh("tc", "qdisc", "del", "dev", r.veth, "root", check=False)
                sh("ip", "netns", "exec", r.ns, "tc", "qdisc", "del", "dev", "eth0", "root", check=False)
            elif kind == "link-down":
                sh("ip", "link", "set", r.veth, "up", check=False)
            for entry in truth[name]:
                if entry["kind"] == kind and entry["job"] == r.job and entry["rank"] == r.rank:
                    entry["endMs"] = now_ms()

    def on_event(t, inc):
        # an incident due when a rank logs an event (e.g. rank 0 stopped inside its second checkpoint write): the
        # job's own phases decide when, not the wall clock
        want = inc["onEvent"]
        events = os.path.join(a.out, t["name"], "events.jsonl")
        seen = 0
        offset = 0
        while t["name"] not in done:
            if os.path.exists(events):
                with open(events) as f:
                    f.seek(offset)
                    for line in f:
                        if not line.endswith("\n"):
                            break
                        offset += len(line.encode())
                        e = json.loads(line)
                        if e["event"] == want["event"] and e["rank"] == want.get("rank", e["rank"]) \
                                and e["job"] == inc["job"]:
                            seen += 1
                            if seen == want.get("nth", 1):
                                time.sleep(inc.get("delay", 0))
                                apply(t, inc, "start")
                                return
            time.sleep(0.05)

    for t in traces:
        for inc in t.get("incidents", []):
            if "onEvent" in inc:
                threading.Thread(target=on_event, args=(t, inc), daemon=True).start()

    for at, what, t, inc in schedule:
        time.sleep(max(0.0, at - (time.monotonic() - t0)))
        name = t["name"]
        if what == "stop":
            with lock:
                done.add(name)
            for job, rs in ranks_of[name]:
                for r in rs:
                    if r.proc.poll() is None:
                        r.proc.send_signal(signal.SIGCONT)
                        r.proc.kill()
                    r.proc.wait()  # its network namespace goes only with its last process
            gpu_rows = telemetry.take({r.gpu for _, rs in ranks_of[name] for r in rs}, 0) if telemetry else None
            write_trace(a.out, t, ranks_of[name], samples[name], truth[name], start_epoch_ms, a.hz, gpu_rows,
                        a.gpu_hz)
            print(f"record.py: {name}: {len(samples[name])} counter rows, {len(truth[name])} incidents"
                  + (f", {len(gpu_rows)} GPU readings" if telemetry else ""), flush=True)
            continue
        apply(t, inc, what)
    if telemetry:
        telemetry.stop()
    th.join(5)
    teardown_network(all_ranks)


def write_trace(out, t, jobs, rows, incidents, start_epoch_ms, hz, gpu_rows, gpu_hz):
    d = os.path.join(out, t["name"])
    shutil.rmtree(os.path.join(d, "ckpt"), ignore_errors=True)
    with open(os.path.join(d, "counters.csv"), "w") as f:
        f.write("t_ms,job,rank,tx_bytes,rx_bytes,tx_packets,rx_packets\n")
        for row in rows:
            f.write(",".join(str(v) for v in row) + "\n")
    if gpu_rows is not None:
        with open(os.path.join(d, "gpus.csv"), "w") as f:
            f.write("t_ms,gpu,uuid,util_pct,mem_util_pct,power_w,sm_clock_mhz,processes\n")
            for row in gpu_rows:
                f.write(",".join("" if v is None else str(v) for v in row) + "\n")
    import torch
    meta = {
        "v": 1,
        "name": t["name"],
        "description": t.get("description", ""),
        "startEpochMs": start_epoch_ms,
        "durationMs": int(t["duration"] * 1000),
        "sampleHz": hz,
        "recordedOn": sh("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").stdout.strip().splitlines(),
        "torch": torch.__version__,
        "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()),
        "transport": "NCCL socket transport, one veth per rank",
        "jobs": [{"name": job["name"], "ranks": len(rs), "gpus": [r.gpu for r in rs], "args": job.get("args", []),
                  **({"gpuUuids": [r.uuid for r in rs]} if gpu_rows is not None else {})}
                 for job, rs in jobs],
        **({"gpuHz": gpu_hz, "gpuTelemetry": "nvidia-smi --query-gpu=" + GPU_QUERY + " -lms, compute apps polled "
            "every 200 ms; one rank per GPU"} if gpu_rows is not None else {}),
        "incidents": incidents,
    }
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
