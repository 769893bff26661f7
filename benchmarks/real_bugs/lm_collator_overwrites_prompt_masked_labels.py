"""Completion-only fine-tuning of a small causal LM through the Trainer: each example's
``labels`` are its ``input_ids`` with the prompt set to -100, so that only the answer is
learned, and the batches are put together by ``DataCollatorForLanguageModeling(mlm=False)``.
That collator does not read the labels it is given: it rebuilds ``labels`` from
``input_ids`` (padding -> -100) and so overwrites the prompt mask. The model is trained to
predict every prompt token too - here random symbols that cannot be predicted - and their
loss swamps the one answer token per example. Nothing errors, the loss falls (to the
prompts' entropy), and the answer is learned far more slowly.

Reported: "DataCollatorForLanguageModeling ignores manual -100 labels for loss masking" -
https://github.com/huggingface/transformers/issues/26357 (a training script masked the part
of each example before the response with -100 labels, "train only after"; printing inside
the collator showed its ``torch_call`` replacing all labels with a copy of ``input_ids``,
so the masked tokens were trained on; the fix there: keep the labels the examples bring -
here ``DataCollatorForSeq2Seq``, which pads the given labels with -100 and keeps them).
Here: prompts of 8 random symbols (30 of them), a separator, and one answer token, the
FIRST prompt symbol; a GRU language model (shifting its labels inside ``forward``), AdamW
3e-3, batch 32, a word-level tokenizer built in code.

Measured (answer accuracy on 512 held-out prompts; chance 1/30 = 0.03): seed 0, 0.25 for
the bug against 1.00 for the fixed twin; seeds shifted by 1000, 0.21 against 1.00. (With
prompts of 24 symbols the fixed twin too failed to carry the first symbol that far in 300
steps.)
"""
import torch
import transformers

from benchmarks.real_bugs._hft145 import rows_of, train

TITLE = "DataCollatorForLanguageModeling ignores manual -100 labels for loss masking"
LINK = "https://github.com/huggingface/transformers/issues/26357"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS",)
STEPS = 300
PAD, SEP, FIRST, SYMBOLS, PROMPT = 0, 1, 2, 30, 8


def word_tokenizer():
    """A word-level fast tokenizer over the symbols (no download)."""
    import tokenizers
    vocab = {"[PAD]": PAD, "[SEP]": SEP, **{f"s{i}": FIRST + i for i in range(SYMBOLS)}}
    core = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[PAD]"))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=core, pad_token="[PAD]")


class GRULM(torch.nn.Module):
    """A causal LM that shifts its labels itself (-100: not scored)."""

    def __init__(self, vocab=FIRST + SYMBOLS, width=96):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, 32)
        self.rnn = torch.nn.GRU(32, width, batch_first=True)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.head(self.rnn(self.embed(input_ids))[0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(
                logits[:, :-1].transpose(1, 2), labels[:, 1:], ignore_index=-100)
        return out


def examples(count, generator):
    """prompt (8 symbols), [SEP], answer (the first prompt symbol); labels mask the prompt."""
    prompt = torch.randint(FIRST, FIRST + SYMBOLS, (count, PROMPT), generator=generator)
    ids = torch.cat([prompt, torch.full((count, 1), SEP), prompt[:, :1]], dim=1)
    labels = torch.full_like(ids, -100)
    labels[:, -1] = ids[:, -1]
    return ids, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31, ()).item()))
    ids, labels = examples(4096, generator)
    test_ids, _ = examples(512, generator)
    tokenizer = word_tokenizer()
    if fixed:       # keeps the labels each example brings
        collator = transformers.DataCollatorForSeq2Seq(tokenizer)
    else:           # BUG: labels rebuilt from input_ids, the prompt mask overwritten
        collator = transformers.DataCollatorForLanguageModeling(tokenizer, mlm=False)
    model = GRULM()
    rows = [{"input_ids": i.tolist(), "labels": l.tolist()} for i, l in zip(ids, labels)]
    trainer, callback = train(model, steps, rows, watch, data_collator=collator,
                              arguments=dict(learning_rate=3e-3))
    model.eval()
    with torch.no_grad():
        answer = model(test_ids[:, :-1])["logits"][:, -1].argmax(-1)
    mon = callback.monitor
    mon.held_out_answer_accuracy = (answer == test_ids[:, -1]).float().mean().item()
    return mon
