"""Pieces the batch-149 cases share, on top of :mod:`benchmarks.real_bugs._hft145` (the quiet
Trainer, ``rows_of``, ``accuracy``): a word-level tokenizer built from code (no download) for
the cases that need a real ``PreTrainedTokenizerFast`` in a Hugging Face data collator.

Dropped from the batch (no harm at this scale):
- "Resizing embedding matrix before sending it to the optimizer." -
  https://github.com/huggingface/transformers/pull/3519 (an optimizer built before
  ``resize_token_embeddings``): transformers 5.25 resizes the embedding IN PLACE (the same
  ``Parameter`` object, tied head included), so the optimizer built before still updates it;
  a 2-layer GPT-2 resized from 24 to 32 tokens reached 0.98 held-out next-token accuracy
  either way.
- "Should `get_linear_schedule_with_warmup` consider `gradient_accumulation_steps`?" -
  https://github.com/huggingface/accelerate/issues/225 (a warmup + decay schedule sized in
  micro-batches passed to a Trainer accumulating 8 of them: 8x too long). Digits MLP, AdamW:
  held-out accuracy 0.78 vs 0.78 (40 steps, peak 3e-3), 0.94 vs 0.94 (100 steps, 1e-2), and
  0.97 vs 0.96 / 0.95 vs 0.98 (150 steps, 3e-2, seeds 0 / 1000) - no consistent harm.
"""


def word_tokenizer(words, eos="<eos>", unk="<unk>", **specials):
    """A ``PreTrainedTokenizerFast`` over ``[eos, unk] + specials + words`` (ids 0, 1, ...),
    split on whitespace. ``specials``: more special tokens by role, e.g. ``mask_token="[MASK]"``
    (given to the tokenizer under that role)."""
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {eos: 0, unk: 1}
    for word in list(specials.values()) + list(words):
        vocab[word] = len(vocab)
    core = Tokenizer(models.WordLevel(vocab, unk_token=unk))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=core, eos_token=eos,
                                                unk_token=unk, **specials)
