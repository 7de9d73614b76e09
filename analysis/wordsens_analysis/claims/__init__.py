"""The claims: every claim the report judges, the rows builders of its tests, and the verdict
table they make over the studies of a report. Above the rules, below the report.

    claim             what a claim is (Claim, Statement, Paper) and its derived rule
    claim_list        every claim in the report's order, and the rules' hash
    claim_groups      shared by the builders: a claim's groups in its regime
    partners          shared by the builders: a paired contrast's partner on the same texts
    shared_tests      shared by the builders: the tests several claims build alike
    ws_claims         the rows of Thms 1–3 and the softmax contrast
    head_claims       the rows of the trained heads (Thms 4–5)
    multi_word_claims the rows of several changed words
    extension_claims  the rows of the other claims beyond the paper
    sequential        trials until decided: the looks and their shares of α
    more_trials       the command that runs a study's next look, said to a person
    verdicts          the verdict table over the studies of a report
    rules_doc         the part of docs/VERDICT_RULES.md the claims make

The other wings take from here only what __all__ names.
"""
from . import (claim, claim_groups, claim_list, extension_claims, head_claims, more_trials,
               multi_word_claims, partners, rules_doc, sequential, shared_tests, verdicts,
               ws_claims)
from .claim import Claim, Paper, Statement
from .claim_list import (CLAIMS, DIAGNOSTICS, EXTENSION_CLAIMS, RULES_HASH, TABLES, of_table,
                         ws_claim_of_model)
from .head_claims import prepare_gen
from .ws_claims import prepare_ws

__all__ = ["claim", "claim_groups", "claim_list", "extension_claims", "head_claims",
           "more_trials", "multi_word_claims", "partners", "rules_doc", "sequential",
           "shared_tests", "verdicts", "ws_claims", "Claim", "Paper", "Statement", "CLAIMS",
           "DIAGNOSTICS", "EXTENSION_CLAIMS", "RULES_HASH", "TABLES", "of_table",
           "ws_claim_of_model", "prepare_gen", "prepare_ws"]
