"""A causal language model of its user's own (a plain ``nn.Module`` that shifts its labels
inside ``forward``, as Hugging Face causal LMs do) fine-tuned with the Trainer and
``label_smoothing_factor=0.1``. With label smoothing on, the Trainer pops the labels out of
the batch and scores the model's logits itself with its ``LabelSmoother``; that smoother
shifts the labels only for the model classes it knows to be causal LMs (the names in
``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``). For any other class it compares the logits at
position t with the token AT position t, which the model has just read: it learns to copy
its input. The loss falls to the smoothing floor, nothing errors, and the model cannot
predict the next token at all.

Reported: "Suggestion for introducing \"shift_labels\" argument for Trainer" -
https://github.com/huggingface/transformers/issues/17960 (training GPT2LMHeadModel with
``label_smoothing_factor > 0`` computes the loss in the Trainer's ``compute_loss`` on
unshifted labels, "misalignment of labels and corresponding input_ids", while without
smoothing the model shifts them itself; fixed in
https://github.com/huggingface/transformers/pull/17987 by shifting the labels for causal LM
classes, which still leaves a causal LM the Trainer does not know by name unshifted).
Here: a character-level GRU language model on the sonnets (benchmarks/real_bugs/_common.py),
windows of 33 characters with ``labels = input_ids``, AdamW 3e-3, batch 32, smoothing 0.1.
Fix: shift the labels for this causal model too (a ``compute_loss`` that calls the label
smoother with ``shift_labels=True``, what the Trainer does for the classes it knows).

Measured (next-character accuracy on the held-out last tenth of the sonnets, 64 windows of
32): seed 0, 0.02 for the bug against 0.34 for the fixed twin; seeds shifted by 1000, 0.01
against 0.36. The bug run's mean training loss is 0.99 (the copy task), the twin's 2.5.
The model's ``forward`` never sees the labels (the Trainer popped them to smooth), so it
returns no ``loss``: ``NNDebugCallback`` reads the loss from ``forward``'s output and
records none of the 300 steps, in the bug run and in the twin alike.
"""
import torch
import transformers

from benchmarks.real_bugs._common import characters
from benchmarks.real_bugs._hft145 import rows_of, train

TITLE = 'Suggestion for introducing "shift_labels" argument for Trainer'
LINK = "https://github.com/huggingface/transformers/issues/17960"
EXPECTED = ("LABELS_MISALIGNED", "TARGETS_IN_INPUTS")
STEPS = 300
LENGTH = 32


class CharGRU(torch.nn.Module):
    """A causal LM that shifts its labels itself when it is given them (with a ``config``,
    which the Trainer reads when it smooths labels)."""

    def __init__(self, vocab, width=64):
        super().__init__()
        self.config = transformers.PretrainedConfig()
        self.embed = torch.nn.Embedding(vocab, 32)
        self.rnn = torch.nn.GRU(32, width, batch_first=True)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, input_ids, labels=None):
        logits = self.head(self.rnn(self.embed(input_ids))[0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(
                logits[:, :-1].transpose(1, 2), labels[:, 1:])
        return out


class ShiftingTrainer(transformers.Trainer):
    """The fix: smoothed loss on labels shifted by one, as for the causal LMs it knows."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = self.label_smoother(outputs, labels, shift_labels=True)
        return (loss, outputs) if return_outputs else loss


def windows(ids, count, generator):
    starts = torch.randint(0, len(ids) - LENGTH - 1, (count,), generator=generator)
    return torch.stack([ids[s:s + LENGTH + 1] for s in starts.tolist()])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    cut = int(0.9 * len(ids))
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    train_windows = windows(ids[:cut], 4096, generator)
    held_out = windows(ids[cut:], 64, generator)
    model = CharGRU(vocab)
    rows = rows_of(input_ids=train_windows, labels=train_windows.clone())
    trainer, callback = train(
        model, steps, rows, watch, trainer_class=ShiftingTrainer if fixed else None,
        arguments=dict(label_smoothing_factor=0.1, learning_rate=3e-3))
    model.eval()
    with torch.no_grad():
        logits = model(held_out[:, :-1])["logits"]
    mon = callback.monitor
    mon.held_out_next_char_accuracy = (logits.argmax(-1) == held_out[:, 1:]).float().mean().item()
    return mon
