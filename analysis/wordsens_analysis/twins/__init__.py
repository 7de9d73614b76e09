"""The twins: what the analysis holds of each model beyond what a results file says of it, in numpy
(code that shares nothing with the C++ maps). The lowest wing: it imports no other.

    model_pieces    each model's style and numpy twin (φ from the weights stored with a witness)
    witness_check   a witness's S (and rf's bound) recomputed from its stored arrays
    relu_floor      the floor under row-normalised ReLU attention

The other wings take from here only what __all__ names.
"""
from . import model_pieces, relu_floor, witness_check
from .model_pieces import PIECES, UNKNOWN_STYLE, ModelPieces, attention, style
from .witness_check import CHECK_COLUMNS, check_witnesses, perturbed

__all__ = ["model_pieces", "relu_floor", "witness_check", "PIECES", "UNKNOWN_STYLE",
           "ModelPieces", "attention", "style", "CHECK_COLUMNS", "check_witnesses", "perturbed"]
