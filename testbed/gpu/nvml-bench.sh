#!/usr/bin/env bash
# What reading the GPUs costs, on a GPU machine with a training-like load on every GPU: the collector's GPU source
# (NVML in-process, then nvidia-smi) beside testbed/gpu/pynvml_reader.py reading the same fields at the same rate, and
# the whole collector with GPUs beside without (`rdmamon bench collector --gpu`). No Kafka.
#   testbed/gpu/nvml-bench.sh JAVA CLASSPATH OUTDIR [nvml]
# JAVA: a java binary (17+); CLASSPATH: target/rdmamon.jar and the collector's libraries (target/collector-lib/*).
# With COLLECTOR_JVM_OPTIONS=1 the benchmark's JVM runs with the collector's own JVM options (collector/jvm.options,
# from the jar), as the GPU source runs in the collector; by default with the JVM's defaults (as the recorded run in
# testbed/gpu/runs/2026-11-29-h200-nvml). With "nvml": the NVML measurement alone (shorter).
# BENCH_SETTINGS adds options to every benchmark run (e.g. --set KEY=VALUE).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java="$1"; cp="$2"; out="$3"; only="${4:-}"
mkdir -p "$out"
jar="${cp%%:*}"
: >"$out/jvm.options"
if [ "${COLLECTOR_JVM_OPTIONS:-0}" = 1 ]; then
  python3 -c 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read("collector/jvm.options").decode())' \
    "$jar" >"$out/jvm.options"
fi
# BENCH_SETTINGS: more benchmark options, e.g. "--set collector.gpu.process.activity=false"
# shellcheck disable=SC2086
bench() { "$java" @"$out/jvm.options" -cp "$cp" io.rdmamon.bench.GpuBenchmark --gpu "$@" ${BENCH_SETTINGS:-}; }
{ nvidia-smi --query-gpu=name,driver_version,uuid,mig.mode.current --format=csv; nproc; uname -r
  python3 -c 'import pynvml; print("nvidia-ml-py", pynvml.__version__ if hasattr(pynvml, "__version__") else "?")'
} >"$out/machine.txt" 2>&1
# every GPU busy with matrix products in bursts, as training is: utilization and one compute process per GPU
python3 - "${LOAD_SECONDS:-400}" >"$out/load.txt" 2>&1 <<'PY' &
import sys, time, torch
end = time.time() + float(sys.argv[1])
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.bfloat16) for i in range(torch.cuda.device_count())]
print("load pid", __import__("os").getpid(), flush=True)
while time.time() < end:
    for x in xs:
        for _ in range(8):
            y = x @ x
    torch.cuda.synchronize()
    time.sleep(0.05)
PY
load=$!
sleep 8
reader="python3 $here/pynvml_reader.py 200 1000"
if [ "$only" = nvml ]; then
  echo "== NVML, the benchmark's JVM with the collector's JVM options" | tee -a "$out/bench.txt"
  bench --gpu-source-only --interval 1s --warmup-time 15s --time 45s --beside "$reader" 2>"$out/bench-nvml.log" \
    | tee -a "$out/bench.txt"
  kill "$load" 2>/dev/null; wait 2>/dev/null
  exit 0
fi
echo "== NVML, and the collector with GPUs beside without" | tee -a "$out/bench.txt"
bench --interval 1s --warmup-time 20s --time 60s --beside "$reader" 2>"$out/bench-nvml.log" | tee -a "$out/bench.txt"
echo "== nvidia-smi" | tee -a "$out/bench.txt"
bench --gpu-source-only --set collector.gpu.reader=nvidia-smi --interval 1s --warmup-time 5s --time 30s \
  --beside "$reader" 2>"$out/bench-nvidia-smi.log" | tee -a "$out/bench.txt"
kill "$load" 2>/dev/null; wait 2>/dev/null
true
