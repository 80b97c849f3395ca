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
import shlex
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
        self.proc = None  # the pod's first process: train_job.py itself, or torchrun, or sh running a chain
        self.uuid = None
        self.fifo = None

    def train_pid(self):
        """The rank's training process (train_job.py): the pod's first process or its youngest descendant running
        it (torchrun's worker), or None between an elastic restart's worker exit and the next worker's start."""
        tree = process_tree(self.proc.pid, scan_processes())
        best = None
        for pid in tree:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
                    if b"train_job.py" in cmdline and b"torch.distributed.run" not in cmdline:  # not the agent
                        best = pid if best is None or pid > best else best
            except OSError:
                pass
        return best

    def signal_train(self, sig):
        pid = self.train_pid()
        if pid is None:
            raise RuntimeError(f"{self.job} rank {self.rank}: no training process")
        os.kill(pid, sig)
        return pid

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


def scan_processes():
    """pid -> (ppid, comm, state, utime, stime, cutime, cstime, threads) of every process, from /proc/<pid>/stat."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                text = f.read()
        except OSError:
            continue  # gone since the listing
        close = text.rfind(")")
        comm = text[text.find("(") + 1:close].replace(",", "_").replace(" ", "_")
        f = text[close + 2:].split()
        # fields after the comm: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17) ... num_threads(20)
        out[int(name)] = (int(f[1]), comm, f[0], int(f[11]), int(f[12]), int(f[13]), int(f[14]), int(f[17]))
    return out


def process_tree(root, procs):
    """root and its descendants (children, their children: data-loader workers, torchrun's worker, a chained
    command), by parent pid."""
    children = {}
    for pid, v in procs.items():
        children.setdefault(v[0], []).append(pid)
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            tree.append(pid)
            todo += children.get(pid, [])
    return tree


def read_io(pid):
    """(rchar, wchar) of /proc/<pid>/io: bytes through read and write system calls (storage, page cache, network,
    pipes); None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/io") as f:
            v = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        return int(v["rchar"]), int(v["wchar"])
    except (OSError, KeyError, ValueError):
        return None


class ProcessActivity:
    """Each rank's process tree at --proc-hz: CPU ticks (utime, stime, and cutime/cstime of waited-for children),
    state letter and thread count per process, rchar/wchar of /proc/<pid>/io. Rows go to procs.csv."""

    def __init__(self, hz, now_ms, ranks_of, live):
        self.hz, self.now_ms, self.ranks_of, self.live = hz, now_ms, ranks_of, live
        self.rows = {name: [] for name in ranks_of}
        self.pids = {name: set() for name in ranks_of}  # every pid seen in a trace's trees: its NVML rows
        self.stopped = False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        period = 1.0 / self.hz
        nxt = time.monotonic()
        while not self.stopped:
            try:
                self.sample()
            except Exception as e:  # a process gone between reads: that reading only
                print(f"record.py: process activity: {e}", flush=True)
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))

    def sample(self):
        ms = self.now_ms()
        procs = scan_processes()
        for name, jobs in self.ranks_of.items():
            if not self.live(name):
                continue
            for job, rs in jobs:
                for r in rs:
                    if r.proc is None:
                        continue
                    for pid in process_tree(r.proc.pid, procs):
                        ppid, comm, state, ut, st, cut, cst, threads = procs[pid]
                        io = read_io(pid)
                        self.rows[name].append((ms, r.job, r.rank, pid, ppid, comm, state, ut, st, cut, cst,
                                                threads, *(io if io else ("", ""))))
                        self.pids[name].add(pid)


class NvmlProcesses:
    """NVML beside nvidia-smi: each GPU's running compute processes (pid, memory) and NVML's per-process utilization
    samples (nvmlDeviceGetProcessUtilization: SM and memory utilization per pid and driver sample), polled at
    --gpu-hz. When ranks share a GPU this is what tells one rank's GPU activity from another's."""

    def __init__(self, hz, now_ms):
        import pynvml
        self.nv, self.hz, self.now_ms = pynvml, hz, now_ms
        pynvml.nvmlInit()
        self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        self.procs = []  # (t_ms, gpu, pid, used_mib)
        self.util = []  # (t_ms, gpu, pid, sample_ts_us, sm_util, mem_util)
        self.whole = []  # (t_ms, gpu, util_pct, mem_util_pct): NVML's whole-GPU rates at the same instants
        self.errors = {}
        self.stopped = False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        nv = self.nv
        seen = set()
        period = 1.0 / self.hz
        nxt = time.monotonic()
        while not self.stopped:
            ms = self.now_ms()
            for i, h in enumerate(self.handles):
                try:
                    for p in nv.nvmlDeviceGetComputeRunningProcesses(h):
                        used = p.usedGpuMemory
                        self.procs.append((ms, i, p.pid, "" if used is None else used // (1 << 20)))
                    u = nv.nvmlDeviceGetUtilizationRates(h)
                    self.whole.append((ms, i, u.gpu, u.memory))
                except nv.NVMLError as e:
                    self.errors[str(e)] = self.errors.get(str(e), 0) + 1
                try:
                    # each process's latest sample, with its own timestamp: asked from 2 s back every time (a single
                    # "last seen" across processes drops the processes whose samples are older than another's: the
                    # first recording lost most samples so), new ones kept by (pid, timestamp)
                    samples = nv.nvmlDeviceGetProcessUtilization(h, int((time.time() - 2) * 1e6))
                except nv.NVMLError as e:  # NOT_FOUND: no sample since `last`
                    self.errors["util " + str(e)] = self.errors.get("util " + str(e), 0) + 1
                    samples = []
                for smp in samples:
                    key = (i, smp.pid, smp.timeStamp)
                    if key in seen:
                        continue
                    seen.add(key)
                    self.util.append((ms, i, smp.pid, smp.timeStamp, smp.smUtil, smp.memUtil))
            nxt += period
            time.sleep(max(0.0, nxt - time.monotonic()))


def upload_sink(port):
    """Discards what the pods' uploads send (the root namespace's end of `... && upload`)."""
    import socket
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(64)

    def drain(c):
        with c:
            while c.recv(1 << 20):
                pass

    def accept():
        while True:
            c, _ = srv.accept()
            threading.Thread(target=drain, args=(c,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()


SINK_IP, SINK_PORT = "10.77.255.254", 9000


def setup_network(ranks):
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "link", "set", BRIDGE, "up")
    sh("ip", "addr", "add", SINK_IP + "/16", "dev", BRIDGE)  # the uploads' destination, outside every pod
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


def start_rank(r, job, world, master, trace_dir, job_index, cpu=False):
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
        "GLOO_SOCKET_IFNAME": "eth0",  # --cpu dry runs
        "PYTHONUNBUFFERED": "1",
    })
    env.update({k: str(v) for k, v in job.get("env", {}).items()})
    events = os.path.join(trace_dir, "events.jsonl")

    def fill(v):
        return str(v).replace("{dir}", trace_dir)
    train = [os.path.join(HERE, "train_job.py"),
             "--job", r.job, "--rank", str(r.rank), "--world", str(world), "--master", master,
             "--port", str(29500 + job_index), "--events", events,
             "--ckpt-dir", os.path.join(trace_dir, "ckpt")] + [fill(a) for a in job.get("args", [])] \
        + (["--cpu"] if cpu else [])
    if job.get("blockFifo"):
        # a read that never returns: the recorder holds the FIFO open for writing (so the rank's open returns) and
        # never writes
        r.fifo = os.path.join(trace_dir, f"{r.job}-rank{r.rank}.fifo")
        if not os.path.exists(r.fifo):
            os.mkfifo(r.fifo)
        r.fifo_fd = os.open(r.fifo, os.O_RDWR | os.O_NONBLOCK)
        train += ["--block-fifo", r.fifo]
    if "torchrun" in job:
        # torchrun as the pod's agent: it supervises the worker and restarts it (--max-restarts) after a rendezvous
        # of every pod's agent; the worker keeps the pod's rank
        tr = job["torchrun"]
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(world), "--nproc-per-node", "1",
               "--rdzv-backend", "c10d", "--rdzv-endpoint", f"{master}:{29400 + job_index}",
               "--rdzv-id", r.job, "--max-restarts", str(tr.get("maxRestarts", 0)),
               # the pods share the machine's hostname: say which agent hosts the rendezvous store
               "--rdzv-conf", f"is_host={1 if r.rank == 0 else 0}",
               "--monitor-interval", "0.5", train[0]]
        # the worker's arguments through the environment: torchrun's parser would take --master for its own options
        env["TRAIN_JOB_ARGS"] = json.dumps(train[1:])
    else:
        cmd = [sys.executable] + train
    if "then" in job:
        # `torchrun ... && upload`: the pod goes on after training, GPUs empty
        then = [sys.executable, os.path.join(HERE, "upload.py"), "--job", r.job, "--rank", str(r.rank),
                "--events", events, "--to", f"{SINK_IP}:{SINK_PORT}"] + [fill(a) for a in job["then"]]
        cmd = ["sh", "-c", " ".join(shlex.quote(c) for c in cmd) + " && exec " +
               " ".join(shlex.quote(c) for c in then)]
    log = open(os.path.join(trace_dir, "logs", f"{r.job}-rank{r.rank}.log"), "w")
    r.proc = subprocess.Popen(["ip", "netns", "exec", r.ns] + cmd, env=env, stdout=log, stderr=subprocess.STDOUT)


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
    p.add_argument("--gpu-telemetry", action="store_true",
                   help="record GPU telemetry (gpus.csv) and NVML's per-process readings (gpu_procs.csv, "
                        "gpu_proc_util.csv) also when ranks share GPUs")
    p.add_argument("--cpu", action="store_true", help="a dry run without a GPU: the jobs run gloo on the CPU")
    p.add_argument("--proc-hz", type=float, default=10,
                   help="each rank's process activity (procs.csv) readings per second; 0: none")
    a = p.parse_args()
    if os.environ.get("NCCL_NVLS_ENABLE", "0") != "0":
        sys.exit("record.py: NCCL_NVLS_ENABLE must stay 0")
    plan = json.load(open(a.plan))
    for i, t in enumerate(plan["traces"]):
        t["index"] = i
    traces = [t for t in plan["traces"] if not a.only or t["name"] in a.only.split(",")]
    ngpu = 1 if a.cpu else int(sh("nvidia-smi", "-L").stdout.count("GPU "))
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

    gpu_telemetry = a.one_rank_per_gpu or a.gpu_telemetry
    telemetry = GpuTelemetry(a.gpu_hz, now_ms) if gpu_telemetry else None
    nvml = None
    if gpu_telemetry:
        try:
            nvml = NvmlProcesses(a.gpu_hz, now_ms)
        except Exception as e:  # no pynvml: nvidia-smi's readings only
            print(f"record.py: no NVML per-process readings: {e}", flush=True)
    if telemetry:
        uuid_of = telemetry.uuids()
        for r in all_ranks:
            r.uuid = uuid_of[r.gpu]
    activity = ProcessActivity(a.proc_hz, now_ms, ranks_of, lambda name: name not in done) if a.proc_hz > 0 \
        else None
    if any("then" in job for t in traces for job in t["jobs"]):
        upload_sink(SINK_PORT)

    for t in traces:
        d = os.path.join(a.out, t["name"])
        os.makedirs(os.path.join(d, "logs"), exist_ok=True)
        os.makedirs(os.path.join(d, "ckpt"), exist_ok=True)
        if any("{dir}/loader-data.bin" in str(v) for job in t["jobs"] for v in job.get("args", [])):
            # what a throttled data loader reads (from the page cache: rchar moves, read_bytes does not)
            with open(os.path.join(d, "loader-data.bin"), "wb") as f:
                f.write(os.urandom(16 << 20))
        for ji, (job, rs) in enumerate(ranks_of[t["name"]]):
            for r in rs:
                start_rank(r, job, len(rs), rs[0].ip, d, ji, a.cpu)

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
        extra = {}
        if what == "start":
            if kind == "hang":
                extra["pid"] = r.signal_train(signal.SIGSTOP)
            elif kind in ("crash", "restart"):
                # restart: the worker killed under torchrun --max-restarts, which restarts the job in the same pods
                extra["pid"] = r.signal_train(signal.SIGKILL)
            elif kind == "block":
                extra["pid"] = r.signal_train(signal.SIGUSR1)  # train_job.py blocks reading its FIFO
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
            truth[name].append({"kind": kind, "job": r.job, "rank": r.rank, "atMs": now_ms(), **extra,
                                **({"rate": inc["rate"]} if "rate" in inc else {}),
                                **({"note": inc["note"]} if "note" in inc else {}),
                                **({"survivorsWait": True} if inc.get("survivorsWait") else {})})
        else:
            if kind == "slow-link":
                sh("tc", "qdisc", "del", "dev", r.veth, "root", check=False)
                sh("ip", "netns", "exec", r.ns, "tc", "qdisc", "del", "dev", "eth0", "root", check=False)
            elif kind == "link-down":
                sh("ip", "link", "set", r.veth, "up", check=False)
            elif kind == "hang":
                r.signal_train(signal.SIGCONT)  # a stop with an end: the probe's phases
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
                                try:
                                    apply(t, inc, "start")
                                except Exception as e:
                                    print(f"record.py: {t['name']}: {inc['kind']}: {e}", flush=True)
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
            procs = scan_processes()
            for job, rs in ranks_of[name]:
                for r in rs:
                    # the pod's whole tree (torchrun's worker, a chained upload), as a pod's deletion ends it
                    for pid in process_tree(r.proc.pid, procs):
                        for sig in (signal.SIGCONT, signal.SIGKILL):
                            try:
                                os.kill(pid, sig)
                            except OSError:
                                pass
                    r.proc.wait()  # its network namespace goes only with its last process
                    if r.fifo:
                        os.close(r.fifo_fd)
                        os.unlink(r.fifo)
            gpu_rows = telemetry.take({r.gpu for _, rs in ranks_of[name] for r in rs}, 0) if telemetry else None
            nvml_rows = None
            if nvml:
                # shared GPUs: only this trace's processes
                mine = activity.pids[name] if activity else set()
                nvml_rows = ([row for row in nvml.procs if row[2] in mine],
                             [row for row in nvml.util if row[2] in mine], list(nvml.whole))
                if not nvml_rows[0] and nvml.procs:
                    # NVML's pids are not /proc's here (another PID namespace): every row, for the importer to judge
                    print(f"record.py: {name}: NVML pids match no process of the trace: writing them all", flush=True)
                    nvml_rows = (list(nvml.procs), list(nvml.util), list(nvml.whole))
            write_trace(a.out, t, ranks_of[name], samples[name], truth[name], start_epoch_ms, a.hz, gpu_rows,
                        a.gpu_hz, a.one_rank_per_gpu, nvml_rows,
                        (activity.rows[name], a.proc_hz) if activity else None)
            print(f"record.py: {name}: {len(samples[name])} counter rows, {len(truth[name])} incidents"
                  + (f", {len(gpu_rows)} GPU readings" if telemetry else "")
                  + (f", {len(nvml_rows[0])}/{len(nvml_rows[1])} NVML process/utilization rows" if nvml else "")
                  + (f", {len(activity.rows[name])} process rows" if activity else ""), flush=True)
            continue
        try:
            apply(t, inc, what)
        except Exception as e:  # one incident that could not be applied loses that incident, not the recording
            print(f"record.py: {name}: {inc['kind']} {what}: {e}", flush=True)
    if telemetry:
        telemetry.stop()
    if nvml:
        nvml.stopped = True
        print(f"record.py: NVML errors (counts): {nvml.errors}", flush=True)
    if activity:
        activity.stopped = True
    th.join(5)
    teardown_network(all_ranks)


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(header + "\n")
        for row in rows:
            f.write(",".join("" if v is None else str(v) for v in row) + "\n")


def write_trace(out, t, jobs, rows, incidents, start_epoch_ms, hz, gpu_rows, gpu_hz, own_gpus=True, nvml_rows=None,
                activity=None):
    d = os.path.join(out, t["name"])
    shutil.rmtree(os.path.join(d, "ckpt"), ignore_errors=True)
    if os.path.exists(os.path.join(d, "loader-data.bin")):
        os.unlink(os.path.join(d, "loader-data.bin"))
    with open(os.path.join(d, "counters.csv"), "w") as f:
        f.write("t_ms,job,rank,tx_bytes,rx_bytes,tx_packets,rx_packets\n")
        for row in rows:
            f.write(",".join(str(v) for v in row) + "\n")
    if gpu_rows is not None:
        with open(os.path.join(d, "gpus.csv"), "w") as f:
            f.write("t_ms,gpu,uuid,util_pct,mem_util_pct,power_w,sm_clock_mhz,processes\n")
            for row in gpu_rows:
                f.write(",".join("" if v is None else str(v) for v in row) + "\n")
    if nvml_rows is not None:
        write_csv(os.path.join(d, "gpu_procs.csv"), "t_ms,gpu,pid,used_mib", nvml_rows[0])
        write_csv(os.path.join(d, "gpu_proc_util.csv"), "t_ms,gpu,pid,sample_ts_us,sm_util,mem_util", nvml_rows[1])
        write_csv(os.path.join(d, "gpu_nvml.csv"), "t_ms,gpu,util_pct,mem_util_pct", nvml_rows[2])
    if activity is not None:
        write_csv(os.path.join(d, "procs.csv"), "t_ms,job,rank,pid,ppid,comm,state,utime,stime,cutime,cstime,"
                  "threads,rchar,wchar", activity[0])
    import torch
    meta = {
        "v": 1,
        "name": t["name"],
        "description": t.get("description", ""),
        "startEpochMs": start_epoch_ms,
        "durationMs": int(t["duration"] * 1000),
        "sampleHz": hz,
        "recordedOn": sh("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").stdout.strip().splitlines()
        if shutil.which("nvidia-smi") else ["no GPU (a dry run)"],
        "torch": torch.__version__,
        "nccl": ".".join(str(v) for v in torch.cuda.nccl.version()) if torch.cuda.is_available() else None,
        "transport": "NCCL socket transport, one veth per rank",
        "jobs": [{"name": job["name"], "ranks": len(rs), "gpus": [r.gpu for r in rs], "args": job.get("args", []),
                  **({"gpuUuids": [r.uuid for r in rs]} if gpu_rows is not None else {})}
                 for job, rs in jobs],
        **({"gpuHz": gpu_hz, "gpuTelemetry": "nvidia-smi --query-gpu=" + GPU_QUERY + " -lms, compute apps polled "
            "every 200 ms; " + ("one rank per GPU" if own_gpus else "the ranks share the GPUs")}
           if gpu_rows is not None else {}),
        **({"sharedGpus": True} if gpu_rows is not None and not own_gpus else {}),
        **({"nvmlProcesses": "pynvml nvmlDeviceGetComputeRunningProcesses, nvmlDeviceGetProcessUtilization and "
            "nvmlDeviceGetUtilizationRates at gpuHz"} if nvml_rows is not None else {}),
        **({"procHz": activity[1], "clockTicksPerSec": os.sysconf("SC_CLK_TCK"),
            "processActivity": "each rank's process tree from /proc/<pid>/stat and /proc/<pid>/io"}
           if activity is not None else {}),
        "incidents": incidents,
    }
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
