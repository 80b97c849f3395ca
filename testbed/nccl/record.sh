#!/usr/bin/env bash
# One command to record real NCCL traces on a multi-GPU Linux machine with PyTorch, as root:
#   testbed/nccl/record.sh [PLAN] [OUTDIR] [record.py options]     (default: plans/traces.json, ./nccl-traces)
# Writes one folder per trace (trace.json, counters.csv, events.jsonl, logs/) and OUTDIR.tar.gz of them all.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plan="${1:-$here/plans/traces.json}"; out="${2:-nccl-traces}"; shift $(( $# > 2 ? 2 : $# ))
if ! command -v ip >/dev/null 2>&1 || ! command -v tc >/dev/null 2>&1; then
  [ -x "$here/.iproute2/bin/ip" ] || { echo "record.sh: no ip/tc here: run fetch-iproute2.sh on a machine with apt and bring testbed/nccl/.iproute2" >&2; exit 1; }
  # wrappers that give ip and tc their libraries through the loader, so that what `ip netns exec` starts (python,
  # torch) does not inherit Debian's libraries
  bin="$(mktemp -d)"; libs="$here/.iproute2/lib"
  for tool in ip tc; do
    printf '#!/bin/sh\nexec /lib64/ld-linux-x86-64.so.2 --library-path %s %s "$@"\n' "$libs" \
      "$here/.iproute2/bin/$tool" >"$bin/$tool"
    chmod +x "$bin/$tool"
  done
  export PATH="$bin:$PATH"
fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
python3 "$here/record.py" "$plan" "$out" "$@"
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
echo "record.sh: $(du -h "$out.tar.gz" | cut -f1) in $out.tar.gz" >&2
