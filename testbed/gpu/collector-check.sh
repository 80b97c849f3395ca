#!/usr/bin/env bash
# Runs rdmamon's collector on a GPU machine beside nvidia-smi while testbed/gpu/gpu_load.py exercises every GPU, and
# compares the two (testbed/gpu/agreement.py). No Kafka: the collector prints its records (--stdout).
#   testbed/gpu/collector-check.sh JAVA CLASSPATH OUTDIR [SECONDS_PER_PHASE]
# JAVA: a java binary (17+); CLASSPATH: target/rdmamon.jar and the collector's libraries (README "GPU telemetry").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java="$1"; cp="$2"; out="$3"; secs="${4:-15}"
mkdir -p "$out"
nvidia-smi --query-gpu=timestamp,index,utilization.gpu,utilization.memory,power.draw,clocks.sm,uuid \
  --format=csv,noheader,nounits --loop-ms=100 >"$out/nvidia-smi.csv" &
smi=$!
"$java" -cp "$cp" io.rdmamon.collector.CollectorMain --stdout --interval 1s --node "$(hostname)" \
  --metrics-port -1 --set eadm.enabled=false --set collector.podresources.socket= \
  >"$out/collector.jsonl" 2>"$out/collector.log" &
collector=$!
sleep 5
python3 "$here/gpu_load.py" "$secs" >"$out/phases.jsonl"
sleep 5
kill "$collector" "$smi" 2>/dev/null || true
wait 2>/dev/null || true
python3 "$here/agreement.py" "$out/collector.jsonl" "$out/nvidia-smi.csv" | tee "$out/agreement.txt"
