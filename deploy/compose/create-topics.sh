#!/bin/sh
# Creates rdmamon's topics (idempotent). Kafka's own image runs it: kafka-topics.sh must be on PATH or in /opt/kafka/bin.
#   BOOTSTRAP    broker list (default kafka:9092)
#   PARTITIONS   partitions per topic (default 6): bounds the stream app's parallelism (instances x threads)
#   REPLICATION  replication factor (default 1 here; 3 on a real cluster)
# rdma.jobs, rdma.pod-devices and rdma.nodes are tables keyed by job uid / node: compacted, never deleted by time.
set -eu
BOOTSTRAP="${BOOTSTRAP:-kafka:9092}"
PARTITIONS="${PARTITIONS:-6}"
REPLICATION="${REPLICATION:-1}"
TOPICS_CMD="$(command -v kafka-topics.sh || echo /opt/kafka/bin/kafka-topics.sh)"

create() {
  "$TOPICS_CMD" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$1" \
    --partitions "$PARTITIONS" --replication-factor "$REPLICATION" --config "$2"
}

create rdma.port-samples cleanup.policy=delete
create rdma.host-samples cleanup.policy=delete
create rdma.gpu-samples cleanup.policy=delete
create rdma.jobs cleanup.policy=compact
create rdma.pod-devices cleanup.policy=compact
create rdma.nodes cleanup.policy=compact
create rdma.job-bandwidth cleanup.policy=delete
create rdma.link-health cleanup.policy=delete
create rdma.alerts cleanup.policy=delete
create rdma.dead-letter cleanup.policy=delete
"$TOPICS_CMD" --bootstrap-server "$BOOTSTRAP" --list
