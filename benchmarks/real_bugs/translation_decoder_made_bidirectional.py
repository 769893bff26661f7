"""An attention translator whose DECODER, like its encoder, is a bidirectional RNN. Trained
with teacher forcing on the whole shifted target at once, the decoder's backward direction
reads the target tokens that come after each position - the very words it must predict.
The training loss drops to almost nothing; at translation time the words to the right do
not exist yet (the decoder is re-run on its own prefix), and the translations are wrong
or empty.

Reported: "Translation is wrong + error ?" - https://github.com/thushv89/attention_keras/issues/11
(the ``nmt_bidirectional`` example reaches a loss of 0.00024 in epoch 5 but its French
translation comes out empty; the maintainer: "It was using bidirectional for both the
encoder and the decoder while it should only be using bidirectional for the encoder. I have
fixed this"). Here the example's shape in PyTorch: a bidirectional GRU encoder, a GRU decoder
started from the encoder's two final states, dot-product attention of the decoder's outputs
over the encoder's, a tanh layer and a Linear onto the vocabulary; batch 163's reversed
word-by-word translation (benchmarks/real_bugs/_seq2seq_tutorials.py), cross-entropy over the
real tokens, Adam. Fix: a unidirectional decoder (twice as wide, started from the two final
states concatenated).

Measured (300 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences): seed 0, 0.000 for the bug against 0.852 for the fixed twin; seeds shifted by
1000, 0.000 against 0.830.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import SRC_VOCAB, exact_match, translate_all
from benchmarks.real_bugs._seq2seq_tutorials import (MAX_LEN, Vocab, batch, data,
                                                     source_keep)

TITLE = "Translation is wrong + error ?"
LINK = "https://github.com/thushv89/attention_keras/issues/11"
EXPECTED = ("FUTURE_LEAK", "TARGETS_IN_INPUTS")
STEPS = 300
HIDDEN = 32


class BiTranslator(nn.Module):
    def __init__(self, vocab_size, bidirectional_decoder, dim=HIDDEN):
        super().__init__()
        self.bidirectional_decoder = bidirectional_decoder
        self.src_embed = nn.Embedding(SRC_VOCAB, 2 * dim)
        self.tgt_embed = nn.Embedding(vocab_size, 2 * dim)
        self.encoder = nn.GRU(2 * dim, dim, batch_first=True, bidirectional=True)
        if bidirectional_decoder:       # BUG: the decoder reads the target both ways
            self.decoder = nn.GRU(2 * dim, dim, batch_first=True, bidirectional=True)
        else:
            self.decoder = nn.GRU(2 * dim, 2 * dim, batch_first=True)
        self.concat = nn.Linear(4 * dim, 2 * dim)
        self.out = nn.Linear(2 * dim, vocab_size)

    def forward(self, source, dec_in):
        """Logits (B, T, V) for every decoder input position at once."""
        enc_out, state = self.encoder(self.src_embed(source))         # (B, S, 2H), (2, B, H)
        if not self.bidirectional_decoder:
            state = torch.cat([state[0], state[1]], -1).unsqueeze(0)  # (1, B, 2H)
        dec_out, _ = self.decoder(self.tgt_embed(dec_in), state)      # (B, T, 2H)
        scores = (dec_out @ enc_out.transpose(1, 2)).masked_fill(~source_keep(source), -1e9)
        context = F.softmax(scores, dim=-1) @ enc_out
        return self.out(torch.tanh(self.concat(torch.cat([dec_out, context], -1))))


@torch.no_grad()
def greedy(model, source, vocab, max_len=MAX_LEN + 2):
    """Re-run the decoder on its own prefix, one new token per step."""
    dec = torch.full((len(source), 1), vocab.sos, dtype=torch.int64)
    for _ in range(max_len):
        dec = torch.cat([dec, model(source, dec)[:, -1].argmax(-1, keepdim=True)], 1)
    return dec[:, 1:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab()
    train, held_out = data(vocab, seed=0)
    model = BiTranslator(vocab.size, bidirectional_decoder=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            logits = model(source, dec_in)
            loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=vocab.pad)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_exact_match = exact_match(
        translate_all(lambda s: greedy(model, s, vocab), held_out), held_out, vocab)
    return mon
