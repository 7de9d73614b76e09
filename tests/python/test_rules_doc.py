"""docs/VERDICT_RULES.md states the rules the code applies: its version is the code's."""
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
