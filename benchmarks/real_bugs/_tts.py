"""Shared pieces of real-bug batch 126 (text-to-speech): a synthetic phoneme-to-mel corpus
and small Tacotron-style / FastSpeech-style models.

The corpus: "phonemes" are ids 1..VOCAB-1 (0 pads), 3..7 per utterance. Each phoneme lasts
1..4 frames (its own class plus whether the NEXT phoneme is a long one, so a model has to
read its neighbour), and each frame is an 8-bin "mel" frame: the phoneme's template, moved
towards the next phoneme's template over the phoneme's span (co-articulation), plus noise.
Frames are padded with zeros after the end (the silence Tacotron pads with).
"""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import index_batches  # noqa: F401  (cases import it here)

VOCAB = 12
MELS = 8
MAX_TEXT = 7
MAX_FRAMES = 30
TRAIN, HELD_OUT = 1536, 384


def durations_of(text):
    """Frames per phoneme: 1 + id % 3, one more when the next phoneme is a long class."""
    out = []
    for i, p in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else 0
        out.append(1 + p % 3 + (1 if nxt >= 7 else 0))
    return out


def corpus(seed=0, final_lengthening=False):
    """(train, held_out), each a dict of text (N, MAX_TEXT) int64, text_len (N,), mel
    (N, MAX_FRAMES, MELS) float32 zero-padded, mel_len (N,), dur (N, MAX_TEXT) int64, pitch
    (N, MAX_TEXT) float32 in Hz (0 on padding)."""
    rng = np.random.default_rng(seed)
    templates = rng.normal(0.0, 1.0, (VOCAB, MELS)).astype(np.float32)
    templates[0] = 0.0
    n = TRAIN + HELD_OUT
    text = np.zeros((n, MAX_TEXT), np.int64)
    dur = np.zeros((n, MAX_TEXT), np.int64)
    mel = np.zeros((n, MAX_FRAMES, MELS), np.float32)
    text_len = np.zeros(n, np.int64)
    mel_len = np.zeros(n, np.int64)
    pitch = np.zeros((n, MAX_TEXT), np.float32)
    for k in range(n):
        length = int(rng.integers(3, MAX_TEXT + 1))
        phones = rng.integers(1, VOCAB, length).tolist()
        d = durations_of(phones)
        if final_lengthening:       # the last phoneme held 0..3 extra frames, at random
            d[-1] += int(rng.integers(0, 4))
        text[k, :length], dur[k, :length], text_len[k] = phones, d, length
        # pitch in Hz per phoneme: the phoneme's own level, falling along the utterance
        pitch[k, :length] = (200 + 30 * templates[phones, 0] - 8 * np.arange(length)
                             + rng.normal(0.0, 3.0, length))
        t = 0
        for i, (p, di) in enumerate(zip(phones, d)):
            nxt = phones[i + 1] if i + 1 < length else p
            for j in range(di):
                w = (j + 1) / (di + 1) * 0.5
                mel[k, t] = (1 - w) * templates[p] + w * templates[nxt]
                t += 1
        mel_len[k] = t
        mel[k, :t] += rng.normal(0.0, 0.05, (t, MELS)).astype(np.float32)
    data = dict(text=text, dur=dur, mel=mel, text_len=text_len, mel_len=mel_len, pitch=pitch)
    data = {key: torch.from_numpy(value) for key, value in data.items()}
    train = {key: value[:TRAIN] for key, value in data.items()}
    held = {key: value[TRAIN:] for key, value in data.items()}
    return train, held




def frame_mask(mel_len, frames=MAX_FRAMES):
    """(B, frames) True on real frames."""
    return torch.arange(frames)[None, :] < mel_len[:, None]


class TacoLite(nn.Module):
    """Tacotron-style autoregressive decoder without attention (the text reaches it as the
    encoder GRU's last state): a GRU reads the previous frame (teacher-forced, zeros as the
    go frame) through a pre-net (dropout ``prenet_dropout`` in training mode), a linear
    layer gives the next frame and (``stop_head``) a stop-token logit."""

    def __init__(self, hidden=64, prenet_dropout=0.0, stop_head=True):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.encoder = nn.GRU(32, hidden, batch_first=True)
        self.prenet = nn.Sequential(nn.Linear(MELS, 32), nn.ReLU(), nn.Dropout(prenet_dropout))
        self.decoder = nn.GRU(32, hidden, batch_first=True)
        self.to_mel = nn.Linear(hidden, MELS)
        self.to_stop = nn.Linear(hidden, 1) if stop_head else None

    def encode(self, text, text_len):
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(text), text_len,
                                                   batch_first=True, enforce_sorted=False)
        return self.encoder(packed)[1]                     # (1, B, hidden)

    def forward(self, text, text_len, mel):
        state = self.encode(text, text_len)
        previous = torch.cat([torch.zeros_like(mel[:, :1]), mel[:, :-1]], dim=1)
        out, _ = self.decoder(self.prenet(previous), state)
        stop = self.to_stop(out).squeeze(-1) if self.to_stop is not None else None
        return self.to_mel(out), stop

    @torch.no_grad()
    def generate(self, text, text_len, max_frames=MAX_FRAMES + 10):
        """Free-running decoding; the length is the first frame whose stop probability
        passes 0.5 (plus one), or max_frames when none does."""
        state = self.encode(text, text_len)
        frame = torch.zeros(len(text), 1, MELS)
        lengths = torch.full((len(text),), max_frames)
        frames = []
        for t in range(max_frames):
            out, state = self.decoder(self.prenet(frame), state)
            frame = self.to_mel(out)
            frames.append(frame)
            if self.to_stop is None:
                continue
            stop = torch.sigmoid(self.to_stop(out)).squeeze(-1).squeeze(-1) > 0.5
            lengths = torch.where(stop & (lengths == max_frames), torch.tensor(t + 1), lengths)
        return torch.cat(frames, dim=1), lengths


def length_report(model, held):
    """Free-running stop on held-out text: the share of utterances that stop within one
    frame of the true length, and the share that never stop."""
    model.eval()
    _, lengths = model.generate(held["text"], held["text_len"])
    model.train()
    close = ((lengths - held["mel_len"]).abs() <= 1).float().mean().item()
    never = (lengths == MAX_FRAMES + 10).float().mean().item()
    return {"length_within_1": round(close, 3), "never_stops": round(never, 3)}


def sinusoids(length, dim):
    position = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(1e4) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


class FastSpeechLite(nn.Module):
    """FastSpeech-style: embedding + sinusoidal positions (multiplied by a mask, as
    speechbrain's FastSpeech2 does) -> transformer encoder -> a duration predictor (log
    frames) and, expanded by the true durations, a frame decoder."""

    def __init__(self, dim=32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, 2, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.duration = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 1))
        self.decoder = nn.Sequential(nn.Linear(dim + 1, 64), nn.ReLU(), nn.Linear(64, MELS))

    def forward(self, text, position_mask, dur):
        pad = text == 0
        pos = sinusoids(text.shape[1], self.dim)[None] * position_mask[..., None].float()
        hidden = self.encoder(self.embed(text) + pos, src_key_padding_mask=pad)
        log_dur = self.duration(hidden).squeeze(-1)
        expanded, phase = regulate(hidden, dur)
        mel = self.decoder(torch.cat([expanded, phase[..., None]], dim=-1))
        return log_dur, mel


def regulate(hidden, dur, frames=MAX_FRAMES):
    """Length regulator: each phoneme's state repeated over its frames, (B, frames, dim),
    and each frame's place inside its phoneme (0..1)."""
    index = torch.repeat_interleave(torch.arange(dur.shape[1]).repeat(len(dur)), dur.flatten())
    batch = torch.repeat_interleave(torch.arange(len(dur)), dur.sum(1))
    ends = torch.cumsum(dur, 1)
    starts = ends - dur
    frame_no = torch.arange(len(index)) - torch.repeat_interleave(      # within utterance
        torch.cat([torch.zeros(1, dtype=torch.long), dur.sum(1).cumsum(0)[:-1]]), dur.sum(1))
    local = frame_no - starts[batch, index]
    phase = (local + 1).float() / (dur[batch, index] + 1).float()
    out = hidden.new_zeros(len(dur), frames, hidden.shape[-1])
    ph = hidden.new_zeros(len(dur), frames)
    out[batch, frame_no] = hidden[batch, index]
    ph[batch, frame_no] = phase
    return out, ph


@torch.no_grad()
def stop_report(model, held):
    """Teacher-forced stop predictions on held-out utterances: recall of p(stop) > 0.5 on
    the frames from the last real frame on (padding included), false stops before it, and
    the free-running length report."""
    model.eval()
    _, logit = model(held["text"], held["text_len"], held["mel"])
    model.train()
    stop = torch.sigmoid(logit) > 0.5
    after = ~frame_mask(held["mel_len"] - 1)
    report = {"stop_recall_past_end": round(stop[after].float().mean().item(), 3),
              "false_stops": round(stop[~after].float().mean().item(), 3)}
    report.update(length_report(model, held))
    return report


class TacoAttention(nn.Module):
    """Tacotron-1-style decoder with content-based (Bahdanau) attention over a GRU text
    encoder: a pre-net (two ReLU layers, dropout ``prenet_dropout`` when ``dropout_on``)
    reads the previous frame, an attention GRU cell reads it with the last context, and a
    linear layer reads the state and the new context to give the frame."""

    def __init__(self, hidden=64, prenet_dropout=0.5):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.encoder = nn.GRU(32, hidden // 2, batch_first=True, bidirectional=True)
        self.pre1, self.pre2 = nn.Linear(MELS, 64), nn.Linear(64, 32)
        self.p = prenet_dropout
        self.cell = nn.GRUCell(32 + hidden, hidden)
        self.query = nn.Linear(hidden, hidden, bias=False)
        self.keys = nn.Linear(hidden, hidden)
        self.score = nn.Linear(hidden, 1, bias=False)
        self.out = nn.Linear(2 * hidden, MELS)

    def prenet(self, frame, dropout_on):
        x = F.dropout(F.relu(self.pre1(frame)), self.p, training=dropout_on)
        return F.dropout(F.relu(self.pre2(x)), self.p, training=dropout_on)

    def forward(self, text, mel, dropout_on, free_running=False):
        memory = self.encoder(self.embed(text))[0]            # (B, L, hidden)
        keys = self.keys(memory)
        pad = text == 0
        state = memory.new_zeros(len(text), memory.shape[-1])
        context = memory.new_zeros(len(text), memory.shape[-1])
        frame = mel.new_zeros(len(text), MELS)
        outputs = []
        for t in range(mel.shape[1]):
            state = self.cell(torch.cat([self.prenet(frame, dropout_on), context], -1), state)
            energy = self.score(torch.tanh(keys + self.query(state)[:, None])).squeeze(-1)
            weights = torch.softmax(energy.masked_fill(pad, -1e9), dim=-1)
            context = (weights[..., None] * memory).sum(1)
            out = self.out(torch.cat([state, context], -1))
            outputs.append(out)
            frame = out if free_running else mel[:, t]
        return torch.stack(outputs, 1)


class FastSpeechPitch(FastSpeechLite):
    """FastSpeechLite with a FastSpeech2-style pitch predictor (one value per phoneme) on
    the encoder's output, beside the duration predictor."""

    def __init__(self, dim=32):
        super().__init__(dim)
        self.pitch = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, text, position_mask, dur):
        pad = text == 0
        pos = sinusoids(text.shape[1], self.dim)[None] * position_mask[..., None].float()
        hidden = self.encoder(self.embed(text) + pos, src_key_padding_mask=pad)
        log_dur = self.duration(hidden).squeeze(-1)
        pitch = self.pitch(hidden).squeeze(-1)
        expanded, phase = regulate(hidden, dur)
        mel = self.decoder(torch.cat([expanded, phase[..., None]], dim=-1))
        return log_dur, pitch, mel


SILENCE = 0.25      # a frame whose bins all lie within +-SILENCE of 0 counts as silence


@torch.no_grad()
def silence_length_report(model, held, max_frames=MAX_FRAMES + 10):
    """Tacotron-1 stopping: free-running synthesis ends at the first predicted frame that
    is silence (all bins within SILENCE of 0); the share of held-out utterances whose last
    non-silent frame falls within one frame of the true length, and the share never
    reaching silence."""
    model.eval()
    frames, _ = model.generate(held["text"], held["text_len"], max_frames)
    model.train()
    silent = frames.abs().amax(-1) < SILENCE                       # (B, max_frames)
    first = torch.where(silent.any(1), silent.float().argmax(1), torch.tensor(max_frames))
    close = ((first - held["mel_len"]).abs() <= 1).float().mean().item()
    never = (first == max_frames).float().mean().item()
    return {"length_within_1": round(close, 3), "never_silent": round(never, 3)}


# ---- real-bug batch 201 (vocoders and spectrogram losses): a synthetic voiced-sound corpus
# and a small mel-to-waveform generator. A clip is SAMPLES samples at a nominal RATE Hz: a
# harmonic tone whose pitch glides (80..400 Hz), its harmonics falling off as k^-1.5 under a
# random formant bump, plus a little noise, at a per-clip gain drawn log-uniformly in
# [GAIN_LOW, 1]. Spectrograms: a Hann STFT (N_FFT, HOP), a triangular mel filterbank of N_MELS
# bands, and the log of its magnitudes (floored at LOG_FLOOR), as HiFi-GAN's meldataset does.
RATE, SAMPLES, N_FFT, HOP, N_MELS = 8000, 1024, 128, 32, 16
GAIN_LOW, LOG_FLOOR = 0.01, 1e-5


def _hz_to_mel(hz):
    return 2595.0 * np.log10(1.0 + hz / 700.0)


def mel_filterbank():
    """(N_MELS, N_FFT // 2 + 1) triangular filters equally spaced on the mel scale."""
    bins = np.linspace(0, RATE / 2, N_FFT // 2 + 1)
    edges = 700.0 * (10 ** (np.linspace(0, _hz_to_mel(RATE / 2), N_MELS + 2) / 2595.0) - 1)
    bank = np.zeros((N_MELS, len(bins)), np.float32)
    for m in range(N_MELS):
        low, mid, high = edges[m:m + 3]
        bank[m] = np.clip(np.minimum((bins - low) / (mid - low), (high - bins) / (high - mid)),
                          0, None)
    return torch.from_numpy(bank)


FILTERS = mel_filterbank()
WINDOW = torch.hann_window(N_FFT)


def magnitudes(wave):
    """|STFT| (B, N_FFT // 2 + 1, frames) of (B, samples) waveforms."""
    return torch.stft(wave, N_FFT, HOP, window=WINDOW, return_complex=True).abs()


def linear_mel(wave):
    """Mel-band magnitudes (B, N_MELS, frames)."""
    return FILTERS @ magnitudes(wave)


def log_mel(wave):
    return torch.log(torch.clamp(linear_mel(wave), min=LOG_FLOOR))


def voiced_clips(n, seed=0):
    """(n, SAMPLES) float32 waveforms (see above) and their gains (n,)."""
    rng = np.random.default_rng(seed)
    t = np.arange(SAMPLES) / RATE
    waves = np.zeros((n, SAMPLES), np.float32)
    gains = np.exp(rng.uniform(np.log(GAIN_LOW), 0.0, n)).astype(np.float32)
    for k in range(n):
        f_start, f_end = rng.uniform(80, 400, 2)
        f0 = f_start + (f_end - f_start) * t / t[-1]
        phase = 2 * np.pi * np.cumsum(f0) / RATE + rng.uniform(0, 2 * np.pi)
        formant, width = rng.uniform(300, 3000), rng.uniform(300, 900)
        wave = np.zeros(SAMPLES)
        for h in range(1, int(RATE / 2 / f0.max())):
            amp = h ** -1.5 * (1 + 3 * np.exp(-((h * f0.mean() - formant) / width) ** 2))
            wave += amp * np.sin(h * phase)
        wave += rng.normal(0, 0.003, SAMPLES)
        waves[k] = gains[k] * wave / np.abs(wave).max()
    return torch.from_numpy(waves), torch.from_numpy(gains)


def vocoder_corpus(seed=0, train=1024, held_out=256):
    """(train, held_out) dicts of wave (N, SAMPLES), mel (N, N_MELS, frames) log-mel input,
    gain (N,)."""
    waves, gains = voiced_clips(train + held_out, seed)
    mels = log_mel(waves)
    split = lambda s: {"wave": waves[s], "mel": mels[s], "gain": gains[s]}    # noqa: E731
    return split(slice(0, train)), split(slice(train, None))


class FrameVocoder(nn.Module):
    """Mel-to-waveform generator: 1-D convolutions over the log-mel frames, each frame's
    output channels laid out as its HOP samples (a one-step upsampler), cut to SAMPLES."""

    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(N_MELS, hidden, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv1d(hidden, hidden, 3, padding=1), nn.LeakyReLU(0.1),
            nn.Conv1d(hidden, HOP, 3, padding=1))

    def forward(self, mel):
        out = self.net(mel)                                  # (B, HOP, frames)
        return out.transpose(1, 2).reshape(len(mel), -1)[:, :SAMPLES]


@torch.no_grad()
def held_out_log_mel_error(model, held):
    """Mean absolute log-mel distance (nats) of the generated waveforms on held-out clips."""
    model.eval()
    error = (log_mel(model(held["mel"])) - held["mel"]).abs().mean().item()
    model.train()
    return round(error, 3)


class WaveDiscriminator(nn.Module):
    """A small strided 1-D convolutional waveform discriminator (one scale of MelGAN's),
    giving its score map and its hidden feature maps (for feature matching)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv1d(1, 16, 15, 4, 7), nn.Conv1d(16, 32, 15, 4, 7),
                                     nn.Conv1d(32, 32, 5, 2, 2)])
        self.out = nn.Conv1d(32, 1, 3, 1, 1)

    def forward(self, wave):
        x, features = wave[:, None], []
        for layer in self.layers:
            x = F.leaky_relu(layer(x), 0.1)
            features.append(x)
        return self.out(x), features
