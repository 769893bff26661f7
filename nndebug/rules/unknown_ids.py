"""UNKNOWN_ID_DOMINATES_INPUTS: one id is most of the words an embedding reads.

Read from ``run.observed.token_id_shares`` (``nndebug.monitor.token_id_shares``): the
commonest id of each of the first training lookups of an embedding, its share of the ids,
and the share of its occurrences that lie between other tokens (padding that was not
declared sits in runs at a row's start or end: an id found there alone is padding). Natural text has no such token (English's commonest
word is about 6% of running text, its commonest character, the space, about 18%), so an id
that is half the text on every lookup is the ``<unk>`` id: the lookup failed for most
words (a vocabulary built from lower-cased text read with cased words, a vocabulary from
another corpus or tokenizer), and the model trains on one shared vector where they were.
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
    return findings or None
