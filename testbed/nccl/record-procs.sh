#!/usr/bin/env bash
# The recordings of issues 48 and 49 on a machine with one GPU (the ranks share it): a one-minute probe of NVML's
# per-process utilization, then plans/procs.json in two batches, GPU telemetry and process activity at 10 Hz. Each
# batch's tarball goes to $OUT (or ./procs-out) as soon as it is written.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/procs-out}"; rec=/tmp/rec; mkdir -p "$out" "$rec"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{ python3 -c "import torch, pynvml; print('torch', torch.__version__, 'gpus', torch.cuda.device_count())"
  nproc; uname -r; nvidia-smi -L; ls /proc/self/io; } 2>&1 | tee "$out/env.txt"
batch() {  # name secs plan [record.py options]
  local name=$1 secs=$2 plan=$3; shift 3
  timeout "$secs" bash "$here/record.sh" "$here/plans/$plan" "$rec/$name" --gpu-telemetry "$@" 2>&1 | tee "$out/$name.log"
  [ -f "$rec/$name.tar.gz" ] || tar -czf "$rec/$name.tar.gz" -C "$rec" "$name"
  cp "$rec/$name.tar.gz" "$out/"
}
case "${1:-all}" in
  all)
    batch probe 100 probe-shared.json
    batch batch-a 225 procs.json --only proc-stop-eval-hang,proc-stop-ckpt-hang,proc-stop-loader-hang,proc-blocked-read-hang,proc-healthy
    batch batch-b 230 procs.json --only proc-rank0-healthy,proc-slow-loader-healthy,proc-rank-killed-hang,proc-upload-healthy,proc-elastic-healthy ;;
  rerun)  # the second run: the traces whose NVML samples matter most, and the torchrun ones, at once
    batch batch-c 240 procs.json --only proc-stop-eval-hang,proc-stop-ckpt-hang,proc-stop-loader-hang,proc-blocked-read-hang,proc-rank0-healthy,proc-rank-killed-hang,proc-upload-healthy,proc-elastic-healthy ;;
esac
ls -la "$out"
