#!/usr/bin/env bash
# Stops the private Slurm that start_slurm.sh started in DIR: cancels its jobs, then ends exactly
# the PIDs listed in DIR/pids (TERM, then KILL after a bounded wait). Never matches processes by
# name, so a system Slurm or another test's daemons are left alone.
# Usage: stop_slurm.sh DIR        exit 0 when none of the recorded daemons is left running.
set -uo pipefail

dir=${1:?usage: stop_slurm.sh DIR}
[ -f "$dir/pids" ] || exit 0
log() { echo "stop_slurm: $*" >&2; }

# Running and not a zombie (a reparented daemon may wait for a reaper that never comes).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "$state" != "Z" ]
}

# Jobs first, while slurmctld still runs: slurmstepd and job processes are not children of the
# daemons, so only Slurm itself can end them cleanly.
if [ -f "$dir/slurm.conf" ]; then
  export SLURM_CONF="$dir/slurm.conf"
  if [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; then
    timeout 5 scancel --full --signal=KILL --user="$(id -un)" >/dev/null 2>&1 || true
    timeout 5 scancel --user="$(id -un)" >/dev/null 2>&1 || true
    deadline=$((SECONDS + 20))
    while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && [ "$SECONDS" -lt "$deadline" ]; do
      sleep 0.5
    done
  fi
fi

# Reverse start order: slurmd, slurmctld, munged.
mapfile -t entries < <(tac "$dir/pids")
for entry in "${entries[@]}"; do
  read -r name pid <<<"$entry"
  alive "$pid" && kill -TERM "$pid" 2>/dev/null
  deadline=$((SECONDS + 15))
  while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if alive "$pid"; then
    log "$name ($pid) ignored TERM for 15 s, sending KILL"
    kill -KILL "$pid" 2>/dev/null
    sleep 0.5
  fi
done

left=0
for entry in "${entries[@]}"; do
  read -r name pid <<<"$entry"
  if alive "$pid"; then
    log "$name ($pid) still running"
    left=1
  fi
done
exit "$left"
