"""A text CNN that zeroes the padded embeddings and then max-pools its convolution over
every position, padding included: a padded position's activation is the filter's bias (and
its neighbours' edges), and where that is the largest the pad wins the max. The same text
gets a different prediction padded to a longer batch than alone.

Reported: "Potential bug: The maxpool in cnn_encoder can be triggered by pad tokens." -
https://github.com/allenai/allennlp/issues/4739 ("The pad tokens will get masked (set to
0), but it's still possible that after applying the mask followed by the CNN, the PAD
tokens are those with highest activations. This could lead to the same exact datapoint
getting different predictions if's part of a batch vs single prediction"; labelled a bug,
fixed by masking the convolution's outputs before the max). Here the sonnet stretches,
labelled by whether more than a tenth of their characters are the letter e, padded per
batch to the longest + 2. Harm (seed 0, 200 steps, 2,048 held-out stretches): each text
scored alone against padded to 42 columns: accuracy 0.896 against 0.892, 0.9% of the
predictions flip and a probability moves by up to 0.39 (the fixed twin: not one moves).
How watch finds it: a padded sample run with its padding cut off gives other outputs
(PADDING_LEAK, the dependency probes' padding_amount.py).
Fix: fill the padded positions' activations with -inf (the dtype's minimum) before the max.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._text_snippets import batches, bert_style

TITLE = "Potential bug: The maxpool in cnn_encoder can be triggered by pad tokens."
LINK = "https://github.com/allenai/allennlp/issues/4739"
EXPECTED = ("PADDING_LEAK",)
STEPS = 200


class TextCNN(nn.Module):
    def __init__(self, vocab, mask_before_max, dim=32, filters=64):
        super().__init__()
        self.mask_before_max = mask_before_max
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.convolution = nn.Conv1d(dim, filters, kernel_size=3, padding=1)
        self.classifier = nn.Linear(filters, 2)

    def forward(self, ids):
        real = (ids != 0).unsqueeze(1)                           # (B, 1, L)
        x = self.embed(ids).transpose(1, 2) * real               # pads set to 0
        h = F.relu(self.convolution(x))
        if self.mask_before_max:
            h = h.masked_fill(~real, torch.finfo(h.dtype).min)
        return self.classifier(h.max(dim=2).values)               # BUG unmasked: pads win


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, labels, vocab = bert_style(4096, seed=0)
    model = TextCNN(vocab, mask_before_max=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy,
                         batches(ids, labels, steps, pad_id=0), **watch)
