"""A small encoder-decoder Transformer as a beginner writes it after the annotated-transformer
tutorials, shared by batch 304 (source and target masks, shifted decoder inputs, Noam
warm-up, embeddings scaled by sqrt(d_model), label smoothing).

The task is a toy "translation": a source sentence of LENGTH digits (ids 0-9) is translated
digit by digit through a fixed dictionary (a permutation of the digits) and written in
reverse order. Both sides share one vocabulary: the ten digits, a start token SOS and a
padding token PAD (the sentences all have LENGTH tokens, so PAD never occurs). The decoder
reads SOS followed by the target without its last token (teacher forcing) and predicts the
target; a held-out sentence counts as translated when greedy decoding from SOS gets every
digit right.

The pieces follow the tutorial's layout - Embeddings, PositionalEncoding, MultiHeadedAttention,
pre-norm SublayerConnection, EncoderLayer, DecoderLayer, Generator (log_softmax) - with every
matrix Xavier-initialised as the tutorial does. Each case overrides the piece its bug lives
in.
"""
import copy
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

LENGTH = 8
DIGITS = 10
SOS, PAD = 10, 11
VOCAB = 12
D_MODEL = 32
HEADS = 4
LAYERS = 1
DICTIONARY = torch.tensor([3, 7, 0, 9, 5, 1, 8, 2, 6, 4])    # source digit -> target digit


def subsequent_mask(size):
    """(1, size, size), True where position i may read position j (j <= i)."""
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool))


def translate(source):
    return DICTIONARY[source].flip(1)


def make_batch(source):
    """(source, decoder input, target, source mask (B, 1, S), target mask (B, T, T))."""
    target = translate(source)
    decoder_input = torch.cat([torch.full((len(source), 1), SOS), target[:, :-1]], 1)
    src_mask = (source != PAD).unsqueeze(-2)
    tgt_mask = (decoder_input != PAD).unsqueeze(-2) & subsequent_mask(decoder_input.shape[1])
    return source, decoder_input, target, src_mask, tgt_mask


def sentences(steps, batch_size=64, seed=0):
    """``steps`` batches of fresh random source sentences, from a private generator."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield torch.from_numpy(rng.integers(0, DIGITS, (batch_size, LENGTH)))


def held_out(n=500, seed=12345):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.integers(0, DIGITS, (n, LENGTH)))


class Embeddings(nn.Module):
    def __init__(self, vocab, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, :x.size(1)])


def attention(query, key, value, mask=None):
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    return F.softmax(scores, dim=-1) @ value


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model):
        super().__init__()
        self.d_k, self.h = d_model // h, h
        self.linears = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(4)])

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)                      # the same mask for every head
        n = query.size(0)
        query, key, value = [lin(x).view(n, -1, self.h, self.d_k).transpose(1, 2)
                             for lin, x in zip(self.linears, (query, key, value))]
        x = attention(query, key, value, mask)
        x = x.transpose(1, 2).contiguous().view(n, -1, self.h * self.d_k)
        return self.linears[-1](x)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(F.relu(self.w_1(x))))


class SublayerConnection(nn.Module):
    """x + dropout(sublayer(norm(x))) (the tutorial's pre-norm residual)."""

    def __init__(self, size, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


class EncoderLayer(nn.Module):
    def __init__(self, size, self_attn, feed_forward, dropout):
        super().__init__()
        self.self_attn, self.feed_forward = self_attn, feed_forward
        self.sublayer = nn.ModuleList([SublayerConnection(size, dropout) for _ in range(2)])

    def forward(self, x, mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayer[1](x, self.feed_forward)


class DecoderLayer(nn.Module):
    def __init__(self, size, self_attn, src_attn, feed_forward, dropout):
        super().__init__()
        self.self_attn, self.src_attn, self.feed_forward = self_attn, src_attn, feed_forward
        self.sublayer = nn.ModuleList([SublayerConnection(size, dropout) for _ in range(3)])

    def forward(self, x, memory, src_mask, tgt_mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_mask))
        x = self.sublayer[1](x, lambda x: self.src_attn(x, memory, memory, src_mask))
        return self.sublayer[2](x, self.feed_forward)


class Stack(nn.Module):
    """N deep copies of a layer, then a final LayerNorm (the tutorial's Encoder/Decoder)."""

    def __init__(self, layer, n):
        super().__init__()
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])
        self.norm = nn.LayerNorm(layer.sublayer[0].norm.normalized_shape)

    def forward(self, x, *masks):
        for layer in self.layers:
            x = layer(x, *masks)
        return self.norm(x)


class Generator(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=-1)


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder, src_embed, tgt_embed, generator):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.src_embed, self.tgt_embed, self.generator = src_embed, tgt_embed, generator

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        """Log-probabilities (B, T, vocab) of the next target token at every position."""
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))


def make_model(vocab=VOCAB, n=LAYERS, d_model=D_MODEL, d_ff=64, h=HEADS, dropout=0.1,
               embeddings=Embeddings, decoder_layer=DecoderLayer):
    """The tutorial's make_model, small; ``embeddings`` and ``decoder_layer``: the classes a
    case replaces. Every parameter of 2+ dimensions Xavier-uniform, as in the tutorial."""
    c = copy.deepcopy
    attn, ff = MultiHeadedAttention(h, d_model), FeedForward(d_model, d_ff, dropout)
    position = PositionalEncoding(d_model, dropout)
    model = EncoderDecoder(
        Stack(EncoderLayer(d_model, c(attn), c(ff), dropout), n),
        Stack(decoder_layer(d_model, c(attn), c(attn), c(ff), dropout), n),
        nn.Sequential(embeddings(vocab, d_model), c(position)),
        nn.Sequential(embeddings(vocab, d_model), c(position)),
        Generator(d_model, vocab))
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    return model


def rate(step, model_size, factor, warmup):
    """The tutorial's Noam schedule (step counted from 0, hence the max with 1)."""
    step = max(step, 1)
    return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


@torch.no_grad()
def greedy_decode(model, source):
    """Greedy decoding from SOS into a fixed buffer of LENGTH decoder positions (the later
    positions hold SOS until written; the target mask keeps each position from reading
    them)."""
    src_mask = (source != PAD).unsqueeze(-2)
    memory = model.encode(source, src_mask)
    buffer = torch.full((len(source), LENGTH), SOS)
    tgt_mask = subsequent_mask(LENGTH)
    out = torch.zeros_like(buffer)
    for t in range(LENGTH):
        log_probs = model.generator(model.decode(memory, src_mask, buffer, tgt_mask)[:, t])
        out[:, t] = log_probs.argmax(-1)
        if t + 1 < LENGTH:
            buffer[:, t + 1] = out[:, t]
    return out


def exact_match(model, sources):
    """Share of held-out sentences translated without a single wrong digit (eval mode)."""
    was_training = model.training
    model.eval()
    out = greedy_decode(model, sources)
    model.train(was_training)
    return (out == translate(sources)).all(1).float().mean().item()
