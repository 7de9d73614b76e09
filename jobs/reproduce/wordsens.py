"""What the driver asks the wordsens binary: a study's data as the binary resolves it (`wordsens
config`, which reads no input), its dry run (the plan for scripts as JSON, the table for people),
and a results file's state from its own provenance (`wordsens info`)."""
from __future__ import annotations

import dataclasses
import os
import re

from . import processes


@dataclasses.dataclass(frozen=True)
class FileState:
    """A results file's tasks done and planned, creation time and configuration hash; zeros and
    `-` when it does not exist or cannot be read."""
    done: str = "0"
    planned: str = "0"
    created: str = "-"
    config_hash: str = "-"

    @property
    def complete(self) -> bool:
        """Every planned task of the file is done."""
        return self.done == self.planned and self.done != "0"


class Wordsens:
    def __init__(self, path: str):
        self.path = path
        self._data = {}  # configuration -> its embeddings file

    def embeddings_of(self, config: str) -> str:
        """The path of a study's embeddings file, empty for synthetic texts (the file may not
        be built yet: `wordsens config` reads no input)."""
        if config not in self._data:
            self._data[config] = self._embeddings_of(config)
        return self._data[config]

    def _embeddings_of(self, config: str) -> str:
        p = processes.quiet([self.path, "config", config, "--format=tsv"])
        if p.returncode != 0:
            return ""
        for line in p.stdout.splitlines():
            fields = line.split("\t")
            if fields[0] == "data" and len(fields) > 2 and fields[2].startswith("embeddings:"):
                return fields[2][len("embeddings:"):]
        return ""

    def dry_run(self, config: str, options: list, json: bool = False):
        """`wordsens run CONFIG --dry-run`: the completed process, with the JSON plan on stdout
        (its messages on stderr), or the table for people with stderr merged into stdout."""
        if json:
            return processes.quiet([self.path, "run", config, "--dry-run", "--format=json",
                                    *options])
        return processes.quiet([self.path, "run", config, "--dry-run", *options], merge=True)

    def file_state(self, path: str) -> FileState:
        if not os.path.isfile(path):
            return FileState()
        p = processes.quiet([self.path, "info", path])
        if p.returncode != 0:
            return FileState()
        done = re.search(r"^tasks done:\s*(\S+)", p.stdout, re.M)
        created = re.search(r"^created \(UTC\):\s*(\S+)", p.stdout, re.M)
        config_hash = re.search(r"^config hash:\s*(\S+)", p.stdout, re.M)
        counts = done.group(1).split("/") if done else []
        return FileState(counts[0] if counts and counts[0] else "0",
                         counts[1] if len(counts) > 1 and counts[1] else "0",
                         created.group(1) if created else "-",
                         config_hash.group(1) if config_hash else "-")

    def complete(self, path: str) -> bool:
        return self.file_state(path).complete
