"""The analysis takes a model's kind from the catalogue the results files record (/models),
not from lists of names of its own: a model it has never heard of is analysed by its traits."""
import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_tables, write_results

from wordsens_analysis import catalogue, read_results, regimes


@pytest.fixture
def fresh_catalogue(monkeypatch):
    """The catalogue as a process starts with it; what a test registers is forgotten after."""
    monkeypatch.setattr(catalogue, "_known", {t.name: t for t in catalogue.BEFORE_1_7})


def grid():
    return pd.DataFrame({"model": "toy", "n": [4, 8, 16], "d": 8, "k": [32, 64, 128],
                         "layers": 1, "N": [3, 3, 3]})


def test_a_new_attention_model_is_judged_in_attention_s_regime(fresh_catalogue):
    with pytest.raises(KeyError, match="'toy' is in no results file read"):
        regimes.ws_mask(grid(), "toy")
    catalogue.register([catalogue.ModelTraits("toy", True, False, False, 32)], "a.h5")
    assert list(regimes.ws_mask(grid(), "toy")) == [True, True, False]  # n <= d
    assert regimes.ws_regime_text("toy") == "n ≤ d"
    assert set(regimes.k_labels(grid())) == {""}  # no width k
    assert catalogue.attention_models() == ("raf", "raf_relu", "toy")


def test_a_new_random_features_model_is_judged_in_the_width_regime(fresh_catalogue):
    catalogue.register([catalogue.ModelTraits("toy", False, True, False, 0)], "a.h5")
    df = grid().assign(k=[4, 8, 16])
    assert list(regimes.ws_mask(df, "toy")) == [False, True, True]  # k >= d
    assert regimes.ws_regime_text("toy") == "k ≥ d"
    assert set(regimes.k_labels(df)) != {""}
    assert catalogue.is_deep("toy") and catalogue.models()[-1] == "toy"


def test_two_files_that_disagree_on_a_model_are_refused(fresh_catalogue):
    catalogue.register([catalogue.ModelTraits("toy", True, False, False, 32)], "a.h5")
    with pytest.raises(catalogue.CatalogueConflict, match="b.h5: /models gives toy attention=0"):
        catalogue.register([catalogue.ModelTraits("toy", False, False, False, 0)], "b.h5")
    with pytest.raises(catalogue.CatalogueConflict, match="raf attention=0"):
        catalogue.register([catalogue.ModelTraits("raf", False, False, False, 32)], "c.h5")


def test_a_file_before_the_models_table_gets_the_traits_its_models_had(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    res = read_results(write_results(tmp_path / "v1_4.h5", tasks, ws, gen, version=(1, 4)))
    assert list(res.models["model"]) == ["rf", "drf", "raf", "raf_relu"]
    assert list(res.models["attention"]) == [False, False, True, True]
    assert list(res.models["deep"]) == [False, True, False, False]
    assert np.array_equal(res.models["min_total_sphere_starts"], [0, 0, 32, 32])
