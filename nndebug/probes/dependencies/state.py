"""STATE_CARRIED_ACROSS_BATCHES: the same batch, fed twice, gives two different answers.

Every probing call replays the RNGs (the framework's, NumPy's and Python's) to one seeded
state, so dropout and any other randomness repeat exactly, and the probes run on a private
copy in eval mode. Two calls on the same rows that still disagree read something the first
call left behind: a forward that keeps its state between calls (``self.state = (h, c)``,
the next batch starting from it). Over shuffled batches each batch then starts from an
unrelated batch's state, and a sample's prediction depends on what was drawn before it.

Truncated backpropagation through time over *contiguous* batches carries state on
purpose; PyTorch's word-language-model example hands it back through forward's arguments
(the same inputs give the same outputs, and this stays silent), while a model that keeps it
in an attribute is named here, with the reason to check which it is.
"""
from ...findings import Finding

STATE_KEPT = ("the model gives different outputs for the same inputs with the same random "
              "numbers: forward keeps state between calls")


def state_carried(change):
    """The finding for two replayed calls on the same rows whose outputs differ by
    ``change`` (relative to the output's largest magnitude)."""
    return Finding(
        code="STATE_CARRIED_ACROSS_BATCHES", severity="warning", where="", step=None,
        message=f"The same batch, fed twice with the same random numbers, gave different "
                f"outputs (relative change {change:.2g}): forward keeps state from one call to "
                "the next (a recurrent state stored on the module, a cache, a running "
                "value), so each batch starts from the previous batch's state. Over shuffled "
                "batches that state belongs to unrelated samples, and a prediction depends on "
                "what was drawn before it.",
        evidence={"relative_change": float(change)},
        fix="Start each batch from a fresh state (e.g. hidden=None, or zeros per batch); "
            "carry it only across batches that continue the same sequences (truncated BPTT "
            "over contiguous data), and pass it through forward's arguments so that the "
            "loop, not the module, decides.")
