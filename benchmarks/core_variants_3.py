"""Variants, third campaign (issue #10): sequence models and training loops, written again.

``core_variants.py`` wrote issue #10's first capabilities again; this file does the same for
the sequence-model and training-loop capabilities, in forms our own cases (and the first
campaign) did not use: a model that sees the future (FUTURE_LEAK), one that mixes samples
across the batch (BATCH_MIXING), one that copies its labels (TARGETS_IN_INPUTS and its
relatives), and bugs of the loop itself (backward twice, stale or partial optimizers,
schedulers stepped per batch, eval mode, no_grad, a misplaced detach or clip). Each
variant's EXPECTED codes were decided from its cause before it was run; each has a fixed
twin (only the bug fixed) that must learn and stay silent. NOT public reports: they are not
in ``real_bugs/``.

Scored like ``bench_real_bugs.py``: detected / wrong cause / missed / false alarm (the
fixed twin gives a warning or error). The twin's loss (first 10 steps -> last 10) is
printed so that a twin that does not learn shows.

Run: python -m benchmarks.core_variants_3 [NAME ...] (NAME: a variant or a capability).
"""
import math
import sys

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks import variant_scoring
from benchmarks.variant_scoring import digits, rows
from benchmarks.real_bugs._common import (batches, characters, classification, regression,
                                          text_windows)


VARIANTS, variant = variant_scoring.registry()


# ------------------------------------------------------------------------ the loop

def standard_step(model, optimizer, loss_fn):
    def step(xb, yb):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        return loss
    return step


def train(setup, **watch):
    """One run: ``setup['step'](xb, yb) -> loss`` (default: zero_grad, forward, backward,
    step) for each batch, ``before(i)`` / ``after(i)`` around it (a scheduler, a
    validation pass). The monitor comes back, the losses in ``.variant_losses``."""
    model, optimizer = setup["model"], setup["optimizer"]
    step = setup.get("step") or standard_step(model, optimizer, setup["loss_fn"])
    before, after = setup.get("before"), setup.get("after")
    losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(setup["data"]):
            if before is not None:
                before(i)
            loss = step(xb, yb)
            mon.step(loss)
            losses.append(float(loss.detach()))
            if after is not None:
                after(i)
    mon.variant_losses = losses
    return mon


# ------------------------------------------------------------------------ data, models

EPOCH = 1797 // 64      # batches in one epoch of the digits at batch size 64


def windows(steps=120, length=24, seed=0):
    """Character windows of length + 1 (B, length + 1) and the vocabulary size."""
    ids, vocab = characters()
    return text_windows(ids, steps, length=length, seed=seed), vocab


def next_chars(steps=120, length=24):
    data, vocab = windows(steps, length)
    return ((w[:, :-1], w[:, 1:]) for w in data), vocab


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def series(steps, batch_size=32, length=24, seed=0):
    """Three noisy sines per sample, (B, length, 3), a different phase and speed each."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    for _ in range(steps):
        phase = torch.rand(batch_size, 1, 3, generator=g) * 6.28
        speed = 0.2 + 0.3 * torch.rand(batch_size, 1, 3, generator=g)
        x = torch.sin(t[None, :, None] * speed + phase)
        yield x + 0.05 * torch.randn(x.shape, generator=g)


def next_step_series(steps, length=24):
    """Inputs steps 0..T-1 of the three series, targets series 0 at steps 1..T."""
    return ((s[:, :-1], s[:, 1:, 0]) for s in series(steps, length=length + 1))


class CharGRU(nn.Module):
    def __init__(self, vocab, dropout=0.0, layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, 64, layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


class EncoderLM(nn.Module):
    """A small transformer LM: nn.TransformerEncoder with a causal mask built in forward
    by ``mask(t)`` (None: no mask)."""

    def __init__(self, vocab, mask, dropout=0.0, length=24):
        super().__init__()
        self.mask = mask
        self.embed = nn.Embedding(vocab, 32)
        self.position = nn.Parameter(torch.randn(length, 32) * 0.1)
        layer = nn.TransformerEncoderLayer(32, 2, 64, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(32, vocab)

    def forward(self, ids):
        t = ids.shape[1]
        mask = self.mask(t) if self.mask is not None else None
        return self.head(self.encoder(self.embed(ids) + self.position[:t], mask=mask))


def causal_float_mask(t):
    return torch.triu(torch.full((t, t), float("-inf")), diagonal=1)


# ==================================================================== 1. FUTURE_LEAK

class HandAttentionLM(nn.Module):
    """One hand-written causal self-attention block (GPT style). ``keep`` is a 0/1 matrix,
    1 = may attend; fixed: tril (the past and itself). BUG: triu - the future and itself."""

    def __init__(self, vocab, fixed, length=24):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, 32)
        self.position = nn.Parameter(torch.randn(length, 32) * 0.1)
        self.qkv = nn.Linear(32, 96)
        self.mlp = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))
        self.head = nn.Linear(32, vocab)

    def forward(self, ids):
        t = ids.shape[1]
        h = self.embed(ids) + self.position[:t]
        q, k, v = self.qkv(h).split(32, dim=-1)
        scores = q @ k.transpose(1, 2) / math.sqrt(32)
        ones = torch.ones(t, t)
        keep = torch.tril(ones) if self.fixed else torch.triu(ones)           # BUG
        scores = scores.masked_fill(keep == 0, float("-inf"))
        h = h + F.softmax(scores, dim=-1) @ v
        return self.head(h + self.mlp(h))


@variant("future", ["FUTURE_LEAK"])
def hand_attention_mask_built_with_triu(fixed):
    torch.manual_seed(20)
    data, vocab = next_chars()
    model = HandAttentionLM(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 3e-3),
                loss_fn=lm_loss, data=data)


@variant("future", ["FUTURE_LEAK"])
def transformer_lm_without_causal_mask(fixed):
    """A decoder-only LM on nn.TransformerEncoder with no mask at all (BUG)."""
    torch.manual_seed(21)
    data, vocab = next_chars()
    model = EncoderLM(vocab, causal_float_mask if fixed else None)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lm_loss, data=data)


@variant("future", ["FUTURE_LEAK"])
def float_causal_mask_transposed(fixed):
    """The -inf mask transposed (BUG: the past masked, the future open); SGD + momentum."""
    torch.manual_seed(22)
    data, vocab = next_chars()
    model = EncoderLM(vocab, causal_float_mask if fixed else lambda t: causal_float_mask(t).T)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1, momentum=0.9),
                loss_fn=lambda out, y: F.cross_entropy(out.transpose(1, 2), y), data=data)


class TCN(nn.Module):
    """A dilated Conv1d forecaster over (B, T, 3) series -> (B, T) next values.
    ``layout``: 'causal' (pad 2d on the left), 'same' (padding='same': a centred window),
    'chomp-front' (pad 2d on both sides and drop the FIRST 2d outputs instead of the last)."""

    def __init__(self, layout):
        super().__init__()
        self.layout = layout
        self.convs = nn.ModuleList(
            nn.Conv1d(3 if i == 0 else 32, 32, 3, dilation=d,
                      padding="same" if layout == "same" else
                      (0 if layout == "causal" else 2 * d))
            for i, d in enumerate((1, 2, 4)))
        self.out = nn.Conv1d(32, 1, 1)

    def forward(self, x):
        h = x.transpose(1, 2)
        for conv in self.convs:
            d = conv.dilation[0]
            if self.layout == "causal":
                h = F.relu(conv(F.pad(h, (2 * d, 0))))
            elif self.layout == "same":
                h = F.relu(conv(h))
            else:
                h = F.relu(conv(h)[..., 2 * d:])                        # BUG: wrong end
        return self.out(h).squeeze(1)


@variant("future", ["FUTURE_LEAK"])
def tcn_forecaster_padding_same(fixed):
    torch.manual_seed(23)
    model = TCN("causal" if fixed else "same")
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.MSELoss(), data=next_step_series(150))


@variant("future", ["FUTURE_LEAK"])
def tcn_forecaster_chomped_at_the_front(fixed):
    torch.manual_seed(24)
    model = TCN("causal" if fixed else "chomp-front")
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 1e-3),
                loss_fn=nn.L1Loss(), data=next_step_series(150))


class GRUForecaster(nn.Module):
    def __init__(self, bidirectional, outputs=1, last_only=False):
        super().__init__()
        self.last_only = last_only
        self.rnn = nn.GRU(3, 32, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(64 if bidirectional else 32, outputs)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]) if self.last_only else self.head(out).squeeze(-1)


@variant("future", ["FUTURE_LEAK"])
def bidirectional_gru_next_step_smooth_l1(fixed):
    torch.manual_seed(25)
    model = GRUForecaster(bidirectional=not fixed)                      # BUG
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.SmoothL1Loss(), data=next_step_series(150))


@variant("future", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED", "FUTURE_LEAK"])
def forecast_window_overlaps_input_window(fixed):
    """Input window steps 0..15, target window (series 0, 8 steps) starting at step 12 (BUG:
    its first 4 steps are inputs) instead of at step 16."""
    torch.manual_seed(26)
    start = 16 if fixed else 12
    data = ((s[:, :16], s[:, start:start + 8, 0]) for s in series(150, length=24))
    model = GRUForecaster(bidirectional=False, outputs=8, last_only=True)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.HuberLoss(), data=data)


# =================================================================== 2. BATCH_MIXING

@variant("batch mixing", ["BATCH_MIXING"])
def log_softmax_over_batch_axis(fixed):
    torch.manual_seed(30)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10),
                          nn.LogSoftmax(dim=1 if fixed else 0))          # BUG: dim=0
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.NLLLoss(), data=digits(120))


class TimeMajorGRU(nn.Module):
    """A time-major GRU (batch_first=False) fed (B, T, F) rows reshaped with view (BUG)."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.rnn = nn.GRU(8, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        b, t, f = x.shape
        x = x.transpose(0, 1) if self.fixed else x.view(t, b, f)          # BUG
        out, _ = self.rnn(x)
        return self.head(out[-1])


@variant("batch mixing", ["BATCH_MIXING", "RESHAPE_USED_AS_TRANSPOSE"])
def gru_input_viewed_time_major(fixed):
    torch.manual_seed(31)
    model = TimeMajorGRU(fixed)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class RowsTransformer(nn.Module):
    """A transformer encoder over the 8 pixel rows, mean-pooled; built without
    batch_first=True (BUG), so (B, T, E) is read as (T, B, E): attention over the batch."""

    def __init__(self, fixed):
        super().__init__()
        self.rows = nn.Linear(8, 32)
        self.position = nn.Parameter(torch.randn(8, 32) * 0.1)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=fixed)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.encoder(self.rows(x) + self.position).mean(dim=1))


@variant("batch mixing", ["BATCH_MIXING", "LAYOUT_NOT_TRANSPOSED"])
def transformer_encoder_without_batch_first(fixed):
    torch.manual_seed(32)
    model = RowsTransformer(fixed)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 2e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class LSTMAttentionPool(nn.Module):
    """A batch-first LSTM, then nn.MultiheadAttention at its default (T, B, E) layout
    given the (B, T, E) outputs (BUG): each step attends over the batch's samples."""

    def __init__(self, fixed):
        super().__init__()
        self.rnn = nn.LSTM(8, 32, batch_first=True)
        self.attention = nn.MultiheadAttention(32, 4, batch_first=fixed)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h, _ = self.rnn(x)
        a, _ = self.attention(h, h, h)
        return self.head(a.mean(dim=1))


@variant("batch mixing", ["BATCH_MIXING", "LAYOUT_NOT_TRANSPOSED"])
def multihead_attention_default_layout_on_batch_first(fixed):
    torch.manual_seed(33)
    model = LSTMAttentionPool(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class NormalisedEmbedding(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.axis = 1 if fixed else 0
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(10 * F.normalize(self.body(x), dim=self.axis))      # BUG: dim=0


@variant("batch mixing", ["EMBEDDINGS_NORMALIZED_OVER_BATCH", "BATCH_MIXING"])
def embedding_normalised_over_batch_axis(fixed):
    torch.manual_seed(34)
    model = NormalisedEmbedding(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class TimeMajorAttentionPool(nn.Module):
    """A time-major GRU (T, B, H); attention scores (T, B) normalised with softmax over
    dim=1 - the batch (BUG) - instead of dim=0, the time steps."""

    def __init__(self, fixed):
        super().__init__()
        self.axis = 0 if fixed else 1
        self.rnn = nn.GRU(8, 32)
        self.score = nn.Linear(32, 1)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        out, _ = self.rnn(x.transpose(0, 1))                             # (T, B, H)
        weights = F.softmax(self.score(out).squeeze(-1), dim=self.axis)   # (T, B)
        return self.head((weights[..., None] * out).sum(dim=0))


@variant("batch mixing", ["BATCH_MIXING"])
def time_major_attention_softmax_over_batch(fixed):
    torch.manual_seed(35)
    model = TimeMajorAttentionPool(fixed)
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 2e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class HandLayerNormGRU(nn.Module):
    """A hand-written layer norm on the GRU's last state taken over dim=0 - the batch (BUG)
    - instead of dim=-1, the features."""

    def __init__(self, fixed):
        super().__init__()
        self.axis = -1 if fixed else 0
        self.rnn = nn.GRU(8, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h = self.rnn(x)[0][:, -1]
        h = (h - h.mean(self.axis, keepdim=True)) / (h.std(self.axis, keepdim=True) + 1e-5)
        return self.head(h)


@variant("batch mixing", ["BATCH_MIXING"])
def hand_layer_norm_over_batch_axis(fixed):
    torch.manual_seed(36)
    model = HandLayerNormGRU(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


# ============================================================= 3. copied labels

class Seq2SeqGRU(nn.Module):
    """Encoder GRU reads characters 0..11 of a window; the decoder GRU predicts characters
    13..24 by teacher forcing. Fixed: its inputs are 12..23 (shifted by one). BUG: its
    inputs are 13..24 - the very characters it is asked for.
    Still missed: the window is handed whole and sliced inside forward, so the twin's
    targets are in its input too (its last 12 ids); only the dependence of output j on
    input 13 + j tells them apart. The alignment reads offsets up to 4 (here 13), and the
    target-window probe reads float series whose targets run past the input's end only."""

    def __init__(self, vocab, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, 32)
        self.encoder = nn.GRU(32, 64, batch_first=True)
        self.decoder = nn.GRU(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, w):                                  # (B, 25)
        _, state = self.encoder(self.embed(w[:, :12]))
        given = w[:, 12:24] if self.fixed else w[:, 13:25]               # BUG
        return self.head(self.decoder(self.embed(given), state)[0])


@variant("copied labels", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def seq2seq_decoder_fed_the_current_target(fixed):
    torch.manual_seed(40)
    data, vocab = windows(120, length=24)
    model = Seq2SeqGRU(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lm_loss, data=((w, w[:, 13:25]) for w in data))


@variant("copied labels", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def series_target_shifted_by_zero(fixed):
    """A forecaster's target is series 0 at the SAME steps as its inputs (BUG: shift 0)."""
    torch.manual_seed(41)
    shift = 1 if fixed else 0
    data = ((s[:, :24], s[:, shift:24 + shift, 0]) for s in series(150, length=25))
    model = GRUForecaster(bidirectional=False)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.HuberLoss(), data=data)


@variant("copied labels", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def transformer_lm_targets_not_shifted(fixed):
    """A causal transformer LM whose targets are its input window (BUG), not the window
    moved by one: position t sees its own target."""
    torch.manual_seed(42)
    data, vocab = windows(120, length=24)
    model = EncoderLM(vocab, causal_float_mask)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lm_loss,
                data=((w[:, :-1], w[:, 1:] if fixed else w[:, :-1]) for w in data))


@variant("copied labels", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def gru_lm_predicts_the_previous_character(fixed):
    """Inputs w[1:], targets w[:-1] (BUG: the shift written the wrong way round): a
    left-to-right GRU has already read each target."""
    torch.manual_seed(43)
    data, vocab = windows(120, length=24)
    model = CharGRU(vocab)
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 2e-3),
                loss_fn=lm_loss,
                data=((w[:, :-1], w[:, 1:]) if fixed else (w[:, 1:], w[:, :-1])
                      for w in data))


@variant("copied labels", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def one_hot_label_columns_in_features(fixed):
    """A table built with its one-hot label columns still in it (BUG): NLLLoss."""
    torch.manual_seed(44)
    x, y = classification()
    extra = torch.zeros(len(y), 10) if fixed else F.one_hot(y, 10).float()
    model = nn.Sequential(nn.Linear(74, 64), nn.ReLU(), nn.Linear(64, 10), nn.LogSoftmax(1))
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1, momentum=0.9),
                loss_fn=nn.NLLLoss(), data=batches(torch.cat([x, extra], 1), y, 120))


@variant("copied labels", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def regression_target_left_in_features(fixed):
    """The standardised regression target kept as the last feature column (BUG)."""
    torch.manual_seed(45)
    x, y = regression()
    x = torch.cat([x, (x[:, :1] if fixed else y[:, None])], 1)
    model = nn.Sequential(nn.Linear(65, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.02),
                loss_fn=nn.MSELoss(), data=batches(x, y, 150))


# ================================================================ 4. training loops

def _mlp(width=64):
    return nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, 10))


@variant("loop", ["GRADIENTS_ACCUMULATING"])
def backward_called_twice_per_step(fixed):
    """loss.backward(retain_graph=True) then a second loss.backward() (a leftover from
    logging): every gradient is twice the loss's, SGD moves at twice its rate.
    Still missed, and harmless here: at twice the rate the bug run learns better than its
    twin (0.40 against 0.98). Its only trace is a gradient 2x the loss's, which watch does
    not compare (it would need the output layer's gradient against the loss's logits)."""
    torch.manual_seed(50)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), 0.1)
    loss_fn = nn.CrossEntropyLoss()

    def step(xb, yb):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward(retain_graph=not fixed)
        if not fixed:
            loss.backward()                                              # BUG
        optimizer.step()
        return loss
    return dict(model=model, optimizer=optimizer, step=step, data=digits(120))


class RowsLSTM(nn.Module):
    def __init__(self, dropout=0.0, layers=1):
        super().__init__()
        self.rnn = nn.LSTM(8, 32, layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.rnn(x)[0][:, -1])


@variant("loop", ["OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING"])
def model_rebuilt_after_optimizer(fixed):
    """model = RowsLSTM() again after the optimizer was built (a notebook cell re-run)."""
    torch.manual_seed(51)
    model = RowsLSTM()
    optimizer = torch.optim.RMSprop(model.parameters(), 2e-3)
    if not fixed:
        model = RowsLSTM()                                               # BUG
    return dict(model=model, optimizer=optimizer, loss_fn=nn.CrossEntropyLoss(), data=rows(150))


@variant("loop", ["OPTIMIZER_MISSING_PARAMS"])
def optimizer_over_transformer_encoder_only(fixed):
    """AdamW(model.encoder.parameters()): the embedding, positions and head stay random."""
    torch.manual_seed(52)
    data, vocab = next_chars()
    model = EncoderLM(vocab, causal_float_mask)
    params = model.parameters() if fixed else model.encoder.parameters()  # BUG
    return dict(model=model, optimizer=torch.optim.AdamW(params, 3e-3), loss_fn=lm_loss,
                data=data)


def _scheduled(model, optimizer, make, per_batch_bug, fixed, data, loss_fn):
    scheduler = make(optimizer)

    def after(i):
        if (not fixed and per_batch_bug) or (i + 1) % EPOCH == 0:
            scheduler.step()
    return dict(model=model, optimizer=optimizer, loss_fn=loss_fn, data=data, after=after)


@variant("loop", ["LR_AT_ZERO", "SCHEDULE_LENGTH_MISMATCH"])
def step_lr_stepped_every_batch(fixed):
    """StepLR(step_size=2, gamma=0.5) meant per epoch, stepped every batch (BUG)."""
    torch.manual_seed(53)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)
    return _scheduled(model, optimizer, lambda o: torch.optim.lr_scheduler.StepLR(o, 2, 0.5),
                      True, fixed, digits(150), nn.CrossEntropyLoss())


@variant("loop", ["LR_AT_ZERO", "SCHEDULE_LENGTH_MISMATCH"])
def exponential_lr_stepped_every_batch_gru(fixed):
    """ExponentialLR(gamma=0.8) per epoch, stepped every batch (BUG): 0.8 ** 150."""
    torch.manual_seed(54)
    model = RowsLSTM()
    optimizer = torch.optim.Adam(model.parameters(), 3e-3)
    return _scheduled(model, optimizer,
                      lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.8),
                      True, fixed, rows(150), nn.CrossEntropyLoss())


@variant("loop", ["SCHEDULE_LENGTH_MISMATCH", "LR_AT_ZERO"])
def cosine_annealing_in_epochs_stepped_every_batch(fixed):
    """CosineAnnealingLR(T_max=6 epochs) stepped every batch (BUG): the rate falls to 0 at
    batch 6 and cycles every 12 batches."""
    torch.manual_seed(55)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(128, 10))
    optimizer = torch.optim.AdamW(model.parameters(), 3e-3)
    return _scheduled(model, optimizer,
                      lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 6),
                      True, fixed, digits(150, images=True), nn.CrossEntropyLoss())


@variant("loop", ["FRAMEWORK_WARNING"])
def scheduler_stepped_before_optimizer(fixed):
    """A per-epoch MultiStepLR stepped at the START of each epoch, before the first
    optimizer.step() (BUG): torch warns, and the first epoch's rate is skipped.
    Still missed: the run learns as well as its twin; torch's warning is its only trace,
    which watch keeps as an info FRAMEWORK_WARNING when Python shows it (this table, like
    bench_real_bugs, runs with warnings ignored)."""
    torch.manual_seed(56)
    model = _mlp()
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [1, 3], 0.3)
    at_start = (lambda i: scheduler.step() if i % EPOCH == 0 else None)
    at_end = (lambda i: scheduler.step() if (i + 1) % EPOCH == 0 else None)
    return dict(model=model, optimizer=optimizer, loss_fn=nn.CrossEntropyLoss(),
                data=digits(150), before=None if fixed else at_start,
                after=at_end if fixed else None)


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def two_layer_lstm_with_dropout_in_eval_mode(fixed):
    """A 2-layer LSTM with inter-layer dropout 0.3; model.eval() left from an evaluation."""
    torch.manual_seed(57)
    model = RowsLSTM(dropout=0.3, layers=2)
    model.eval()
    if fixed:
        model.train()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def transformer_lm_eval_after_sampling(fixed):
    """Every 40 batches the LM samples text under model.eval(); train() never comes back.
    Still missed: from step 40 on, the default schedule records step 64 only (128 is past
    the run's 120), and TRAINING_IN_EVAL_MODE wants two recorded steps; the mode at the end
    of the run is not observed (it would take a new observation at findings)."""
    torch.manual_seed(58)
    data, vocab = next_chars()
    model = EncoderLM(vocab, causal_float_mask, dropout=0.2)
    prompt = torch.zeros(1, 8, dtype=torch.long)

    def before(i):
        if i and i % 40 == 0:
            model.eval()
            with torch.no_grad():
                model(prompt)
            if fixed:
                model.train()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lm_loss, data=data, before=before)


@variant("loop", ["NO_GRADIENT", "PARAMS_NOT_UPDATING"])
def forward_under_no_grad_loss_forced_to_require_grad(fixed):
    """The step runs under torch.no_grad() (copied from the evaluation loop); backward()
    failed, so the loss was given requires_grad_() (BUG): nothing reaches the weights."""
    torch.manual_seed(59)
    model = _mlp()
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step(xb, yb):
        optimizer.zero_grad()
        if fixed:
            loss = loss_fn(model(xb), yb)
        else:
            with torch.no_grad():
                loss = loss_fn(model(xb), yb)
            loss.requires_grad_()                                        # BUG
        loss.backward()
        optimizer.step()
        return loss
    return dict(model=model, optimizer=optimizer, step=step, data=digits(120))


class NoGradEncoder(nn.Module):
    """The GRU encoder runs under torch.no_grad() inside forward (BUG; it is random,
    nothing was loaded): only the head trains."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.rnn = nn.GRU(8, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        if self.fixed:
            out, _ = self.rnn(x)
        else:
            with torch.no_grad():
                out, _ = self.rnn(x)
        return self.head(out[:, -1])


@variant("loop", ["NO_GRADIENT", "PARAMS_NOT_UPDATING"])
def gru_encoder_under_no_grad_in_forward(fixed):
    torch.manual_seed(60)
    model = NoGradEncoder(fixed)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class DetachedFeatures(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Flatten())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h = self.body(x)
        return self.head(h if self.fixed else h.detach())               # BUG


@variant("loop", ["NO_GRADIENT", "PARAMS_NOT_UPDATING"])
def cnn_features_detached_before_head(fixed):
    torch.manual_seed(61)
    model = DetachedFeatures(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120, images=True))


# Left out: a stateful GRU whose hidden state is carried across batches without detach
# (backward(retain_graph=True) to silence the first error). It is not silent: the second
# backward through the previous batch's graph meets weights the optimizer changed in place,
# and torch raises "modified by an inplace operation" at step 1.


@variant("loop", ["EXPLODING_GRADIENTS", "LR_TOO_HIGH"])
def gradients_clipped_before_backward(fixed):
    """clip_grad_norm_(max_norm=0.5) called after zero_grad and BEFORE backward (BUG): it
    clips nothing, and plain SGD at a rate meant for clipped steps blows up. (The rate was set
    before scoring: at 1.5 the unclipped MLP still learned, so the bug did no harm; at 4 it
    fails and the clipped twin learns; at 8 the twin fails too.)"""
    torch.manual_seed(63)
    model = _mlp(128)
    optimizer = torch.optim.SGD(model.parameters(), 4.0)
    loss_fn = nn.CrossEntropyLoss()

    def step(xb, yb):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        if not fixed:
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)            # BUG: too early
        loss.backward()
        if fixed:
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        return loss
    return dict(model=model, optimizer=optimizer, step=step, data=digits(120))


# ================================================================ second wave
# Added after the first widenings (scored as they came in their own commit): inputs handed
# as a tuple (source, decoder input), a tagger fed tags, an embedding lookup under no_grad.

class CopyDecoder(nn.Module):
    """nn.Transformer-style encoder-decoder: the source is characters 0..11, the decoder
    reads characters 12..23 and predicts 13..24. Fixed: a causal tgt_mask. BUG: no tgt_mask,
    so decoder position t reads decoder input t + 1 - its own target."""

    def __init__(self, vocab, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, 32)
        self.position = nn.Parameter(torch.randn(12, 32) * 0.1)
        self.model = nn.Transformer(32, 2, 1, 1, 64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(32, vocab)

    def forward(self, inputs):
        source, given = inputs
        mask = causal_float_mask(given.shape[1]) if self.fixed else None        # BUG
        out = self.model(self.embed(source) + self.position, self.embed(given) + self.position,
                         tgt_mask=mask)
        return self.head(out)


@variant("future", ["FUTURE_LEAK"])
def transformer_decoder_without_tgt_mask(fixed):
    torch.manual_seed(27)
    data, vocab = windows(120, length=24)
    model = CopyDecoder(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3),
                loss_fn=lm_loss, data=(((w[:, :12], w[:, 12:24]), w[:, 13:25]) for w in data))


class CaseTagger(nn.Module):
    """A GRU tags each character as upper case or not; it is also fed the previous tag
    (an autoregressive tagger). Fixed: the tags shifted by one (previous tag). BUG: the tag
    of the same position."""

    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.tag = nn.Embedding(2, 8)
        self.rnn = nn.GRU(40, 32, batch_first=True)
        self.head = nn.Linear(32, 2)

    def forward(self, inputs):
        ids, tags = inputs
        return self.head(self.rnn(torch.cat([self.embed(ids), self.tag(tags)], -1))[0])


@variant("copied labels", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def tagger_fed_the_tag_of_its_own_position(fixed):
    torch.manual_seed(46)
    ids, vocab = characters()
    upper = torch.tensor([c.isupper() for c in
                          open(cv_sonnets(), encoding="utf-8").read()], dtype=torch.long)
    g = torch.Generator().manual_seed(0)

    def data():
        for _ in range(120):
            starts = torch.randint(0, len(ids) - 26, (32,), generator=g)
            w = torch.stack([ids[s:s + 25] for s in starts.tolist()])
            t = torch.stack([upper[s:s + 25] for s in starts.tolist()])
            yield (w[:, 1:], t[:, :-1] if fixed else t[:, 1:]), t[:, 1:]       # BUG
    model = CaseTagger(vocab)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lambda out, y: F.cross_entropy(out.transpose(1, 2), y), data=data())


def cv_sonnets():
    from benchmarks.real_bugs._common import SONNETS
    return SONNETS


class NoGradEmbedding(nn.Module):
    """A randomly initialised embedding looked up under torch.no_grad() (BUG: copied from
    a frozen-embedding recipe, nothing was loaded), then an LSTM LM."""

    def __init__(self, vocab, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.LSTM(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        if self.fixed:
            e = self.embed(ids)
        else:
            with torch.no_grad():
                e = self.embed(ids)
        return self.head(self.rnn(e)[0])


@variant("loop", ["NO_GRADIENT", "PARAMS_NOT_UPDATING"])
def random_embedding_looked_up_under_no_grad(fixed):
    torch.manual_seed(64)
    data, vocab = next_chars()
    model = NoGradEmbedding(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 2e-3),
                loss_fn=lm_loss, data=data)


# ------------------------------------------------------------------------ scoring

def score(v, **watch):
    """(verdict, bug codes, twin codes, twin loss first->last, seconds) for one variant."""
    return variant_scoring.score(v, lambda variant, fixed: train(variant.build(fixed), **watch))


def main(argv=()):
    watch = {"overhead": None} if "--every" in argv else {}
    torch.set_num_threads(1)
    return variant_scoring.print_table(variant_scoring.select(VARIANTS, argv),
                                       lambda v: score(v, **watch))


if __name__ == "__main__":
    main(sys.argv[1:])
