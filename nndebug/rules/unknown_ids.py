"""UNKNOWN_ID_DOMINATES_INPUTS: one id is most of the words an embedding reads.

Read from ``run.observed.token_id_shares`` (``nndebug.monitor.token_id_shares``): the
commonest id of each of the first training lookups of an embedding, its share of the ids,
and the share of its occurrences that lie between other tokens (padding that was not
declared sits in runs at a row's start or end: an id found there alone is padding). Natural text has no such token (English's commonest
word is about 6% of running text, its commonest character, the space, about 18%), so an id
that is half the text on every lookup is the ``<unk>`` id: the lookup failed for most
words (a vocabulary built from lower-cased text read with cased words, a vocabulary from
another corpus or tokenizer), and the model trains on one shared vector where they were.

A categorical column's embedding (real-bug batch 273) reads one id per example, read from
``run.observed.category_id_shares``: when EVERY id of every first lookup is one and the same,
the column reaches the model as one vector - its values all failed the lookup (a vocabulary
built from the CSV's " Male" looked up with "Male": every value the out-of-vocabulary
index) - and the model learns from the other columns alone.
"""
from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

UNKNOWN_SHARE_MIN = 0.5   # [measured] half the running text: the benchmark's healthy text
                          # runs reach 0.16 (the space), the lower-cased-vocabulary case 0.72;
                          # English's commonest word is ~6%, its commonest character ~18%
UNKNOWN_INNER_MIN = 0.25  # [design] padding lies at the rows' ends (0 here); an unknown id
                          # falls anywhere (about (L - 2) / L of it inside rows of L tokens)
UNKNOWN_LOOKUPS_MIN = 2   # [design] lookups that must all show it (not one odd batch)
CATEGORY_SHARE_MIN = 1.0  # [design] every id of the lookup: a column of several values is
                          # never one value over a batch of 16+ rows, while a dominant real
                          # category stays below (Adult's native-country: 91% United-States)


@rule(produces="UNKNOWN_ID_DOMINATES_INPUTS",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def unknown_id_dominates_inputs(ctx):
    rows = observed_list(ctx, "token_id_shares")   # the first lookups, not tied to records
    by_layer = {}
    for row in rows:
        by_layer.setdefault(row[1], []).append(row)
    findings = []
    for layer, seen in by_layer.items():
        ids = {row[2] for row in seen}
        if len(seen) < UNKNOWN_LOOKUPS_MIN or len(ids) != 1 or \
                min(row[3] for row in seen) < UNKNOWN_SHARE_MIN or \
                min(row[4] for row in seen) < UNKNOWN_INNER_MIN:
            continue
        common = ids.pop()
        share = sum(row[3] * row[5] for row in seen) / sum(row[5] for row in seen)
        findings.append(Finding(
            code="UNKNOWN_ID_DOMINATES_INPUTS", severity="warning", where=layer,
            step=seen[0][0],
            message=f"{fmt(100 * share)}% of the tokens {layer} is given are one id, "
                    f"{common}, on every lookup seen, and it stands between other tokens, "
                    "not in the padding at the rows' ends. No word or character is that common in text: this is the unknown "
                    "id, and most words reach the model as that one vector.",
            evidence={"id": common, "share": share, "lookups": len(seen),
                      "inside_rows": min(row[4] for row in seen),
                      "tokens": sum(row[5] for row in seen)},
            fix="Look the inputs up the way the vocabulary was built: the same lower-casing "
                "and normalisation, the same tokenizer, one vocabulary for every split; "
                "count the unknown ids of a batch."))
    findings += _one_id_per_categorical_column(ctx)
    return findings or None


def _one_id_per_categorical_column(ctx):
    """Findings for the categorical columns whose first lookups are all one id (batch 273)."""
    by_layer = {}
    for row in observed_list(ctx, "category_id_shares"):
        by_layer.setdefault(row[1], []).append(row)
    findings = []
    for layer, seen in by_layer.items():
        ids = {row[2] for row in seen}
        if len(seen) < UNKNOWN_LOOKUPS_MIN or len(ids) != 1 or \
                min(row[3] for row in seen) < CATEGORY_SHARE_MIN:
            continue
        common, rows = ids.pop(), seen[0][5]
        counted = sum(row[4] for row in seen)
        findings.append(Finding(
            code="UNKNOWN_ID_DOMINATES_INPUTS", severity="warning", where=layer,
            step=seen[0][0],
            message=f"Every id {layer} was given on its first {len(seen)} training lookups "
                    f"({counted} examples, one id each) is {common}, in a table of {rows} "
                    "rows: the column reaches the model as one vector. Its values all "
                    "failed the lookup (a vocabulary built from strings written differently "
                    "from the data's - ' Male' against 'Male' - sends every value to the "
                    "unknown index) or its codes collapsed before it (scaled, truncated), and "
                    "the model learns from the other inputs alone.",
            evidence={"id": common, "share": 1.0, "lookups": len(seen), "ids": counted,
                      "table_rows": rows},
            fix="Look the values up as the vocabulary was built (strip and normalise the "
                "strings on both sides, one encoder fitted on the training data) and count "
                "the ids of a batch: a column of several values is never one id."))
    return findings
