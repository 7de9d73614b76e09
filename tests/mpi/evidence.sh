# Every record of the reference study (every model, ws and gen) carries its evidence:
# certified against a recomputation from scratch, consistent search diagnostics, the budget check
# on trial 0, and a certified upper bound for the models that admit one (check_evidence.py).
source "$(dirname "$0")/lib.sh" "$@"
"$PY" "$HERE/check_evidence.py" "$REF/tiny.h5" || fail "records without their evidence"
