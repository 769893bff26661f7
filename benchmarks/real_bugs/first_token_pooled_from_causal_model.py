"""A decoder-only (causal) transformer fine-tuned as a classifier that pools the hidden state
of the FIRST token, as a BERT classifier pools [CLS]: under the causal mask the first
position attends to nothing but itself, so the pooled vector, and every prediction, is a
function of the text's first token alone.

Reported: "Add a sequence classification head to ProtGen2" -
https://github.com/salesforce/progen/issues/8 ("the predictions end up being exactly the
same no matter the input sequence. This is the case because the pooler just takes the
hidden state corresponding to the first token ... The first hidden state is not influenced
by any consecutive tokens"); the reporter's fix, as GPT-J's sequence classifier does: pool
the last real token. Here stretches of 8 to 40 characters of the sonnets, right-padded per
batch, labelled by whether more than a tenth of their characters are the letter e, read by
a 2-layer causal encoder. Harm (seed 0, 200 steps, 2,048 held-out stretches): accuracy
0.56 with the first token pooled (about what its first character tells) against 0.94
with the last real one pooled.
How watch finds it: replacing the token ids of 7 of 8 random groups of a text's positions
leaves its output exactly as it was; one by one, only position 0 is read
(OUTPUT_READS_FEW_TOKENS).
Fix: pool ``h[range(B), lengths - 1]``.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched
from benchmarks.real_bugs._text_snippets import batches, bert_style

TITLE = "Add a sequence classification head to ProtGen2"
LINK = "https://github.com/salesforce/progen/issues/8"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS",)
STEPS = 200


class CausalClassifier(nn.Module):
    def __init__(self, vocab, pool_last, dim=32):
        super().__init__()
        self.pool_last = pool_last
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(128, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        length = ids.shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(length)
        h = self.decoder(self.embed(ids) + self.position(torch.arange(length)),
                         mask=causal, is_causal=True)
        if self.pool_last:
            last = (ids != 0).sum(1) - 1
            pooled = h[torch.arange(len(ids)), last]
        else:
            pooled = h[:, 0]                 # BUG: under the causal mask it saw one token
        return self.classifier(pooled)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, labels, vocab = bert_style(4096, seed=0)
    model = CausalClassifier(vocab, pool_last=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy,
                         batches(ids, labels, steps, pad_id=0), **watch)
