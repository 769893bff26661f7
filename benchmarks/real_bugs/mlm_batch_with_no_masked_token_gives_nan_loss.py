"""A small BERT pre-trained with the Trainer on short sentences, one sentence per batch, with
``DataCollatorForLanguageModeling(mlm_probability=0.15)``. The collator draws which tokens to
mask independently per token, so a short sentence often gets NO masked token: every label is
-100, the masked-LM loss is a mean over zero tokens - NaN - and its NaN gradient, stepped by
the optimizer (through the Trainer's clipping), turns the weights into NaN. Nothing raises;
the run goes on to its last step and the model it saves predicts nothing.

Reported: "AutoModelForMaskedLM produces NaN if no token is masked" -
https://github.com/huggingface/transformers/issues/16711 (MLM pre-training with one example
per batch on short texts: the collator sometimes masks nothing and the loss is NaN, which
then spreads through training; the reporter fixed it locally, and PR #16522 "avoid nan loss
in masked lm" proposed guarding the loss against an empty mask). Here: sentences of 3 to 5
words counting up from a random word (``[CLS] w7 w8 w9 [SEP]``, 24 words), a 2-layer BERT
(hidden 32, ``initializer_range`` 0.1: BERT's 0.02 is sized for width 768) from a config,
batch 1, AdamW 3e-3. Fix: a collator that masks one real token in any row where the draw
masked none (every batch then has a loss).

Measured (held-out: 256 fresh sentences with one middle word masked, the share predicted
right, chance 1 in 24): seed 0, 0.04 for the bug against 0.26 for the fixed twin; seeds
shifted by 1000, 0.06 against 0.15 (the twin is still learning at 1,500 single-sentence
steps; the bug's loss is NaN from the first empty draw, step 1 at seed 0).
"""
import torch

from benchmarks.real_bugs._hft145 import train
from benchmarks.real_bugs._hft149 import word_tokenizer

TITLE = "AutoModelForMaskedLM produces NaN if no token is masked"
LINK = "https://github.com/huggingface/transformers/issues/16711"
EXPECTED = ("NAN_LOSS",)
STEPS = 1500
WORDS = 24


def tokenizer():
    return word_tokenizer([f"w{i}" for i in range(WORDS)], pad_token="[PAD]",
                          mask_token="[MASK]", cls_token="[CLS]", sep_token="[SEP]")


def sentences(count, tok, generator):
    """Token id lists ``[CLS] w<a> w<a+1> .. [SEP]`` of 3 to 5 words."""
    out = []
    for _ in range(count):
        length = int(torch.randint(3, 6, (), generator=generator))
        start = int(torch.randint(0, WORDS - length + 1, (), generator=generator))
        words = " ".join(f"w{start + i}" for i in range(length))
        out.append(tok(f"[CLS] {words} [SEP]")["input_ids"])
    return out


def at_least_one_mask(collator_class):
    """The collator, but a row whose draw masked nothing gets one real token masked."""
    class Guarded(collator_class):
        def torch_call(self, examples):
            batch = super().torch_call(examples)
            for row in range(len(batch["labels"])):
                if (batch["labels"][row] != -100).any():
                    continue
                real = [i for i, t in enumerate(batch["input_ids"][row].tolist())
                        if t not in self.tokenizer.all_special_ids]
                pick = real[int(torch.randint(0, len(real), ()))]
                batch["labels"][row, pick] = batch["input_ids"][row, pick]
                batch["input_ids"][row, pick] = self.tokenizer.mask_token_id
            return batch
    return Guarded


def run(fixed=False, steps=STEPS, **watch):
    import transformers
    torch.manual_seed(0)
    seed = int(torch.initial_seed())
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    tok = tokenizer()
    train_ids, test_ids = sentences(2000, tok, generator), sentences(256, tok, generator)
    model = transformers.BertForMaskedLM(transformers.BertConfig(
        vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=16, pad_token_id=tok.pad_token_id,
        initializer_range=0.1))     # BERT's 0.02 is sized for width 768; 0.02*sqrt(768/32)
    collator_class = transformers.DataCollatorForLanguageModeling
    if fixed:
        collator_class = at_least_one_mask(collator_class)
    collator = collator_class(tok, mlm_probability=0.15)
    rows = [{"input_ids": ids} for ids in train_ids]
    trainer, callback = train(model, steps, rows, watch, data_collator=collator,
                              arguments=dict(per_device_train_batch_size=1, learning_rate=3e-3, seed=seed,
                                             data_seed=seed))
    model.eval()
    right = 0
    with torch.no_grad():
        for ids in test_ids:
            middle = len(ids) // 2
            masked = torch.tensor([ids])
            masked[0, middle] = tok.mask_token_id
            right += int(model(input_ids=masked).logits[0, middle].argmax().item() == ids[middle])
    mon = callback.monitor
    mon.held_out_accuracy = right / len(test_ids)
    return mon
