"""The encoder-decoder of the first translation and chatbot tutorials, shared by batch 252
(teacher forcing, SOS/EOS tokens, padding in batched seq2seq, decoder hidden states).

The task is batch 163's (benchmarks/real_bugs/_s2s163.py): a source sentence of 4 to 10
words is translated word by word through a fixed dictionary and written in reverse order;
a translation counts as right only when every word and the end token come out in place.

The model is the tutorials' GRU encoder and a GRU decoder unrolled one token at a time
(SOS first, then teacher forcing), with Luong's dot-product attention over the encoder's
outputs (padding masked). ``Decoder.step`` takes the previous token and the previous hidden
state and returns logits and the new state; each case writes its own loop around it, so
that the bug sits in the case.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._s2s163 import (MAX_LEN, SRC_PAD, SRC_VOCAB, Vocab, batch, data,
                                          exact_match, source_keep, translate_all)

__all__ = ["MAX_LEN", "SRC_PAD", "Vocab", "batch", "data", "Encoder", "Decoder",
           "greedy", "held_out_exact_match", "source_keep", "DIM"]

DIM = 64


class Encoder(nn.Module):
    def __init__(self, dim=DIM):
        super().__init__()
        self.embedding = nn.Embedding(SRC_VOCAB, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)

    def forward(self, source):
        """(outputs (B, S, H), final hidden (1, B, H))."""
        return self.gru(self.embedding(source))


class Decoder(nn.Module):
    """One decoding step: embed the previous token, run the GRU one step from ``hidden``,
    attend over the encoder's outputs with the new state, combine, project to the target
    vocabulary (logits)."""

    def __init__(self, vocab_size, dim=DIM):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.concat = nn.Linear(2 * dim, dim)
        self.out = nn.Linear(dim, vocab_size)

    def attend(self, query, outputs, keep):
        """query (B, 1, H) against outputs (B, S, H); keep (B, 1, S)."""
        scores = (query @ outputs.transpose(1, 2)).masked_fill(~keep, -1e9)
        return F.softmax(scores, dim=-1) @ outputs

    def step(self, token, hidden, outputs, keep):
        """token (B, 1) -> (logits (B, V), hidden (1, B, H))."""
        rnn_out, hidden = self.gru(self.embedding(token), hidden)
        context = self.attend(rnn_out, outputs, keep)
        combined = torch.tanh(self.concat(torch.cat([rnn_out, context], -1)))
        return self.out(combined).squeeze(1), hidden


@torch.no_grad()
def greedy(encoder, decoder, source, vocab, step=None, max_len=MAX_LEN + 2):
    """Greedy decoding from SOS, each step reading its own last output. ``step``: the
    decoder's step function (default ``decoder.step``)."""
    step = decoder.step if step is None else step
    outputs, hidden = encoder(source)
    keep = source_keep(source)
    token = torch.full((len(source), 1), vocab.sos, dtype=torch.int64)
    out = []
    for _ in range(max_len):
        logits, hidden = step(token, hidden, outputs, keep)
        token = logits.argmax(-1, keepdim=True)
        out.append(token)
    return torch.cat(out, 1)


def held_out_exact_match(encoder, decoder, held_out, vocab, step=None):
    encoder.eval()
    decoder.eval()
    outs = translate_all(lambda s: greedy(encoder, decoder, s, vocab, step), held_out)
    return exact_match(outs, held_out, vocab)


class Seq2Seq(nn.Module):
    """The encoder and decoder under one module (what ``nd.watch`` is given)."""

    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
