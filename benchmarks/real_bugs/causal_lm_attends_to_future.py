"""A causal language model in the Hugging Face style (called with keywords,
``model(input_ids=ids, labels=ids)``, the labels shifted inside forward) whose attention is
not causal: each position sees the tokens after it, so its label is visible and the
training loss collapses toward 0.

Reported: "`RoFormerForCausalLM`, `BigBirdForCausalLM`, `RemBertForCausalLM`,
`MegatronBertForCausalLM` attend to future tokens since v5.9.0 - CLM training loss
collapses" - https://github.com/huggingface/transformers/issues/48745 ("the loss fell to
almost zero within a few hundred steps on random tokens. The decoder is not causal: each
position sees the tokens after it, so its label is visible"). Here a 2-layer decoder on
32 characters of the sonnets whose config says is_decoder but whose attention forgets the
causal mask. Fix: the causal mask in every layer.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = ("`RoFormerForCausalLM`, `BigBirdForCausalLM`, `RemBertForCausalLM`, "
         "`MegatronBertForCausalLM` attend to future tokens since v5.9.0 - CLM training loss "
         "collapses")
LINK = "https://github.com/huggingface/transformers/issues/48745"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class ForCausalLM(nn.Module):
    """The Hugging Face calling convention: keyword inputs, labels shifted inside, a dict out."""

    def __init__(self, vocab, causal, dim=32):
        super().__init__()
        self.dim, self.causal = dim, causal
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH + 1, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask=None, labels=None):
        length = input_ids.shape[1]
        x = self.embed(input_ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        # BUG when not causal: the decoder's config says is_decoder, its attention ignores it
        mask = nn.Transformer.generate_square_subsequent_mask(length) if self.causal else None
        logits = self.lm_head(self.decoder(x, mask=mask))
        loss = None
        if labels is not None:               # position t predicts token t + 1
            shifted = logits[:, :-1].reshape(-1, logits.shape[-1])
            loss = F.cross_entropy(shifted, labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = ForCausalLM(vocab, causal=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            optimizer.zero_grad()
            loss = model(input_ids=window, labels=window)["loss"]
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
