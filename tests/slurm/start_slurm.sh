#!/usr/bin/env bash
# Starts a private single-node Slurm (munged + slurmctld + slurmd) whose every file lives in DIR:
# key, sockets, config, state, spool, logs, PID files. Nothing system-wide is read or written, so
# it can run next to a real Slurm and leaves no trace once DIR is removed.
# Usage: start_slurm.sh DIR          (DIR must exist and be empty or new; run as root)
# Afterwards: export SLURM_CONF=DIR/slurm.conf; stop with stop_slurm.sh DIR.
# DIR/pids lists "name pid" of exactly the daemons started here; stop_slurm.sh kills only those.
set -euo pipefail

dir=${1:?usage: start_slurm.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# munged wants the socket's directories searchable by all but writable by no one else.
chmod 0711 "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" "$dir/tmp"
chmod 0711 "$dir/munge"
: >"$dir/pids"

log() { echo "start_slurm: $*" >&2; }
die() {
  log "error: $*"
  for f in "$dir"/log/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}

# munged also wants every ancestor of its socket searchable by all (mktemp -d makes 0700 dirs).
d=$(dirname "$dir")
while [ "$d" != / ]; do
  [ "$(( $(stat -c '0%a' "$d") & 1 ))" -eq 1 ] || die "$d is not searchable by others (chmod o+x it)"
  d=$(dirname "$d")
done
# Bounded poll: retry CMD every 0.2 s for at most SECONDS_MAX seconds.
poll() {
  local seconds_max=$1
  shift
  local deadline=$((SECONDS + seconds_max))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# Free TCP ports for slurmctld and slurmd, so a system Slurm on 6817/6818 does not collide.
read -r ctld_port slurmd_port < <(/usr/bin/python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
EOF
)

host=$(hostname -s)
cpus=$(nproc)
# The node's memory, so that jobs asking for memory per rank (jobs/slurm/submit.sh) fit; memory
# is not a consumable here (CR_CPU), so jobs that ask for none still share the node.
memory_mib=$(awk '/^MemTotal:/{print int($2 / 1024 * 0.9)}' /proc/meminfo)
# When the host name resolves to a loopback address, Slurm's default INADDR_ANY binding plus
# name lookups make slurmctld and slurmd miss each other; binding to the resolved address fixes it.
comm_params=""
if getent hosts "$host" | awk '{print $1}' | grep -q '^127\.'; then
  comm_params="CommunicationParameters=NoCtldInAddrAny,NoInAddrAny"
fi

# --- munge: a fresh key and a private socket ---
key="$dir/munge/munge.key"
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="$key" --bits=1024 >/dev/null
else
  dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
fi
chmod 0400 "$key"
sock="$dir/munge/munge.socket"
munged --foreground --key-file="$key" --socket="$sock" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
  >>"$dir/log/munged.stdout" 2>&1 &
echo "munged $!" >>"$dir/pids"
poll 10 test -S "$sock" || die "munged did not create its socket within 10 s"

# --- slurm.conf ---
# TmpFS: the PMIx plugin puts per-step directories there (default /tmp).
# cred_expire=10: a requeued job waits cred_expire+1 s before it may start again (default 120).
# sched_interval / bf_interval: a small cluster can afford scheduling every second, so pending
# jobs start promptly instead of on the next 60 s pass.
cat >"$dir/slurm.conf" <<EOF
ClusterName=wordsenstest
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${sock},cred_expire=10
StateSaveLocation=${dir}/state
SlurmdSpoolDir=${dir}/spool/%n
TmpFS=${dir}/tmp
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd.pid
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=pmix
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
KillWait=5
MinJobAge=600
${comm_params}
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${memory_mib} State=UNKNOWN
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

# --- daemons, in the foreground of background shells so that $! is the daemon's own PID ---
slurmctld -D -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.stdout" 2>&1 &
echo "slurmctld $!" >>"$dir/pids"
slurmd -D -f "$SLURM_CONF" >>"$dir/log/slurmd.stdout" 2>&1 &
echo "slurmd $!" >>"$dir/pids"

# Ready when the node is idle (clients retry for 60 s on their own, so each poll is bounded too).
node_idle() { timeout 5 sinfo -h -N -o '%T' 2>/dev/null | grep -qx 'idle'; }
poll 30 node_idle || die "node not idle within 30 s ($(timeout 5 sinfo -h -N -o '%T' 2>&1))"
log "up in $dir (ctld port $ctld_port, slurmd port $slurmd_port, $cpus CPUs, node $host)"
