"""A small translation task and two encoder-decoders written by hand, shared by batch 163
(sequence-to-sequence training: shifted decoder inputs, padding masks, start and end
tokens, label smoothing with padding, source and target vocabularies).

The task: a source sentence of 4 to 10 words (16 source words) is translated word by word
through a fixed dictionary into 16 target words and written in reverse order. Source and
target have their own vocabularies; each case says where its special ids sit. A
translation counts as right only when every word and the end token come out in place.
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

WORDS = 16
MIN_LEN, MAX_LEN = 4, 10
SRC_PAD, SRC_SOS, SRC_EOS = 0, 1, 2           # the source vocabulary: 3 specials + words
SRC_VOCAB = 3 + WORDS


class Vocab:
    """A target vocabulary: where its specials sit, words at ``first_word`` onward."""

    def __init__(self, pad=0, sos=1, eos=2):
        self.pad, self.sos, self.eos = pad, sos, eos
        self.size = 3 + WORDS
        self.word_ids = [i for i in range(self.size) if i not in (pad, sos, eos)]


def pairs(n, rng, vocab):
    """n (source, target) lists of ids: source words + EOS; target words (no specials)."""
    dictionary = np.random.default_rng(163).permutation(WORDS)   # the word dictionary
    out = []
    for _ in range(n):
        length = int(rng.integers(MIN_LEN, MAX_LEN + 1))
        words = rng.integers(0, WORDS, length)
        source = [3 + int(w) for w in words] + [SRC_EOS]
        target = [vocab.word_ids[int(dictionary[w])] for w in words[::-1]]
        out.append((source, target))
    return out


def data(vocab, seed=0, train=2000, held_out=500):
    rng = np.random.default_rng(seed)
    return pairs(train, rng, vocab), pairs(held_out, rng, vocab)


def pad_batch(seqs, pad):
    longest = max(len(s) for s in seqs)
    out = torch.full((len(seqs), longest), pad, dtype=torch.int64)
    for row, s in enumerate(seqs):
        out[row, :len(s)] = torch.tensor(s)
    return out


def batch(train, index, vocab, eos=True):
    """(source, decoder inputs, labels) for the rows ``index``: decoder inputs are SOS + the
    target, labels the target + EOS (``eos=False``: no EOS at the end of the labels, the
    decoder inputs one shorter), both right-padded with the target's pad id."""
    chosen = [train[i] for i in index.tolist()]
    source = pad_batch([s for s, _ in chosen], SRC_PAD)
    if eos:
        dec_in = pad_batch([[vocab.sos] + t for _, t in chosen], vocab.pad)
        labels = pad_batch([t + [vocab.eos] for _, t in chosen], vocab.pad)
    else:
        dec_in = pad_batch([[vocab.sos] + t[:-1] for _, t in chosen], vocab.pad)
        labels = pad_batch([t for _, t in chosen], vocab.pad)
    return source, dec_in, labels


# ---------------------------------------------------------------- a small Transformer


def attention(q, k, v, keep, heads, fill=-1e9):
    """Multi-head scaled dot-product attention; ``keep`` (B, 1 or Tq, Tk) True where a key
    may be read; scores elsewhere are set to ``fill``."""
    b, tq, d = q.shape
    tk = k.shape[1]
    split = lambda x, t: x.view(b, t, heads, d // heads).transpose(1, 2)
    q, k, v = split(q, tq), split(k, tk), split(v, tk)
    scores = q @ k.transpose(-1, -2) / math.sqrt(d // heads)
    scores = scores.masked_fill(~keep.unsqueeze(1), fill)
    out = F.softmax(scores, dim=-1) @ v
    return out.transpose(1, 2).reshape(b, tq, d)


class Block(nn.Module):
    def __init__(self, dim, heads, cross=False):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm1, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.cross = cross
        if cross:
            self.q2, self.kv2 = nn.Linear(dim, dim), nn.Linear(dim, 2 * dim)
            self.out2, self.norm2 = nn.Linear(dim, dim), nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, x, keep, memory=None, memory_keep=None, fill=-1e9):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        x = self.norm1(x + self.out(attention(q, k, v, keep, self.heads, fill)))
        if self.cross:
            k2, v2 = self.kv2(memory).chunk(2, dim=-1)
            x = self.norm2(x + self.out2(attention(self.q2(x), k2, v2, memory_keep,
                                                   self.heads, fill)))
        return self.norm3(x + self.ff(x))


class Transformer(nn.Module):
    """One encoder block, one decoder block, learned positions."""

    def __init__(self, tgt_vocab, dim=64, heads=4, layers=2):
        super().__init__()
        self.src_embed = nn.Embedding(SRC_VOCAB, dim)
        self.tgt_embed = nn.Embedding(tgt_vocab, dim)
        self.pos = nn.Embedding(MAX_LEN + 2, dim)
        self.encoder = nn.ModuleList([Block(dim, heads) for _ in range(layers)])
        self.decoder = nn.ModuleList([Block(dim, heads, cross=True) for _ in range(layers)])
        self.head = nn.Linear(dim, tgt_vocab)

    def embed(self, table, ids):
        return table(ids) + self.pos(torch.arange(ids.shape[1]))

    def encode(self, source, src_keep, fill=-1e9):
        x = self.embed(self.src_embed, source)
        for block in self.encoder:
            x = block(x, src_keep, fill=fill)
        return x

    def decode(self, memory, src_keep, dec_in, tgt_keep, fill=-1e9):
        y = self.embed(self.tgt_embed, dec_in)
        for block in self.decoder:
            y = block(y, tgt_keep, memory, src_keep, fill)
        return self.head(y)


def source_keep(source, pad=SRC_PAD):
    """(B, 1, S): True at the source's real tokens."""
    return (source != pad).unsqueeze(1)


def target_keep(dec_in, pad):
    """(B, T, T): True where a decoder position may read an earlier, real position."""
    t = dec_in.shape[1]
    causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
    return (dec_in != pad).unsqueeze(1) & causal


# ---------------------------------------------------------------- a GRU with attention


class AttentionGRU(nn.Module):
    """A GRU encoder and a GRU decoder with dot-product (Luong) attention over the encoder's
    states, read with a source mask when one is given."""

    def __init__(self, tgt_vocab, dim=64):
        super().__init__()
        self.src_embed = nn.Embedding(SRC_VOCAB, dim)
        self.tgt_embed = nn.Embedding(tgt_vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.combine = nn.Linear(2 * dim, dim)
        self.head = nn.Linear(dim, tgt_vocab)

    def encode(self, source):
        states, last = self.encoder(self.src_embed(source))
        return states, last

    def decode(self, states, src_keep, dec_in, hidden):
        out, hidden = self.decoder(self.tgt_embed(dec_in), hidden)
        scores = out @ states.transpose(1, 2)                  # (B, T, S)
        if src_keep is not None:
            scores = scores.masked_fill(~src_keep, -1e9)
        context = F.softmax(scores, dim=-1) @ states
        return self.head(torch.tanh(self.combine(torch.cat([out, context], -1)))), hidden


# ---------------------------------------------------------------- held-out scoring


@torch.no_grad()
def greedy_transformer(model, source, vocab, fill=-1e9, tgt_keep=target_keep,
                       max_len=MAX_LEN + 2):
    src_keep = source_keep(source)
    memory = model.encode(source, src_keep, fill)
    dec = torch.full((len(source), 1), vocab.sos, dtype=torch.int64)
    for _ in range(max_len):
        logits = model.decode(memory, src_keep, dec, tgt_keep(dec, vocab.pad), fill)
        dec = torch.cat([dec, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return dec[:, 1:]


@torch.no_grad()
def greedy_gru(model, source, vocab, masked=True, max_len=MAX_LEN + 2):
    states, hidden = model.encode(source)
    src_keep = source_keep(source) if masked else None
    token = torch.full((len(source), 1), vocab.sos, dtype=torch.int64)
    out = []
    for _ in range(max_len):
        logits, hidden = model.decode(states, src_keep, token, hidden)
        token = logits[:, -1].argmax(-1, keepdim=True)
        out.append(token)
    return torch.cat(out, 1)


def exact_match(outputs, held_out, vocab):
    """Share of held-out sentences translated exactly: every word, then the end token."""
    right = 0
    for row, (_, target) in enumerate(held_out):
        want = target + [vocab.eos]
        got = outputs[row, :len(want)].tolist()
        right += got == want
    return right / len(held_out)


def translate_all(decode, held_out, chunk=250):
    """Greedy outputs for every held-out source (``decode(source batch)`` -> ids)."""
    outs = []
    for start in range(0, len(held_out), chunk):
        source = pad_batch([s for s, _ in held_out[start:start + chunk]], SRC_PAD)
        outs.append(decode(source))
    longest = max(o.shape[1] for o in outs)
    return torch.cat([F.pad(o, (0, longest - o.shape[1]), value=-1) for o in outs])
