"""INPUT_FEATURES_DUPLICATED: some input features are exact copies of others in every row
of the first training batches, so what they were meant to carry never reaches the model.

A feature line copied from the one above and not fully edited is the usual cause: the
seasonal encodings of a forecaster where the day and month lines still read the hour, a
second lag built with the first one's shift, a column picked twice under a wrong name.
Training runs on, the loss falls, and the model simply lacks the information (the weekly
and yearly pattern, here). Public report: "Wrong time stamp in preprocessing?",
https://github.com/natashaklingenbrunn/Transformer-Time-Series-Forecasting/issues/2
("Stumbled upon these identical lines in your preprocessing ... I assume they should have
.day and .month instead of .hour?"; the author: "Absolutely, you caught a bug I oversaw").

The same mistake one level up: the model given one tensor twice, ``model(q1, q1)`` where
``model(q1, q2)`` was meant (a pair's second text tokenised from the first, real-bug batch
314; token types collated from the input ids, batch 315). Read from
``run.observed.duplicated_arguments`` (``monitor/first_training_inputs.py``): positional
integer arguments equal element for element, with several distinct values (two masks agree
by design), in every one of the first training forwards (at least DUPLICATE_MIN_BATCHES).

Read from ``run.observed.duplicated_input_columns`` (``monitor/duplicated_input_columns
.py``): columns that take several values, none in most rows, and equal another column to
the last bit in every row, in each of the kept batches (at least DUPLICATE_MIN_BATCHES of
them). Flags, one-hot columns, sparse columns and constants are not compared, and a window
of an exactly periodic series (every column equal to the one a period on) is not reported.

A warning when a block of consecutive columns repeats another block in order (what one
feature line makes several of: a sine and cosine pair, the columns of an encoding, a block
of lags); a lone column equal to another is info: a raw table can hold two fields that
happen to agree over the data (a stock's close and its adjusted close where nothing was
adjusted), which costs nothing.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DUPLICATE_MIN_BATCHES = 2    # [design] kept batches that must all show the same copies: a
                             # chance equality of two varied columns does not survive a
                             # second batch of other rows


def _pairs(groups):
    """{(original, copy)} of one batch's groups of equal columns."""
    return {(group[0], c) for group in groups for c in group[1:]}


def copied_columns(rows):
    """(rows read, features, [[column, copies...]]) when the same columns are copies in every
    measured batch (at least DUPLICATE_MIN_BATCHES); else None."""
    measured = [r for r in rows if r[3] >= 2]
    if len(measured) < DUPLICATE_MIN_BATCHES:
        return None
    common = _pairs(measured[0][4])
    for row in measured[1:]:
        common &= _pairs(row[4])
    if not common:
        return None
    groups = [[g[0]] + [c for c in g[1:] if (g[0], c) in common]
              for g in measured[0][4]]
    groups = [g for g in groups if len(g) > 1]
    return sum(r[1] for r in measured), measured[0][2], groups


def _copied_blocks(groups):
    """Whether some copied column sits next to another copied column whose original sits next
    to its own original: a block of consecutive columns repeated in order."""
    pairs = _pairs(groups)
    return any((a + 1, b + 1) in pairs for a, b in pairs)


def _describe(groups):
    return "; ".join(f"column{'s' if len(g) > 2 else ''} "
                     f"{', '.join(str(c) for c in g[1:])} = column {g[0]}" for g in groups)


def arguments_given_twice(rows):
    """[[i, j], ...]: positional id arguments equal in every first training forward that
    compared any (at least DUPLICATE_MIN_BATCHES of them); [] otherwise."""
    measured = [row for row in rows if row[1] > 0]
    if len(measured) < DUPLICATE_MIN_BATCHES:
        return []
    common = {tuple(pair) for pair in measured[0][2]}
    for row in measured[1:]:
        common &= {tuple(pair) for pair in row[2]}
    return sorted(list(pair) for pair in common)


def _argument_finding(pairs, forwards):
    first, second = pairs[0]
    return Finding(
        code="INPUT_FEATURES_DUPLICATED", severity="warning", where="inputs", step=None,
        message=f"The model's arguments {first} and {second} (counted from 0) hold the same "
                f"token ids, element for element, in every one of its first {forwards} "
                "training forwards, though they take many values: one tensor is given twice "
                "where two were meant (a second text tokenised from the first, token types "
                "collated from the input ids), and what the second was to carry never "
                "reaches the model.",
        evidence={"arguments": pairs, "forwards": forwards,
                  "meaning": "model(*args): args[i] and args[j] equal in every forward read"},
        fix="Check how each argument is built: each should come from its own field (the "
            "second question's text, the speaker ids), not a copy of the first.")


@rule(produces="INPUT_FEATURES_DUPLICATED")
def input_features_duplicated(ctx):
    arguments = observed_list(ctx, "duplicated_arguments")
    pairs = arguments_given_twice(arguments)
    if pairs:
        return _argument_finding(pairs, sum(1 for row in arguments if row[1] > 0))
    found = copied_columns(observed_list(ctx, "duplicated_input_columns"))
    if found is None:
        return None
    rows, features, groups = found
    copies = sum(len(g) - 1 for g in groups)
    block = _copied_blocks(groups)
    return Finding(
        code="INPUT_FEATURES_DUPLICATED", severity="warning" if block else "info",
        where="inputs", step=None,
        message=f"{copies} of the {features} input features are exact copies of other "
                f"features in every one of the {rows} rows of the first training batches "
                f"({_describe(groups)}), though each takes several values: they were computed "
                "from the same source, as when a feature line is copied and not edited (a "
                "day-of-week or month encoding still reading the hour). What those "
                "features were meant to carry never reaches the model."
                + ("" if block else " (A lone column equal to another can also be two raw "
                   "fields that agree over this data, such as a close and an adjusted close "
                   "with nothing adjusted: harmless then.)"),
        evidence={"rows": rows, "features": features, "copied_columns": groups,
                  "copied_block": block},
        fix="Check how the copied features are built: each should read its own source "
            "(e.g. timestamp.dayofweek and .month for the day and month encodings, not "
            ".hour); drop a column that is meant to be a duplicate.")
