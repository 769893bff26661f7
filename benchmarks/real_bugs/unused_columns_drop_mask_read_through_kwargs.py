"""A custom sequence classifier whose ``forward(input_ids, labels=None, **kwargs)`` takes the
attention mask through ``**kwargs`` (it reads the state at each sequence's last real token,
and falls back to the last position when no mask comes), trained with the Trainer's default
``remove_unused_columns=True``. The Trainer keeps only the batch keys NAMED in ``forward``'s
signature - ``**kwargs`` does not count - so it silently drops ``attention_mask`` from every
batch: the model reads the state after all the padding, and what the last real token said
has to survive 84 to 92 padding steps. Nothing errors (the mask was optional), the loss falls,
and the classifier learns a fraction of what it could.

Reported: "Longformer2Roberta: global_attention_mask is never used" -
https://github.com/huggingface/transformers/issues/7548 (the ``global_attention_mask``
column reached the model's forward only through ``**kwargs``, so the Trainer removed it as
an unused column and the model trained without it; the fix given: add the argument to the
forward signature, or ``remove_unused_columns=False``). Here: token sequences of 4 to 12
real tokens padded to 96 with id 0, the class (one of 4) given by the last real token, an
embedding + GRU classifier, AdamW 3e-3, batch 32. Fix: ``remove_unused_columns=False``
(the mask reaches ``forward``).

Measured (held-out accuracy on 512 fresh sequences, predicted through ``trainer.predict`` as
the user would, so the bug run reads them without the mask as it was trained; chance 0.25):
seed 0, 0.24 for the bug against 1.00 for the fixed twin; seeds shifted by 1000, 0.25
against 1.00 (at 48 positions instead of 96 the GRU learned to carry the token through the
padding at the shifted seeds, 1.00 against 1.00).
"""
import torch

from benchmarks.real_bugs._hft145 import accuracy, rows_of, train

TITLE = "Longformer2Roberta: global_attention_mask is never used"
LINK = "https://github.com/huggingface/transformers/issues/7548"
EXPECTED = ("PADDING_LEAK",)
STEPS = 250
WIDTH, CLASSES, VOCAB = 96, 4, 24


class LastTokenGRU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 16, padding_idx=0)
        self.rnn = torch.nn.GRU(16, 32, batch_first=True)
        self.head = torch.nn.Linear(32, CLASSES)

    def forward(self, input_ids, labels=None, **kwargs):
        states = self.rnn(self.embed(input_ids))[0]
        mask = kwargs.get("attention_mask")
        if mask is None:                      # no mask: every position is real
            mask = torch.ones_like(input_ids)
        last = mask.sum(1) - 1
        logits = self.head(states[torch.arange(len(states)), last])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(logits, labels)
        return out


def sequences(count, generator):
    """(ids, mask, label): random tokens, the last real one 1..4 naming the class."""
    lengths = torch.randint(4, 13, (count,), generator=generator)
    ids = torch.randint(1, VOCAB, (count, WIDTH), generator=generator)
    labels = torch.randint(0, CLASSES, (count,), generator=generator)
    positions = torch.arange(WIDTH)
    mask = (positions < lengths[:, None]).long()
    ids = ids * mask
    ids[torch.arange(count), lengths - 1] = labels + 1
    ids[:, :][(ids <= CLASSES) & (positions < lengths[:, None] - 1) & (ids > 0)] += CLASSES
    return ids, mask, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    ids, mask, labels = sequences(4096, generator)
    test_ids, test_mask, test_labels = sequences(512, generator)
    model = LastTokenGRU()
    rows = rows_of(input_ids=ids, attention_mask=mask, labels=labels)
    trainer, callback = train(model, steps, rows, watch,
                              arguments=dict(learning_rate=3e-3, remove_unused_columns=not fixed))
    # scored as it was trained: through the Trainer (which drops the mask again in the bug)
    predicted = trainer.predict(rows_of(input_ids=test_ids, attention_mask=test_mask,
                                        labels=test_labels)).predictions
    mon = callback.monitor
    mon.held_out_accuracy = accuracy(torch.as_tensor(predicted), test_labels)
    return mon
