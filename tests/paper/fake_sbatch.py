#!/usr/bin/python3
"""A stand-in for `sbatch` that runs each job at once, in submission order, as Slurm would run
it on one node once its dependencies are met: the batch script under bash with the SLURM_*
variables a job (or each task of a job array) sees. A dependency must name jobs submitted
before; `afterok` on a failed job cancels the job, as --kill-on-invalid-dep=yes does.

Every submission is appended to $FAKE_SBATCH_LOG as one JSON line (id, options, script, args,
exit codes). Only the options the wordsens scripts use are understood.
"""
import json
import os
import subprocess
import sys

state_path = os.environ["FAKE_SBATCH_LOG"]


def jobs():
    if not os.path.exists(state_path):
        return []
    with open(state_path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    opts, i = {}, 0
    while i < len(argv) and argv[i].startswith("-"):
        key, eq, value = argv[i].partition("=")
        if not eq and key in ("-p", "-A", "-t", "-N", "--array", "--dependency", "--job-name"):
            value, i = argv[i + 1], i + 1
        opts[key] = value if (eq or value) else True
        i += 1
    if i >= len(argv):
        print("fake sbatch: no script", file=sys.stderr)
        return 1
    script, args = argv[i], argv[i + 1:]
    done = jobs()
    job_id = 1000 + len(done)
    record = {"id": job_id, "options": opts, "script": os.path.basename(script), "args": args,
              "codes": [], "state": "COMPLETED"}
    dep = opts.get("--dependency")
    if dep:
        kind, _, ids = dep.partition(":")
        by_id = {j["id"]: j for j in done}
        for d in ids.split(":"):
            if int(d) not in by_id:
                print(f"fake sbatch: dependency on unknown job {d}", file=sys.stderr)
                return 1
            if kind == "afterok" and by_id[int(d)]["state"] != "COMPLETED":
                record["state"] = "CANCELLED"
    tasks = [None]
    if "--array" in opts:
        lo, hi = (int(v) for v in str(opts["--array"]).split("-"))
        tasks = list(range(lo, hi + 1))
    if record["state"] != "CANCELLED":
        for t in tasks:
            env = dict(os.environ, SLURM_JOB_ID=str(job_id), SLURM_SUBMIT_DIR=os.getcwd(),
                       SLURM_RESTART_COUNT="0", SLURM_NTASKS="1", SLURM_JOB_NUM_NODES="1")
            if t is not None:
                env.update(SLURM_ARRAY_JOB_ID=str(job_id), SLURM_ARRAY_TASK_ID=str(t),
                           SLURM_ARRAY_TASK_MIN=str(tasks[0]), SLURM_ARRAY_TASK_MAX=str(tasks[-1]),
                           SLURM_ARRAY_TASK_COUNT=str(len(tasks)))
            log = os.path.join(os.environ.get("FAKE_SBATCH_OUT", "."),
                               f"job-{job_id}" + (f"_{t}" if t is not None else "") + ".out")
            with open(log, "w") as out:
                code = subprocess.run(["bash", script, *args], env=env, stdout=out,
                                      stderr=subprocess.STDOUT).returncode
            record["codes"].append(code)
        if any(record["codes"]):
            record["state"] = "FAILED"
    with open(state_path, "a") as f:
        f.write(json.dumps(record) + "\n")
    print(job_id if "--parsable" in opts else f"Submitted batch job {job_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
