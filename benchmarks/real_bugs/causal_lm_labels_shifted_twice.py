"""A causal LM trained with the Trainer on rows whose ``labels`` the user shifted one token to
the left (``labels = input_ids[1:] + [-100]``, "the label of position i is the next token"),
while the Hugging Face causal-LM head shifts the labels AGAIN inside ``forward``. Position i is
taught the token two steps ahead. The data here are regular enough that two steps ahead is as
learnable as one, so the loss falls to the same floor as a correct run - and the model,
asked for the next token (what generation does), answers with the one after it.

Reported: "Clarify that causal LM labels are shifted internally" -
https://github.com/huggingface/transformers/pull/44642 (fixing issue #32944: the ``labels``
docstring did not say that causal LM models shift the labels internally, and users who
pre-shift their labels "end up training next-next-token prediction by accident"; the fix:
pass ``labels = input_ids`` and let the model shift). Here: a 2-layer GPT-2 (n_embd 32) from
a config, rows of 12 tokens counting up from a random start by a per-row stride of 1 to 3
(mod 32), AdamW 3e-3, batch 32. Fix: ``labels = input_ids``.

Measured (held-out next-token accuracy, greedy, over the positions after the stride is seen,
on 256 fresh rows): seed 0, 0.00 for the bug against 1.00 for the fixed twin; seeds shifted
by 1000, 0.00 against 1.00.
"""
import torch

from benchmarks.real_bugs._hft145 import train

TITLE = "Clarify that causal LM labels are shifted internally"
LINK = "https://github.com/huggingface/transformers/pull/44642"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
VOCAB, LENGTH = 32, 12


def sequences(count, generator):
    """Rows counting up from a random start by a stride of 1..3 (mod VOCAB)."""
    start = torch.randint(0, VOCAB, (count, 1), generator=generator)
    stride = torch.randint(1, 4, (count, 1), generator=generator)
    return (start + stride * torch.arange(LENGTH)) % VOCAB


def run(fixed=False, steps=STEPS, **watch):
    import transformers
    torch.manual_seed(0)
    seed = int(torch.initial_seed())
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    ids, test_ids = sequences(2048, generator), sequences(256, generator)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=VOCAB, n_positions=LENGTH, n_embd=32, n_layer=2, n_head=2,
        initializer_range=0.1))     # GPT-2's 0.02 is sized for width 768; 0.02*sqrt(768/32)
    if fixed:
        rows = [{"input_ids": row, "labels": row.clone()} for row in ids]
    else:            # "the label is the next token": shifted here, and again in the model
        rows = [{"input_ids": row, "labels": torch.cat([row[1:], torch.tensor([-100])])}
                for row in ids]
    trainer, callback = train(model, steps, rows, watch, arguments=dict(
        learning_rate=3e-3, seed=seed, data_seed=seed))
    model.eval()
    with torch.no_grad():
        predicted = model(test_ids).logits[:, 1:-1].argmax(-1)     # next token after each
    mon = callback.monitor
    mon.held_out_accuracy = (predicted == test_ids[:, 2:]).float().mean().item()
    return mon
