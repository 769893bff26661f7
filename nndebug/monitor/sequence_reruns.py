"""The checks that run a token model's first training call again with its ids edited, once,
when findings are asked for: ``order_blind_attention.py`` (POSITIONS_IGNORED for an
attention model with no positional tensor) and ``document_boundaries.py``
(ATTENTION_CROSSES_DOCUMENTS). One kept call (``token_reruns.py``) serves both.

Cost: a pre-hook on the model until its first training call over token ids (removed at the
next recorded step), then nothing during training; at findings, for a torch model with a
token embedding, a host copy of that call's integer inputs, and - only when a check
applies (an attention model without positional tensors; position ids that restart inside
a row) - one private float64 copy of the model and two forward passes.
"""
from .document_boundaries import read_cross_document
from .order_blind_attention import read_order_blindness, worth_checking
from .token_id_shares import token_embeddings
from .token_reruns import FirstTokenCall


class SequenceReruns:
    def __init__(self, adapter, observed, current_step, on_error):
        self.observed, self.on_error = observed, on_error
        self.done = False
        wanted = adapter.framework == "torch" and bool(token_embeddings(adapter))
        self.order_check = False
        if wanted:
            try:
                self.order_check = worth_checking(adapter)
            except Exception as error:     # a model whose tensors cannot be read
                on_error(error)
        self.call = FirstTokenCall(adapter, wanted, current_step, on_error)

    def arm(self, step):
        """A recorded step starts: the pre-hook goes once it kept a call."""
        self.call.release()

    def read(self):
        """Run the checks that apply on the kept call (once per run)."""
        if self.done or self.call.where is None:
            return
        self.done = True
        if self.order_check:
            read_order_blindness(self.call, self.call.step, self.observed, self.on_error)
        read_cross_document(self.call, self.call.step, self.observed, self.on_error)
        self.call.forget()

    def close(self):
        self.call.close()
