#!/usr/bin/env bash
# What a lent GPU machine offers the collector's GPU source: nvidia-smi's formats, captured to $OUT/probe.txt.
set -u
out="${OUT:-/tmp}/probe.txt"
{
  echo "== uname"; uname -a
  echo "== which"; which java nvidia-smi python3 ip tc 2>&1
  echo "== nvidia-smi"; nvidia-smi
  echo "== nvidia-smi --version"; nvidia-smi --version
  echo "== nvidia-smi -L"; nvidia-smi -L
  echo "== query-gpu stream 2 s"
  timeout 2 nvidia-smi --query-gpu=index,uuid,utilization.gpu,utilization.memory,power.draw,clocks.sm --format=csv,noheader,nounits --loop-ms=200
  echo "== query-gpu with header and units"
  nvidia-smi --query-gpu=timestamp,index,uuid,name,utilization.gpu,utilization.memory,power.draw,clocks.sm,clocks.max.sm,temperature.gpu,memory.used --format=csv
  echo "== query-compute-apps (idle)"; nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv; echo "rc=$?"
  echo "== -q -d UTILIZATION,POWER,CLOCK (GPU 0)"; nvidia-smi -q -i 0 -d UTILIZATION,POWER,CLOCK | head -80
} >"$out" 2>&1
