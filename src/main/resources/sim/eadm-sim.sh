#!/usr/bin/env bash
# Simulated `eadm stat -d <ibdev> -l` (Alibaba eRDMA admin tool) for rdmamon's demo and tests.
#
# Reads the device's traffic counters from a simulated sysfs tree, like the real tool reads the hardware, and prints
# one line per interval in eadm's format:
#   rx: 914.89 MiB/s 150423 p/s; tx: 914.66 MiB/s 147128 p/s
# Counters: $EADM_SIM_SYSFS/class/infiniband/<dev>/ports/1/hw_counters/{hw_,}{tx,rx}_{bytes,packets}_cnt
# (Alibaba's out-of-tree naming with hw_, or the upstream one). An interval in which a counter is missing, not a
# number or went down (reset) prints nothing and starts again from the new values.
#
# Environment: EADM_SIM_SYSFS (required) the simulated sysfs root; EADM_SIM_INTERVAL seconds between lines (default 1).
# Needs only bash, coreutils (date, sleep) and awk.
set -u
export LC_ALL=C

usage() {
    echo "usage: eadm-sim.sh stat [-d <ibdev>] -l" >&2
    exit 2
}

[ "${1:-}" = "stat" ] || usage
shift
dev=""
live=0
while [ $# -gt 0 ]; do
    case "$1" in
        -d) [ $# -ge 2 ] || usage; dev="$2"; shift 2 ;;
        -l) live=1; shift ;;
        *) usage ;;
    esac
done
[ "$live" = 1 ] || { echo "eadm-sim: only the live view (-l) is simulated" >&2; exit 2; }
root="${EADM_SIM_SYSFS:-}"
[ -n "$root" ] || { echo "eadm-sim: set EADM_SIM_SYSFS to the simulated sysfs root" >&2; exit 2; }
ib="$root/class/infiniband"
if [ -z "$dev" ]; then
    shopt -s nullglob
    devices=("$ib"/*)
    [ ${#devices[@]} -eq 1 ] || { echo "eadm-sim: ${#devices[@]} devices under $ib: use -d <ibdev>" >&2; exit 1; }
    dev="$(basename "${devices[0]}")"
fi
hw="$ib/$dev/ports/1/hw_counters"
[ -d "$hw" ] || { echo "eadm-sim: no such device: $dev ($hw missing)" >&2; exit 1; }
interval="${EADM_SIM_INTERVAL:-1}"

# prints the counter's value, or - when it is missing or not a number
counter() {
    local f v
    for f in "$hw/hw_$1" "$hw/$1"; do
        if [ -r "$f" ]; then
            v="$(< "$f")"
            v="${v//[[:space:]]/}"
            if [[ "$v" =~ ^[0-9]+$ ]]; then
                echo "$v"
                return
            fi
        fi
    done
    echo "-"
}

snapshot() {
    echo "$(date +%s%N) $(counter rx_bytes_cnt) $(counter rx_packets_cnt) $(counter tx_bytes_cnt) $(counter tx_packets_cnt)"
}

previous="$(snapshot)"
while true; do
    sleep "$interval"
    current="$(snapshot)"
    line="$(awk -v a="$previous" -v b="$current" '
        function human(bps,    i, units) {
            split("B KiB MiB GiB TiB", units, " ")
            for (i = 1; bps >= 1024 && i < 5; i++) bps /= 1024
            return sprintf("%.2f %s/s", bps, units[i])
        }
        BEGIN {
            split(a, p, " "); split(b, c, " ")
            secs = (c[1] - p[1]) / 1e9
            if (secs <= 0) exit
            for (k = 2; k <= 5; k++) {
                if (p[k] == "-" || c[k] == "-" || c[k] + 0 < p[k] + 0) exit
                rate[k] = (c[k] - p[k]) / secs
            }
            printf "rx: %s %.0f p/s; tx: %s %.0f p/s", human(rate[2]), rate[3], human(rate[4]), rate[5]
        }')"
    previous="$current"
    if [ -n "$line" ]; then
        printf '%s\n' "$line" || exit 0
    fi
done
