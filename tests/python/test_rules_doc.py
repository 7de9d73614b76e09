"""docs/VERDICT_RULES.md states the rules the code applies: its version is the code's; the
README's sample of the report names the same rules."""
import os
import re

from conftest import ROOT

from wordsens_analysis import claims, rules


def test_the_rules_page_names_the_codes_version():
    with open(os.path.join(ROOT, "docs", "VERDICT_RULES.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"Current version: \*\*([0-9.]+)\*\*", text)
    assert m and m.group(1) == rules.RULES_VERSION, (m and m.group(1), rules.RULES_VERSION)
    assert f"**{rules.RULES_VERSION}**" in text.split("## Changelog", 1)[1]


def test_every_claim_and_every_verdict_word_is_on_the_page():
    with open(os.path.join(ROOT, "docs", "VERDICT_RULES.md"), encoding="utf-8") as f:
        text = f.read()
    for claim in claims.CLAIMS:
        assert f"`{claim}`" in text or f"`{claim}[" in text, claim
    for word in rules.POSITIVE + (rules.CONTRADICTED, rules.INCONCLUSIVE):
        assert word in text, word


def test_the_readmes_sample_report_names_the_codes_rules():
    """The README shows the default study's first report lines; a rules change that leaves them
    naming older rules would show a reader verdicts the code no longer gives."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    named = re.findall(r"verdict rules ([0-9.]+) \(hash ([0-9a-f]+);", text)
    assert named, "the README shows no report header"
    assert all(n == (rules.RULES_VERSION, claims.RULES_HASH) for n in named), named


def test_the_page_prints_every_statement_and_evidence_as_the_code_has_them():
    """The generated part of the rules' page (statements, regimes, judgements, the evidence
    table) is the code's: rewrite it with `python3 -m wordsens_analysis.claims.rules_doc
    docs/VERDICT_RULES.md`."""
    from wordsens_analysis.claims import rules_doc

    with open(os.path.join(ROOT, "docs", "VERDICT_RULES.md"), encoding="utf-8") as f:
        text = f.read()
    assert rules_doc.generated_part(text) == rules_doc.markdown(), (
        "docs/VERDICT_RULES.md's generated part is stale: run python3 -m "
        "wordsens_analysis.claims.rules_doc docs/VERDICT_RULES.md (in analysis/)")
