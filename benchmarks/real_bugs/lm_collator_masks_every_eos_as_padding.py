"""A small causal LM fine-tuned with the Trainer and ``DataCollatorForLanguageModeling(mlm=False)``
after the usual ``tokenizer.pad_token = tokenizer.eos_token`` (the tokenizer has no pad
token). The collator builds the labels from ``input_ids`` and sets every position equal to
``pad_token_id`` to -100 - which, with pad == eos, is also each sequence's REAL end-of-text
token. The model is never once asked to predict EOS: the loss falls as usual, every other
token is learned, and the model never learns where to stop (generation runs on forever).

Reported: "Incorrect handling of EOS tokens in DataCollatorForLanguageModeling when pad_token
is set to eos_token" - https://github.com/huggingface/transformers/issues/23530 (all EOS
tokens in the labels are overwritten with -100, not only the padding; the model does not
learn to produce EOS. Fixes given: a pad token distinct from EOS, or building the labels
yourself and padding them with -100 only past each sequence's end). Here: sequences
``t<L> x1 .. xL <eos>`` (the first token says how many content tokens follow, L in 2..8;
the content is random), a 2-layer GPT-2 (n_embd 32) from a config, AdamW 3e-3, batch 32,
dynamic padding with the EOS id (``initializer_range`` 0.1: GPT-2's 0.02 is sized for width
768, and at width 32 nndebug names it INIT_SCALE_TOO_SMALL on both runs). Fix: labels are the input ids given per row, padded with
-100 by ``DataCollatorForSeq2Seq`` (the real EOS keeps its label).

Measured (held-out: 512 fresh sequences, the share where the model's top prediction right
after the last content token is EOS - i.e. it stops where it should): seed 0, 0.00 for the
bug against 1.00 for the fixed twin; seeds shifted by 1000, 0.00 against 1.00.
"""
import torch

from benchmarks.real_bugs._hft145 import train
from benchmarks.real_bugs._hft149 import word_tokenizer

TITLE = ("Incorrect handling of EOS tokens in DataCollatorForLanguageModeling when pad_token "
         "is set to eos_token")
LINK = "https://github.com/huggingface/transformers/issues/23530"
EXPECTED = ("TARGET_TOKEN_NEVER_SUPERVISED",)
STEPS = 200
CONTENT = 20          # content words c0..c19
LENGTHS = range(2, 9)


def tokenizer():
    return word_tokenizer([f"n{n}" for n in LENGTHS] + [f"c{i}" for i in range(CONTENT)])


def sequences(count, tok, generator):
    """Token id lists ``n<L> c.. c.. <eos>``."""
    out = []
    lengths = torch.randint(LENGTHS.start, LENGTHS.stop, (count,), generator=generator)
    for length in lengths.tolist():
        words = [f"n{length}"] + [f"c{i}" for i in
                                  torch.randint(0, CONTENT, (length,), generator=generator).tolist()]
        out.append(tok(" ".join(words))["input_ids"] + [tok.eos_token_id])
    return out


def run(fixed=False, steps=STEPS, **watch):
    import transformers
    torch.manual_seed(0)
    seed = int(torch.initial_seed())
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    tok = tokenizer()
    tok.pad_token = tok.eos_token                     # the usual line: no pad token of its own
    train_ids = sequences(2048, tok, generator)
    test_ids = sequences(512, tok, generator)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=len(tok), n_positions=16, n_embd=32, n_layer=2, n_head=2,
        eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id,
        pad_token_id=tok.eos_token_id,
        initializer_range=0.1))     # GPT-2's 0.02 is sized for width 768; 0.02*sqrt(768/32)
    if fixed:      # labels given per row; padded with -100 only past each row's end
        rows = [{"input_ids": ids, "labels": list(ids)} for ids in train_ids]
        collator = transformers.DataCollatorForSeq2Seq(tok, padding=True)
    else:          # labels made by the collator: every eos (== pad) becomes -100
        rows = [{"input_ids": ids} for ids in train_ids]
        collator = transformers.DataCollatorForLanguageModeling(tok, mlm=False)
    trainer, callback = train(model, steps, rows, watch, data_collator=collator,
                              arguments=dict(learning_rate=3e-3, seed=seed, data_seed=seed))
    model.eval()
    stops = 0
    with torch.no_grad():
        for ids in test_ids:
            logits = model(torch.tensor([ids[:-1]])).logits[0, -1]
            stops += int(logits.argmax().item() == tok.eos_token_id)
    mon = callback.monitor
    mon.held_out_stop_accuracy = stops / len(test_ids)
    return mon
