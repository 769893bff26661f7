"""A RoBERTa-style transformer reads its learned position table from row ``padding_idx + 1``
on (rows 0 and 1 are reserved, row 1 is the padding row); given position ids that start at
0 instead, every token reads the embedding of a position two places earlier, and the first
two tokens read the reserved rows. Nothing fails: the model is fine-tuned on positions it
never learned (loss 0.40 over the last 20 of 200 steps, against 0.27 with the offset).

Reported: "Fix position_ids offsetting for RoBERTa-family models when flattening inputs" -
https://github.com/huggingface/sentence-transformers/pull/3879 ("When the collator's 0-based
ids are passed instead, every token reads a position embedding shifted by padding_idx + 1
(usually 2) ... Nothing crashes, the embeddings are just silently worse"). Here a small
transformer over the 8 rows of a digit with a RoBERTa-style position table (padding_idx 1),
pretrained on the digits 0-4 with positions 2..9, fine-tuned on all ten digits (backbone
3e-4, new head 1e-3) with positions 0..7.
Fix: offset the positions as the model was pretrained (``arange(T) + padding_idx + 1``).

Why watch misses it: 0-based ids look up rows of the pretrained table as valid as the offset
ones (the reserved rows too: row 0 random, row 1 the zero padding row), and a position table
read with the same ids for every sample is what every healthy transformer does. Which rows
pretraining used is not in the watched run; fine-tuning relearns the positions, so the loss
falls, only to a higher level. (As it came, the position lookup's output repeating across
the batch was named COLLAPSED_ACTIVATIONS on the fixed twin too; embeddings are now left
out of that check, since their rows repeat whenever their ids do.)
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fix position_ids offsetting for RoBERTa-family models when flattening inputs"
LINK = "https://github.com/huggingface/sentence-transformers/pull/3879"
EXPECTED = ("POSITION_IDS_OFFSET",)
STEPS = 200
PRETRAIN_STEPS = 150
PADDING_IDX = 1
ROWS = 8


class RowEncoder(nn.Module):
    """Rows of a digit as tokens, a learned position table with RoBERTa's layout, two
    encoder layers, read at the first token."""

    def __init__(self, width=64):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.position = nn.Embedding(ROWS + PADDING_IDX + 1, width, padding_idx=PADDING_IDX)
        layer = nn.TransformerEncoderLayer(width, 4, 2 * width, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, rows, position_ids):
        return self.encoder(self.embed(rows) + self.position(position_ids))[:, 0]


class Classifier(nn.Module):
    def __init__(self, body, classes, position_ids):
        super().__init__()
        self.body, self.head = body, nn.Linear(64, classes)
        self.register_buffer("position_ids", position_ids)

    def forward(self, rows):
        return self.head(self.body(rows, self.position_ids.expand(len(rows), -1)))


def roberta_positions():
    return torch.arange(ROWS) + PADDING_IDX + 1


def pretrained(x, y):
    torch.manual_seed(1)
    model = Classifier(RowEncoder(), 5, roberta_positions())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    keep = y < 5
    for xb, yb in batches(x[keep], y[keep], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return model.body


def build(fixed=False, steps=STEPS):
    x, y = classification()
    x = x.reshape(-1, ROWS, 8)
    body = pretrained(x, y)
    torch.manual_seed(0)
    # BUG (when not fixed): 0-based position ids, as a BERT-style collator makes them
    positions = roberta_positions() if fixed else torch.arange(ROWS)
    model = Classifier(body, 10, positions)
    optimizer = torch.optim.AdamW([{"params": model.body.parameters(), "lr": 3e-4},
                                   {"params": model.head.parameters(), "lr": 1e-3}])
    return model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps)


def run(fixed=False, steps=STEPS, **watch):
    return train_watched(*build(fixed, steps), **watch)
