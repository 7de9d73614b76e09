"""Reading: a results file into tables, and the files of a report into studies. Above the twins
(a study's witnesses are recomputed as it is built), beside the rules (neither imports the other),
below the claims.

    schema            every HDF5 name of the format (analysis/FORMAT.md), in one place
    catalogue         the traits of the models the files read record in /models
    stored_config     a file's configuration as typed values
    format_minors     the decoders of the older format minors, one per minor
    record_invariants the invariants of a record, as `wordsens info --check` checks them
    damage            the damage rules of a results file
    reader            read_results: one file into pandas tables (Results)
    studies           the files of a report grouped into studies (one file is one study)

The other wings take from here only what __all__ names.
"""
from . import (catalogue, damage, format_minors, reader, record_invariants, schema, stored_config,
               studies)
from .catalogue import Catalogue, CatalogueConflict, ModelTraits
from .reader import (NOT_REPAIRS, DamagedFileError, Results, ResultsFileError, Witness,
                     read_results)
from .studies import (POLICY, SERIES, TRIAL_STRIDE, Study, build_studies, catalogue_of,
                      combined_frames, provenance_table, shared_points, study_table, texts_key)

__all__ = ["catalogue", "damage", "format_minors", "reader", "record_invariants", "schema",
           "stored_config", "studies", "Catalogue", "CatalogueConflict", "ModelTraits", "NOT_REPAIRS",
           "DamagedFileError", "Results", "ResultsFileError", "Witness", "read_results", "POLICY",
           "SERIES", "TRIAL_STRIDE", "Study", "build_studies", "catalogue_of", "combined_frames",
           "provenance_table", "shared_points", "study_table", "texts_key"]
