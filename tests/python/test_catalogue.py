"""The analysis takes a model's kind from the catalogue the results files record (/models),
not from lists of names of its own: a model it has never heard of is analysed by its traits."""
import numpy as np
import pandas as pd
import pytest
from conftest import synthetic_tables, write_results

from wordsens_analysis import read_results
from wordsens_analysis.reading import catalogue
from wordsens_analysis.rules import regimes


def known(*models, source="a.h5"):
    """The catalogue of a file that records `models` (beside the pre-1.7 catalogue's)."""
    return catalogue.Catalogue.before_1_7().with_models(list(models), source)


def grid():
    return pd.DataFrame({"model": "toy", "n": [4, 8, 16], "d": 8, "k": [32, 64, 128],
                         "layers": 1, "N": [3, 3, 3]})


def test_a_new_attention_model_is_judged_in_attention_s_regime():
    with pytest.raises(KeyError, match="'toy' is in no results file read"):
        regimes.ws_mask(grid(), "toy", catalogue.Catalogue.before_1_7())
    models = known(catalogue.ModelTraits("toy", True, False, False, 32))
    assert list(regimes.ws_mask(grid(), "toy", models)) == [True, True, False]  # n <= d
    assert regimes.ws_regime_text("toy", models) == "n ≤ d"
    assert set(regimes.k_labels(grid(), models)) == {""}  # no width k
    assert models.attention_models() == ("raf", "raf_relu", "toy")


def test_a_new_random_features_model_is_judged_in_the_width_regime():
    models = known(catalogue.ModelTraits("toy", False, True, False, 0, width="features"))
    df = grid().assign(k=[4, 8, 16])
    assert list(regimes.ws_mask(df, "toy", models)) == [False, True, True]  # k >= d
    assert regimes.ws_regime_text("toy", models) == "k ≥ d"
    assert set(regimes.k_labels(df, models)) != {""}
    assert models.is_deep("toy") and models.models()[-1] == "toy"


def test_two_files_that_disagree_on_a_model_are_refused():
    a = known(catalogue.ModelTraits("toy", True, False, False, 32))
    with pytest.raises(catalogue.CatalogueConflict, match="b.h5: /models gives toy attention=0"):
        a.merged(known(catalogue.ModelTraits("toy", False, False, False, 0), source="b.h5"),
                 "b.h5")
    with pytest.raises(catalogue.CatalogueConflict, match="raf attention=0"):
        known(catalogue.ModelTraits("raf", False, False, False, 32), source="c.h5")


def test_a_report_refuses_files_that_disagree_naming_the_later():
    """The files of one report merge their catalogues in the order given (as wordsens-report
    reads them): the first that gives a model another kind is refused, named."""
    from types import SimpleNamespace

    from wordsens_analysis.reading import ResultsFileError, catalogue_of
    a = SimpleNamespace(path="a.h5", catalogue=known(catalogue.ModelTraits("toy", True, False,
                                                                           False, 32)))
    b = SimpleNamespace(path="b.h5", catalogue=known(
        catalogue.ModelTraits("toy", False, False, False, 0), source="b.h5"))
    assert catalogue_of([a]).is_attention("toy") and not catalogue_of([b]).is_attention("toy")
    with pytest.raises(ResultsFileError, match="^b.h5: /models gives toy attention=0, deep=0, "
                                               "but it is known with attention=1, deep=0$"):
        catalogue_of([a, b])


def test_a_catalogue_is_a_value():
    """Adding models gives a new catalogue: the one added to, and any file read apart, keep
    theirs (there is no catalogue of the process for a file to leave its models in)."""
    before = catalogue.Catalogue.before_1_7()
    after = before.with_models([catalogue.ModelTraits("toy", True, False, False, 32)], "a.h5")
    assert "toy" in after.models() and "toy" not in before.models()
    assert "toy" not in catalogue.Catalogue.before_1_7().models()
    # Two files that disagree are each read alone; only a report of both refuses them.
    other = known(catalogue.ModelTraits("toy", False, False, False, 0), source="b.h5")
    assert other.is_attention("toy") is False and after.is_attention("toy") is True


def test_an_mlp_width_is_not_a_random_feature_width():
    """block's k is its MLP's width: judged in attention's regime, as an attention model."""
    models = known(catalogue.ModelTraits("toy", True, False, False, 32, multi_head=True,
                                         width="mlp"))
    assert not models.has_feature_width("toy") and models.traits("toy").multi_head
    assert list(regimes.ws_mask(grid(), "toy", models)) == [True, True, False]  # n <= d
    assert regimes.ws_regime_text("toy", models) == "n ≤ d"


def test_files_that_disagree_on_a_trait_of_1_10_are_refused():
    a = known(catalogue.ModelTraits("toy", True, False, False, 32, width="mlp"))
    with pytest.raises(catalogue.CatalogueConflict,
                       match="b.h5: /models gives toy attention=1, deep=0, width=none, but it "
                             "is known with attention=1, deep=0, width=mlp"):
        a.with_models([catalogue.ModelTraits("toy", True, False, False, 32)], "b.h5")


def test_a_models_table_before_1_10_gets_the_traits_its_writers_gave():
    """Files 1.7 to 1.9 store four traits: the others are those the writing builds gave their
    models; a model those builds did not have is derived as their readers took it, and named."""
    stored = pd.DataFrame({"model": ["rf", "block", "trained_layer", "toy", "toy_rf"],
                           "attention": [0, 1, 1, 1, 0], "deep": 0,
                           "marginal_sampler": [1, 0, 0, 0, 0],
                           "min_total_sphere_starts": [0, 32, 32, 32, 0]})
    table, unknown = catalogue.with_traits_before_1_10(stored)
    traits = {t.name: t for t in catalogue.from_table(table)}
    assert unknown == ["toy", "toy_rf"]
    assert (traits["rf"].width, traits["rf"].multi_head, traits["rf"].encoder) == \
        ("features", False, False)
    assert (traits["block"].width, traits["block"].multi_head) == ("mlp", True)
    assert traits["trained_layer"].encoder and traits["trained_layer"].width == "none"
    assert traits["toy"].width == "none" and traits["toy_rf"].width == "features"
    assert list(stored.columns) == list(catalogue.COLUMNS[:5])  # the stored table untouched


def test_a_file_before_the_models_table_gets_the_traits_its_models_had(tmp_path):
    tasks, ws, gen = synthetic_tables(ns=(10,), trials=1)
    res = read_results(write_results(tmp_path / "v1_4.h5", tasks, ws, gen, version=(1, 4)))
    assert list(res.models["model"]) == ["rf", "drf", "raf", "raf_relu"]
    assert list(res.models["attention"]) == [False, False, True, True]
    assert list(res.models["deep"]) == [False, True, False, False]
    assert np.array_equal(res.models["min_total_sphere_starts"], [0, 0, 32, 32])
    assert list(res.models["width"]) == [1, 1, 0, 0]  # random features, random features, none
    assert not res.models["multi_head"].any() and not res.models["encoder"].any()
