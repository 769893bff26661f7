"""A RoBERTa-style classifier whose collate function pads the attention mask with the
tokenizer's pad_token_id, as it pads the input ids: RoBERTa's pad id is 1, so every padded
position is marked "attend" and the real tokens attend to the padding. A text's prediction
changes with how much padding its batch gave it.

Reported: "`attention_mask` padded with 1" -
https://github.com/JoakimEdin/medical-coding-reproducibility/issues/13 ("Since `seq2batch`
function pads with `self.tokenizer.pad_token_id`, the `attention_mask` variable is padded
with `1`. Shouldn't it be padded with `0`"; the author: "You are correct! That is an
error."). Here the sonnet stretches in RoBERTa's id layout (<s> = 0 first, padding = 1),
labelled by whether more than a tenth of their characters are the letter e, classified
from <s>'s final state by a 2-layer encoder. Harm (seed 0, 300 steps, 2,048 held-out
stretches): accuracy 0.96 padded to each batch's longest, 0.97 with 16 more pads and 0.83
with 40 more (the fixed twin: 0.96 at every padding).
Fix: pad the attention mask with 0 (or take it from the tokenizer's own padding).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._text_snippets import ROBERTA_PAD, batches, roberta_style

TITLE = "`attention_mask` padded with 1"
LINK = "https://github.com/JoakimEdin/medical-coding-reproducibility/issues/13"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


class RobertaStyleClassifier(nn.Module):
    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=ROBERTA_PAD)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids) + self.position(torch.arange(input_ids.shape[1]))
        h = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        return self.classifier(h[:, 0])


def collate(ids, pad_mask_with):
    """The attention mask as the report's collate builds it: ones over each row's real
    tokens, then the row padded to the batch's width with ``pad_mask_with``."""
    real = ids != ROBERTA_PAD
    return torch.where(real, torch.ones_like(ids), torch.full_like(ids, pad_mask_with))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, labels, vocab = roberta_style(4096, seed=0)
    model = RobertaStyleClassifier(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    pad_mask_with = 0 if fixed else ROBERTA_PAD      # BUG: the pad *token id*, 1
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(ids, labels, steps, pad_id=ROBERTA_PAD):
            optimizer.zero_grad()
            logits = model(input_ids=xb, attention_mask=collate(xb, pad_mask_with))
            loss = F.cross_entropy(logits, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
