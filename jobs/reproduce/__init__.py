"""The reproduce-the-paper driver behind jobs/reproduce_paper.sh, one module per step a reader
follows:

- options: the command line, checked before anything runs;
- studies: which studies, their configurations, files and the options of every run;
- wordsens: what the driver asks the binary (a study's data, its dry run, a file's state);
- plans: a study's plan from its dry run (jobs/reproduce_plan.py), and the --dry-run table;
- processes: the children the driver starts, the signals it takes, the locks they hold;
- local_run: here, under mpirun: the first batches, the looks of trials until decided, the
  report and the results section;
- slurm_run: on a cluster: the jobs, arrays and merges, the judge steps between looks, the report
  job.

jobs/reproduce_paper.py is the entry point (its docstring is --help).
"""
