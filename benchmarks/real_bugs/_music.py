"""Data and models the symbolic-music cases of batch 220 share: synthetic melodies as MIDI
pitch tokens (each a motif of 3-6 notes repeated, one note in ten a random wrong note), a
small causal (or not) transformer over token sequences, parallel "codebook" streams and a
synthetic piano-roll "spectrogram" with its sparse onset roll. Every draw goes through
``np.random.default_rng`` with an integer seed, so ``--shift-seeds`` moves them."""
import math

import numpy as np
import torch
from torch import nn

PITCHES = 24            # two octaves of MIDI pitches, tokens 0..23 (MIDI 60..83)
LENGTH = 32             # tokens per training window


def melodies(count, length=LENGTH + 1, seed=0):
    """(count, length) int64 pitch tokens: each row repeats its own motif of 3-6 distinct
    pitches (the next note is the one a motif earlier), with one note in ten replaced by a
    random pitch."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        period = int(rng.integers(3, 7))
        motif = rng.choice(PITCHES, size=period, replace=False)
        row = np.resize(motif, length)
        wrong = rng.random(length) < 0.1
        row[wrong] = rng.integers(0, PITCHES, wrong.sum())
        rows.append(row)
    return torch.from_numpy(np.stack(rows).astype(np.int64))


def row_batches(rows, steps, batch_size=32, seed=0):
    """``steps`` random batches of rows, from a private generator."""
    rng = np.random.default_rng(seed + 11)
    for _ in range(steps):
        yield rows[torch.from_numpy(rng.integers(0, len(rows), batch_size))]


class SelfAttention(nn.Module):
    """Multi-head self-attention; ``causal``: position t attends to positions <= t only."""
    def __init__(self, dim, heads, causal=True):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if self.causal:
            future = torch.ones(length, length, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        weights = scores.softmax(-1)
        return self.out((weights @ v).transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    def __init__(self, dim, heads, causal=True):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads, causal)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class MusicTransformer(nn.Module):
    """Pitch tokens -> token + learned position embeddings -> pre-norm blocks -> one logit
    per pitch at every position. ``causal``: the attention mask a generator needs."""
    def __init__(self, vocab=PITCHES, dim=64, layers=2, heads=4, causal=True,
                 max_length=LENGTH + 1):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_length, dim)
        self.blocks = nn.Sequential(*(Block(dim, heads, causal) for _ in range(layers)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        return self.head(self.norm(self.blocks(x)))


def next_note_accuracy(model, rows, prefixes=(8, 12, 16, 20, 24, 28)):
    """Held-out accuracy of generation's own question: given only the first k notes of a
    melody, the model's top note at position k - 1 against the true note k (averaged over
    the prefix lengths ``prefixes``)."""
    was_training = model.training
    model.eval()
    hits = []
    with torch.no_grad():
        for k in prefixes:
            logits = model(rows[:, :k])[:, -1]
            hits.append((logits.argmax(-1) == rows[:, k]).float().mean().item())
    model.train(was_training)
    return sum(hits) / len(hits)


# ---- parallel codebook streams (MusicGen-style: K tokens per time step) ------------------

CODEBOOKS = 4


def codebook_streams(count, length=LENGTH + 1, seed=0):
    """(count, length, CODEBOOKS) int64: each stream is its own melody (a motif repeated,
    one token in ten random); stream k > 0 also echoes stream 0 shifted by k semitones at
    half the steps, so the streams share information like a codec's levels."""
    rng = np.random.default_rng(seed)
    out = np.zeros((count, length, CODEBOOKS), dtype=np.int64)
    for i in range(count):
        for k in range(CODEBOOKS):
            period = int(rng.integers(3, 7))
            motif = rng.choice(PITCHES, size=period, replace=False)
            out[i, :, k] = np.resize(motif, length)
        for k in range(1, CODEBOOKS):
            echo = np.arange(length) % 2 == 0
            out[i, echo, k] = (out[i, echo, 0] + k) % PITCHES
        wrong = rng.random((length, CODEBOOKS)) < 0.1
        out[i][wrong] = rng.integers(0, PITCHES, wrong.sum())
    return torch.from_numpy(out)


class CodebookDecoder(nn.Module):
    """K token streams -> the sum of K embeddings per step + positions -> causal blocks ->
    K heads. Returns logits laid out as MusicGen's decoder does: (batch * K, length, vocab)."""
    def __init__(self, vocab=PITCHES, dim=64, layers=2, heads=4, max_length=LENGTH + 1):
        super().__init__()
        self.embeds = nn.ModuleList(nn.Embedding(vocab, dim) for _ in range(CODEBOOKS))
        self.position = nn.Embedding(max_length, dim)
        self.blocks = nn.Sequential(*(Block(dim, heads) for _ in range(layers)))
        self.norm = nn.LayerNorm(dim)
        self.heads = nn.ModuleList(nn.Linear(dim, vocab) for _ in range(CODEBOOKS))

    def forward(self, codes):                       # codes: (batch, length, K)
        x = sum(e(codes[..., k]) for k, e in enumerate(self.embeds))
        x = self.norm(self.blocks(x + self.position(torch.arange(codes.shape[1]))))
        logits = torch.stack([h(x) for h in self.heads], dim=1)    # (batch, K, length, V)
        return logits.reshape(-1, codes.shape[1], logits.shape[-1])


def codebook_accuracy(model, codes):
    """Held-out next-step accuracy over all K streams: reads [:, :-1], predicts [:, 1:]."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(codes[:, :-1])                               # (B*K, L, V)
        target = codes[:, 1:].transpose(1, 2).reshape(-1, codes.shape[1] - 1)
        acc = (logits.argmax(-1) == target).float().mean().item()
    model.train(was_training)
    return acc


# ---- piano-roll "spectrogram" and its onset roll (transcription) --------------------------

BINS = 2 * PITCHES       # each pitch lights its own bin and its octave's (a harmonic)


def piano_roll_clips(count, frames=64, seed=0):
    """(features (count, frames, BINS) float32, onsets (count, frames, PITCHES) float32):
    notes of 4-12 frames start at random (about 2 sounding at once); a sounding note puts a
    decaying energy on its pitch's bin and, at half strength, on the bin an octave up; plus
    noise. The onset roll is 1 only on each note's first frame (about 1% of the cells)."""
    rng = np.random.default_rng(seed)
    x = np.zeros((count, frames, BINS), dtype=np.float32)
    onsets = np.zeros((count, frames, PITCHES), dtype=np.float32)
    for i in range(count):
        for _ in range(int(rng.integers(8, 16))):
            pitch = int(rng.integers(0, PITCHES))
            start = int(rng.integers(0, frames - 4))
            length = int(rng.integers(4, 13))
            end = min(frames, start + length)
            decay = np.exp(-0.25 * np.arange(end - start)).astype(np.float32)
            level = rng.uniform(0.6, 1.0)
            x[i, start:end, pitch] += level * decay
            x[i, start:end, pitch + PITCHES] += 0.5 * level * decay
            onsets[i, start, pitch] = 1.0
    x += 0.15 * rng.normal(size=x.shape).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(onsets)


class OnsetNet(nn.Module):
    """(batch, frames, BINS) -> two Conv1d layers over time (kernel 3) -> one onset logit
    per pitch and frame, (batch, frames, PITCHES)."""
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(BINS, hidden, 3, padding=1), nn.ReLU(),
                                 nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU(),
                                 nn.Conv1d(hidden, PITCHES, 1))

    def forward(self, x):
        return self.net(x.transpose(1, 2)).transpose(1, 2)


def onset_f1(model, x, onsets, threshold=0.5):
    """Held-out onset F1 (frame level): sigmoid(logit) > threshold against the onset roll."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        predicted = torch.sigmoid(model(x)) > threshold
    model.train(was_training)
    truth = onsets > 0.5
    tp = (predicted & truth).sum().item()
    precision = tp / max(predicted.sum().item(), 1)
    recall = tp / max(truth.sum().item(), 1)
    return 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)
