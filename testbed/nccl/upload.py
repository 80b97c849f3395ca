#!/usr/bin/env python3
"""What a pod runs after training in `torchrun train.py && python upload.py`: the results uploaded over the pod's
eth0 for a while (GPUs empty, the collective network quiet). Sends --rate-mb MB/s to --to HOST:PORT for --secs s and
logs upload_start/upload_end to --events, as train_job.py logs its phases."""
import argparse
import json
import socket
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--job", required=True)
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--events", required=True)
    p.add_argument("--to", required=True, help="HOST:PORT of a sink that discards what it reads")
    p.add_argument("--secs", type=float, default=60)
    p.add_argument("--rate-mb", type=float, default=40)
    a = p.parse_args()
    events = open(a.events, "a", buffering=1)

    def log(event, **extra):
        events.write(json.dumps({"t": int(time.time() * 1000), "job": a.job, "rank": a.rank, "event": event,
                                 **extra}) + "\n")

    host, port = a.to.rsplit(":", 1)
    chunk = b"\0" * 262144
    sent = 0
    log("upload_start", to=a.to)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        start = time.time()
        while time.time() - start < a.secs:
            # paced: the bytes due by now at --rate-mb, in 256 KiB writes
            due = (time.time() - start) * a.rate_mb * 1e6
            if sent < due:
                s.sendall(chunk)
                sent += len(chunk)
            else:
                time.sleep(0.005)
    log("upload_end", bytes=sent)


if __name__ == "__main__":
    main()
