"""An encoder-decoder trained with its decoder inputs equal to its labels: at every position
the decoder reads the very token it is asked to output, so it learns to copy and the loss
falls toward 0 while the model learns nothing it could generate with.

Reported: "T5-Training Arguments" - https://github.com/huggingface/transformers/issues/11977
(`labels = decoder_input_ids` passed together: "the trained model will generate
gibberish"; the maintainer: "The decoder_input_ids should not be equal to the labels, but
instead equal to the labels shifted one position to the right"). Here a GRU encoder reads 16
characters of the sonnets and a GRU decoder writes the next 16. Fix: decoder inputs are
the labels shifted right behind a start token.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "T5-Training Arguments"
LINK = "https://github.com/huggingface/transformers/issues/11977"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 120
SOURCE = 16          # characters the encoder reads; the decoder writes the next SOURCE


class Seq2Seq(nn.Module):
    def __init__(self, vocab, dim=48):
        super().__init__()
        self.embed = nn.Embedding(vocab + 1, dim)       # id `vocab` is the start token
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, source, decoder_inputs):
        _, state = self.encoder(self.embed(source))
        out, _ = self.decoder(self.embed(decoder_inputs), state)
        return self.head(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = Seq2Seq(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=2 * SOURCE - 1):
            source, labels = window[:, :SOURCE], window[:, SOURCE:]
            if fixed:                        # shift right behind the start token
                start = torch.full_like(labels[:, :1], vocab)
                decoder_inputs = torch.cat([start, labels[:, :-1]], dim=1)
            else:
                decoder_inputs = labels      # BUG: the decoder reads what it must predict
            optimizer.zero_grad()
            logits = model(source, decoder_inputs)
            loss = F.cross_entropy(logits.transpose(1, 2), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
