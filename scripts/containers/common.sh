# shellcheck shell=bash
# Sourced by scripts/containers-test (which sets -euo pipefail and runs from the repository root).
# Settings, clean-up and the check runner of scripts/containers-test: how each check becomes one PASS or FAIL line,
# the summary line, free loopback ports, waiting.

cache="${RDMAMON_CONTAINERS_CACHE:-/var/cache/rdmamon-containers}"
tag="containers-test"
streams_image="localhost/rdmamon-streams:$tag"
collector_image="localhost/rdmamon-collector:$tag"
base_image="localhost/debian:bookworm"
jre_image="localhost/rdmamon-test/jre:17"
maven_image="localhost/rdmamon-test/maven:17"
label="rdmamon-containers-test=$$"
compose_project="rdmamon-ct-$$"

passed=0; failed=0; skipped=0
declare -a skipped_notes=()
work="$(mktemp -d /tmp/rdmamon-containers.XXXXXX)"
chmod 755 "$work"

say() { echo "containers-test: $*" >&2; }

# podman with runc and explicit limits: crun cannot set RLIMIT_NOFILE here and does not support hybrid cgroups.
# containers.conf carries the same settings to 'podman kube play' and 'podman system service' (compose), which take
# no --ulimit flag.
cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$work/containers.conf"
pm() { podman --runtime runc "$@"; }
run_flags=(--network host --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --label "$label")

# Servers and the podman API service run in the background; their process ids go to a file, because checks run in
# subshells (see check) and start servers of their own.
track_pid() { echo "$1" >>"$work/pids"; }

cleanup() {
  set +e
  [ -f "$work/compose-project" ] && stop_compose
  podman ps -aq --filter "label=$label" | xargs -r podman rm -f -v -t 5 >/dev/null 2>&1
  # the compose project's leftovers, should 'docker-compose down' have failed
  local project_label="label=com.docker.compose.project=$compose_project"
  podman ps -aq --filter "$project_label" | xargs -r podman rm -f -v -t 5 >/dev/null 2>&1
  podman volume ls -q --filter "$project_label" | xargs -r podman volume rm -f >/dev/null 2>&1
  podman network rm -f "${compose_project}_default" >/dev/null 2>&1
  if [ -f "$work/kube-played" ]; then
    while read -r f; do podman kube down "$f" >/dev/null 2>&1; done <"$work/kube-played"
    # 'kube down' (podman 4.3) leaves the pods' volumes: the ConfigMap's (named after it), the emptyDirs and the
    # images' anonymous ones, also of the init container podman removed itself. Those created since the play and no
    # longer used go ('volume rm' without -f refuses volumes in use).
    podman volume ls -q | grep -vxF -f "$work/volumes-before-kube" | grep -E '^([0-9a-f]{64}|rdmamon-config)$' \
      | xargs -r podman volume rm >/dev/null 2>&1
  fi
  podman volume ls -q --filter "label=$label" | xargs -r podman volume rm -f >/dev/null 2>&1
  if [ -f "$work/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null; done <"$work/pids"
    sleep 1
  fi
  rm -rf "$work"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); say "PASS $1"; }
fail() { failed=$((failed + 1)); say "FAIL $1"; }
skip() { skipped=$((skipped + 1)); skipped_notes+=("$1: $2"); say "SKIP $1: $2"; }

# Runs check function $1 (description $2) in a subshell with errexit on, so any failing command fails the check;
# prints PASS/FAIL and sets check_ok (1: passed). The function prints its own evidence, which is also kept in a log of
# the check: a failure prints the check, the command that failed (its function, file, line and exit status) and the
# check's last output, so the summary is never the only trace. check itself never fails and is never called as a condition
# (if, &&, ||): bash ignores errexit in a function called there, subshells included, and a failing command in the
# middle of a check then went unnoticed.
check_ok=0
check() {
  local fn=$1 what=$2 start=$SECONDS status log="$work/check-$1.log" where="$work/check-$1.failed"
  rm -f "$where"
  set +e
  (
    set -eE
    # the first (innermost) failure only; a function that returns 1 after saying why fails its caller's command too
    trap 'rc=$?; [ -e "'"$where"'" ] || echo "${FUNCNAME[0]:-$fn} (${BASH_SOURCE[0]:-?}), line $LINENO: $BASH_COMMAND (exit $rc)" >"'"$where"'"' ERR
    "$fn"
  ) 2>&1 | tee "$log" >&2
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -eq 0 ]; then
    check_ok=1
    pass "$what ($((SECONDS - start)) s)"
  else
    check_ok=0
    fail "$what ($((SECONDS - start)) s)"
    say "  check: $fn"
    say "  failed command: $(cat "$where" 2>/dev/null || echo "unknown (exit $status)")"
    say "  its last output ($log):"
    tail -40 "$log" | sed 's/^/    | /' >&2
  fi
}

summary() {
  local note
  for note in "${skipped_notes[@]}"; do say "skipped: $note"; done
  echo "containers: $passed passed, $failed failed, $skipped skipped"
}

# A free loopback port, below the kernel's ephemeral range: outgoing connections and the servers that other builds on
# this machine bind to port 0 take theirs from that range, so a port found free there could be gone before the server
# it is meant for binds it (the old range, 20000-39999, overlapped it). Never the same port twice in a run: several
# are chosen before any is bound.
free_port() {
  local low port
  low="$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
  [ "$low" -gt 12000 ] 2>/dev/null || low=32768
  while :; do
    port=$((10000 + RANDOM % (low - 10000)))
    grep -qx "$port" "$work/ports" 2>/dev/null && continue
    if ! ss -Htln "sport = :$port" | grep -q .; then echo "$port" >>"$work/ports"; echo "$port"; return; fi
  done
}

# Polls command "$@" every second until it succeeds or $timeout seconds pass.
wait_for() {
  local timeout=$1; shift
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 1
  done
}
