"""ATTENTION_CROSSES_DOCUMENTS: documents packed into one row, their position ids restarting
at each document, read the documents packed before them
(``run.observed.cross_document_reads``, ``monitor/document_boundaries.py``).

Restarted position ids declare the documents separate, but only the attention mask keeps
them apart. With a mask causal over the whole row every document reads the ones before
it: related or repeated documents are copied from, the training loss looks better than
the model is, and it has learnt to lean on a context it never has when it meets one
document alone.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="ATTENTION_CROSSES_DOCUMENTS")
def attention_crosses_documents(ctx):
    rows = observed_list(ctx, "cross_document_reads")
    if not rows:
        return None
    step, packed, crossed, change = rows[0]
    return Finding(
        code="ATTENTION_CROSSES_DOCUMENTS", severity="warning", where="model", step=step,
        message=f"Rows hold several documents (their position ids restart at 0 inside the "
                f"row), yet the outputs of a later document moved when only the document "
                f"before it was changed ({crossed} of {packed} packed rows, largest change "
                f"{change:.1e} of the output's scale): attention crosses the document "
                "boundaries, so each document reads - and can copy from - the ones packed "
                "before it.",
        evidence={"packed_rows": packed, "rows_reading_across": crossed,
                  "relative_change": change, "step": step},
        fix="Mask attention within each document: a block-diagonal causal mask built from "
            "where the position ids restart (document = (position_ids == 0).cumsum(1); "
            "allowed where the two positions share a document and key <= query), or "
            "varlen/flash attention with the documents' boundaries.")
