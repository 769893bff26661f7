"""A CLIP-style text tower that pools each caption at its EOS token, found with
``(tokens == EOS).int().argmax(dim=-1)``, on captions cut to a fixed context: a caption
longer than the context loses its EOS to the truncation, its row of the comparison is all
zeros, and ``argmax`` of an all-zero row is 0 - the BOS position. The text tower is causal
(a GRU: each position has seen only the tokens up to it), so the state at BOS has seen
nothing but BOS: every truncated caption gets the SAME text embedding. Here about half the
captions are longer than the context. Nothing errors or warns; training runs, the loss
falls (the short captions are learned), and retrieval fails for the long ones.

Reported: "text_global_pool(pool_type='eos'): silent fallback to index 0 on missing EOS" -
https://github.com/mlfoundations/open_clip/issues/1151 (open_clip's EOS pooling finds the
EOS with ``(text == eos_token_id).int().argmax(dim=-1)``; a sequence truncated before its
EOS has no match, ``argmax`` returns 0 and the BOS position is pooled "without any
warning"; the linked fix, PR #1154, falls back to the last position when no EOS is
present). Here: digits paired with caption-like token sequences - BOS, one token per inked
2x2 cell (cell and ink level), EOS - cut to 9 tokens (benchmarks/real_bugs/_clip.py:
``sequence_captions``), a GRU text tower read at the pooled position, CLIP's symmetric loss,
Adam. Fix: pool a caption without EOS at its last position (what the truncation kept).

Measured (300 steps, 51% of the captions truncated; held-out retrieval among the 500
held-out pairs): image-to-text recall@1 0.15 and recall@5 0.39 with the bug against 0.40
and 0.82 for the fixed twin; seeds shifted by 1000: 0.19 / 0.40 against 0.35 / 0.82.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._clip import (EOS, INIT_LOGIT_SCALE, CausalTextTower, ImageTower,
                                        clip_loss, sequence_captions, train_clip)

TITLE = "text_global_pool(pool_type='eos'): silent fallback to index 0 on missing EOS"
LINK = "https://github.com/mlfoundations/open_clip/issues/1151"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS",)
STEPS = 300
CONTEXT = 9                  # tokens a caption is cut to (BOS + up to 7 cells + EOS fit)


class CaptionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.image = ImageTower()
        self.text = CausalTextTower()
        self.logit_scale = nn.Parameter(torch.tensor(INIT_LOGIT_SCALE))

    @staticmethod
    def text_of(x):
        return sequence_captions(x, CONTEXT)


def eos_positions(tokens, fixed):
    is_eos = tokens == EOS
    positions = is_eos.int().argmax(dim=-1)      # BUG: 0 (BOS) where the EOS was cut off
    if fixed:
        last = torch.full_like(positions, tokens.shape[1] - 1)
        positions = torch.where(is_eos.any(dim=-1), positions, last)
    return positions


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = CaptionModel()

    def features_of(model, images, tokens):
        text = model.text(tokens, eos_positions(tokens, fixed))
        return F.normalize(model.image(images), dim=1), F.normalize(text, dim=1)

    return train_clip(model, steps, features_of, clip_loss, **watch)
