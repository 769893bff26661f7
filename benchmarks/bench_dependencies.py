"""Benchmark: publicly reported sequence-model bugs, reproduced, and what check_dependencies says.

Each case below rebuilds, as a small torch model, one bug that someone reported in public
(the report's address and title are in the case's docstring), together with its healthy
twin - the same model with the fix the report (or its answer) gives. The reports were
chosen for being real and common, not for what the probes catch: one of them (padding
that attention does not mask) was missed when the benchmark was first run, and the
PADDING_LEAK probe was written afterwards.

For each case ``nd.check_dependencies(model, inputs, targets)`` runs on the buggy model
and on its twin, exactly as a user would call it (the targets are the ones that reach the
loss). Scored:

    found        the first warning/error names the expected cause
    wrong        warnings/errors, but the first one names something else
    (the table also shows where the first finding says the dependence is made)
    missed       no warning or error
    false alarm  a warning or error on the healthy twin

Run:  python -m benchmarks.bench_dependencies      (a few seconds on one core)
"""
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np

if __package__ in (None, ""):   # run as a script: make the project importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch                                    # noqa: E402
from torch import nn                            # noqa: E402
import torch.nn.functional as F                 # noqa: E402

VOCAB, LENGTH, BATCH, DIM, HEADS = 16, 12, 4, 16, 2


@dataclass
class Case:
    name: str
    expected: tuple      # finding codes that name the cause
    build: object        # build(bug: bool) -> (model, inputs, targets)
    report: str          # "address - title" (from the docstring's first lines)


CASES = []


def case(name, *expected):
    def register(build):
        lines = [line.strip() for line in build.__doc__.strip().splitlines()]
        CASES.append(Case(name, expected, build, f"{lines[0]} - {lines[1]}"))
        return build
    return register


# --- shared pieces ------------------------------------------------------------------------------

def token_batch(seed=0):
    """(ids, next-token targets) of a counting task: seq[:, :-1] and seq[:, 1:]."""
    rng = np.random.default_rng(seed)
    start = rng.integers(0, VOCAB, size=(BATCH, 1))
    stride = rng.integers(1, 4, size=(BATCH, 1))
    seq = torch.from_numpy((start + stride * np.arange(LENGTH + 1)) % VOCAB)
    return seq[:, :-1], seq[:, 1:]


def causal_hidden(length):
    """True above the diagonal: the positions a causal query may not see."""
    return torch.triu(torch.ones(length, length, dtype=torch.bool), 1)


class Heads(nn.Module):
    """q, k, v split into heads the standard way: (B, T, E) -> (B, H, T, d)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).split(DIM, dim=2)
        return [t.view(B, T, HEADS, DIM // HEADS).transpose(1, 2) for t in (q, k, v)]


class LM(nn.Module):
    """token + position embedding -> one attention block (given) -> head."""

    def __init__(self, block):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(LENGTH, DIM)
        self.block = block
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
        return self.head(x + self.block(x))


# --- FUTURE_LEAK --------------------------------------------------------------------------------

@case("minGPT masked_bias -1e4", "FUTURE_LEAK")
def gpt2_masked_bias(bug):
    """https://github.com/karpathy/minGPT/issues/75
    Perfect training and evaluation loss, but terrible test-time performance

    GPT-2's attention replaced the scores above the diagonal by masked_bias = -1e4 (torch.where,
    not an addition). Trained with a high learning rate, the real scores sank below -1e4, so the
    "masked" future got the largest weights and the model copied it. Reproduced in that trained
    state (query/key biases that put every score near -1.5e4); the fix (transformers) fills with
    torch.finfo(dtype).min instead.
    """
    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = Heads()
            with torch.no_grad():
                self.heads.qkv.weight.mul_(0.01)
                self.heads.qkv.bias[:DIM].fill_(45.0)          # queries ~ +45
                self.heads.qkv.bias[DIM:2 * DIM].fill_(-45.0)  # keys ~ -45: scores ~ -1.6e4
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.heads(x)
            scores = q @ k.transpose(-2, -1)
            fill = torch.tensor(-1e4 if bug else torch.finfo(scores.dtype).min, dtype=scores.dtype)
            scores = torch.where(causal_hidden(T), fill, scores)
            y = scores.softmax(-1) @ v
            return self.proj(y.transpose(1, 2).reshape(B, T, DIM))

    ids, targets = token_batch()
    return LM(Attention()), ids, targets


@case("CausalLM ignores is_decoder", "FUTURE_LEAK")
def causal_flag_ignored(bug):
    """https://github.com/huggingface/transformers/issues/48745
    RoFormerForCausalLM, BigBirdForCausalLM, RemBertForCausalLM, MegatronBertForCausalLM attend to future tokens since v5.9.0 - CLM training loss collapses

    The models were built with is_decoder=True, but the attention read another flag to decide
    whether to apply the causal mask, so every position saw the tokens after it and the loss
    collapsed towards zero on random tokens.
    """
    class Attention(nn.Module):
        def __init__(self, is_decoder=True):
            super().__init__()
            self.is_decoder = is_decoder
            self.heads = Heads()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.heads(x)
            causal = getattr(self, "is_causal", False) if bug else self.is_decoder
            y = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return self.proj(y.transpose(1, 2).reshape(B, T, DIM))

    ids, targets = token_batch()
    return LM(Attention()), ids, targets


@case("TransformerDecoder without tgt_mask", "FUTURE_LEAK")
def decoder_without_tgt_mask(bug):
    """https://github.com/alex-matton/causal-transformer-decoder/issues/1
    No causal masking

    An nn.TransformerDecoder trained on whole target sequences without a tgt_mask: "the network
    can simply copy tokens to the output" (also pytorch/tutorials#719: masks not passed during
    training). The fix passes tgt_mask=nn.Transformer.generate_square_subsequent_mask(T).
    """
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, DIM)
            self.pos = nn.Embedding(LENGTH, DIM)
            layer = nn.TransformerDecoderLayer(DIM, HEADS, 32, dropout=0.1, batch_first=True)
            self.decoder = nn.TransformerDecoder(layer, 1)
            self.memory = nn.Parameter(torch.randn(1, 3, DIM))
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, ids):
            T = ids.shape[1]
            x = self.tok(ids) + self.pos(torch.arange(T))
            mask = None if bug else nn.Transformer.generate_square_subsequent_mask(T)
            memory = self.memory.expand(ids.shape[0], -1, -1)
            return self.head(self.decoder(x, memory, tgt_mask=mask))

    ids, targets = token_batch()
    return Decoder(), ids, targets


@case("LayerNorm over the sequence", "FUTURE_LEAK")
def layer_norm_over_sequence(bug):
    """https://github.com/jadore801120/attention-is-all-you-need-pytorch/pull/17
    Correct LayerNormalization

    The hand-written LayerNormalization computed mean and standard deviation along seq_len
    instead of the features; in the (masked) decoder that puts every later position into
    each position's normalisation. The fix normalises over the last dimension.
    """
    class LayerNormalization(nn.Module):
        def __init__(self, eps=1e-3):
            super().__init__()
            self.eps = eps
            self.a = nn.Parameter(torch.ones(DIM))
            self.b = nn.Parameter(torch.zeros(DIM))

        def forward(self, z):
            axis = 1 if bug else -1
            mu = z.mean(dim=axis, keepdim=True)
            sigma = z.std(dim=axis, keepdim=True)
            return (z - mu) / (sigma + self.eps) * self.a + self.b

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = LayerNormalization()
            self.heads = Heads()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.heads(self.norm(x))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(B, T, DIM))

    ids, targets = token_batch()
    return LM(Block()), ids, targets


@case("heads merged without permute", "FUTURE_LEAK")
def heads_merged_without_permute(bug):
    """https://github.com/jsbaan/transformer-from-scratch/pull/6
    Fix several bugs, one critical

    After scaled_dot_product the values are (batch, heads, seq_len, d); reshaping them to
    (batch, seq_len, heads * d) without permute(0, 2, 1, 3) splices chunks of other positions
    into each token's embedding - in the causal decoder, chunks of later positions.
    """
    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = Heads()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.heads(x)
            values = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if not bug:
                values = values.permute(0, 2, 1, 3)
            return self.proj(values.reshape(B, T, DIM))

    ids, targets = token_batch()
    return LM(Attention()), ids, targets


# --- BATCH_MIXING -------------------------------------------------------------------------------

@case("softmax without dim on 3-D scores", "BATCH_MIXING")
def softmax_implicit_dim(bug):
    """https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/19
    Masking bug?

    98% accuracy from a model far too small to earn it; the answer lists "softmax over the wrong
    dimension" first: "F.softmax has strange default behavior, normalizing over dim 0 for 3D
    inputs" - over the batch of (batch * heads, T, T) scores. (Masked with -1e9, as many
    implementations do: with -inf the softmax over dim 0 gives NaN, which is loud.) The fix
    gives dim=-1.
    """
    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = Heads()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = (t.reshape(B * HEADS, T, -1) for t in self.heads(x))
            scores = (q @ k.transpose(1, 2)).masked_fill(causal_hidden(T), -1e9)
            attn = F.softmax(scores) if bug else F.softmax(scores, dim=-1)
            y = (attn @ v).view(B, HEADS, T, -1).transpose(1, 2).reshape(B, T, DIM)
            return self.proj(y)

    ids, targets = token_batch()
    return LM(Attention()), ids, targets


@case("heads viewed as (heads, batch)", "BATCH_MIXING")
def heads_viewed_head_major(bug):
    """https://github.com/gazelle93/Transformer-Various-Positional-Encoding/issues/1
    Bug in MHA

    The attention output is (batch * heads, T, d) in batch-major order, but was viewed as
    (num_heads, batch, T, d) before merging the heads, so each sample's output is assembled
    from other samples' heads. The fix views it as (batch, num_heads, T, d).
    """
    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = Heads()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = (t.reshape(B * HEADS, T, -1) for t in self.heads(x))
            out = F.scaled_dot_product_attention(q, k, v)           # (B * H, T, d)
            if bug:
                out = out.view(HEADS, B, T, -1).transpose(0, 1)
            else:
                out = out.view(B, HEADS, T, -1)
            return self.proj(out.permute(0, 2, 1, 3).reshape(B, T, DIM))

    ids, _ = token_batch()
    return LM(Attention()), ids, None          # a bidirectional encoder: no next-token targets


@case("MultiheadAttention fed batch-first", "BATCH_MIXING")
def attention_batch_first_missing(bug):
    """https://github.com/aipixel/AEMatter/issues/3
    Possible issue with Multihead attention inputs

    Image features rearranged to (batch * rows, pixels, channels) - batch first - were passed to
    an nn.MultiheadAttention built with the default batch_first=False, so attention ran across
    the batch. (The same in om-ai-lab/OmDet#19.) The fix is batch_first=True.
    """
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj_in = nn.Conv2d(3, DIM, 1)
            self.attn = nn.MultiheadAttention(DIM, HEADS, batch_first=not bug)
            self.proj_out = nn.Conv2d(DIM, 3, 1)

        def forward(self, img):
            h = self.proj_in(img)
            b, c, rows, width = h.shape
            seq = h.permute(0, 2, 3, 1).reshape(b * rows, width, c)   # batch-first
            out, _ = self.attn(seq, seq, seq)
            out = out.reshape(b, rows, width, c).permute(0, 3, 1, 2)
            return self.proj_out(h + out)

    img = torch.randn(BATCH, 3, 4, 6, generator=torch.Generator().manual_seed(0))
    return Block(), img, None


@case("tutorial PositionalEncoding on batch-first", "BATCH_MIXING", "POSITIONS_IGNORED")
def positional_encoding_batch_first(bug):
    """https://github.com/tanjimin/C.Origami/issues/42
    A problem in the PositionalEncoding model code

    The PyTorch tutorial's PositionalEncoding (pe of shape (max_len, 1, d), x + pe[:x.size(0)])
    expects (seq, batch, d); fed batch-first tensors it adds one encoding per *sample* and none
    per position. Either finding names it: outputs that depend on the place in the batch, or
    positions that make no difference. The fix slices pe by x.size(1) in a (1, max_len, d) table.
    """
    class PositionalEncoding(nn.Module):
        def __init__(self, max_len=64):
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, DIM, 2) * (-math.log(10000.0) / DIM))
            pe = torch.zeros(max_len, 1, DIM)
            pe[:, 0, 0::2] = torch.sin(position * div_term)
            pe[:, 0, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe)

        def forward(self, x):
            if bug:
                return x + self.pe[:x.size(0)]                 # (B, 1, d): per sample
            return x + self.pe[:x.size(1)].transpose(0, 1)     # (1, T, d): per position

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(5, DIM)
            self.pos_encoder = PositionalEncoding()
            layer = nn.TransformerEncoderLayer(DIM, HEADS, 32, dropout=0.1, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.out = nn.Linear(DIM, 1)

        def forward(self, x):
            return self.out(self.encoder(self.pos_encoder(self.embed(x))))

    x = torch.randn(BATCH, LENGTH, 5, generator=torch.Generator().manual_seed(0))
    return Encoder(), x, None


# --- TARGETS_IN_INPUTS / LABELS_MISALIGNED ----------------------------------------------------------

@case("captioning labels not shifted", "TARGETS_IN_INPUTS")
def captioning_labels_unshifted(bug):
    """https://github.com/KempnerInstitute/KempnerForge/issues/154
    VLM captioning loss collapses to 0: labels not shifted for next-token

    The tokenizer aligned labels to the input positions (labels[i] == input_ids[i]) and the loss
    did not shift, so each logit was scored against the token already visible: the loss went to
    0.0000 silently. The fix shifts the labels for next-token prediction.
    """
    class Captioner(nn.Module):
        def __init__(self):
            super().__init__()
            self.image = nn.Linear(8, DIM)
            self.tok = nn.Embedding(VOCAB, DIM)
            self.pos = nn.Embedding(LENGTH, DIM)
            self.heads = Heads()
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, input_ids, pixels):
            B, T = input_ids.shape
            x = self.tok(input_ids) + self.pos(torch.arange(T)) + self.image(pixels)[:, None]
            q, k, v = self.heads(x)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.head(x + y.transpose(1, 2).reshape(B, T, DIM))

    ids, next_tokens = token_batch()
    pixels = torch.randn(BATCH, 8, generator=torch.Generator().manual_seed(0))
    return Captioner(), (ids, pixels), ids.clone() if bug else next_tokens


@case("labels shifted twice", "LABELS_MISALIGNED")
def labels_shifted_twice(bug):
    """https://github.com/huggingface/transformers/pull/44642
    Clarify that causal LM labels are shifted internally

    Causal LM models shift labels inside the loss; users who pre-shift their labels "end up
    training next-next-token prediction by accident" (#32944). Reproduced as the loss sees it:
    logits[:, :-1] against labels[:, 1:], where labels were already input_ids shifted by one.
    The fix passes labels = input_ids.
    """
    ids, next_tokens = token_batch()
    labels = next_tokens if bug else ids           # bug: shifted by the user, then by the model
    return HFStyleLM(), ids, labels[:, 1:]         # what the loss compares with logits[:, :-1]


class HFStyleLM(nn.Module):
    """A causal LM that shifts inside, as Hugging Face's do: it returns logits[:, :-1], which
    its loss compares with labels[:, 1:]."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(LENGTH, DIM)
        self.heads = Heads()
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        B, T = ids.shape
        x = self.tok(ids) + self.pos(torch.arange(T))
        q, k, v = self.heads(x)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.head(x + y.transpose(1, 2).reshape(B, T, DIM))[:, :-1]


# --- PADDING_LEAK ----------------------------------------------------------------------------------

@case("padding not masked in self-attention", "PADDING_LEAK")
def padding_not_masked(bug):
    """https://github.com/IDEA-Research/GroundingDINO/issues/427
    Why are we not masking padding tokens in text self attention mask ?

    The text encoder's self-attention let real tokens attend to the padding tokens of shorter
    captions, so a caption's features depend on how much it was padded. When this benchmark
    was first run no probe looked at padding and this case was missed; the PADDING_LEAK probe
    was written after it, so this one case is not an unseen test of that probe. The fix passes
    key_padding_mask.
    """
    class TextEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, DIM, padding_idx=0)
            self.pos = nn.Embedding(LENGTH, DIM)
            self.attn = nn.MultiheadAttention(DIM, HEADS, batch_first=True)
            self.out = nn.Linear(DIM, DIM)

        def forward(self, ids, pad):
            x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))
            y, _ = self.attn(x, x, x, key_padding_mask=None if bug else pad)
            return self.out(x + y)

    ids, _ = token_batch()
    ids = ids.clone()
    pad = torch.zeros_like(ids, dtype=torch.bool)
    pad[::2, -4:] = True
    ids[pad] = 0
    return TextEncoder(), (ids, pad), None


# --- running and scoring -----------------------------------------------------------------------------

def score(case_, bug):
    import nndebug as nd
    torch.manual_seed(0)
    model, inputs, targets = case_.build(bug)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = nd.check_dependencies(model, inputs, targets)
    seconds = time.perf_counter() - started
    found = [f for f in res.findings if f.severity in ("warning", "error")]
    serious = [f.code + (f" @ {f.where}" if f.where else "") for f in found][:1] + \
        [f.code for f in found[1:]]
    if not bug:
        return ("quiet" if not serious else "FALSE ALARM"), serious, seconds
    if not serious:
        return "missed", serious, seconds
    return ("found" if found[0].code in case_.expected else "wrong"), serious, seconds


def run():
    rows = []
    for case_ in CASES:
        verdict, codes, seconds = score(case_, bug=True)
        twin, twin_codes, twin_seconds = score(case_, bug=False)
        rows.append((case_, verdict, codes, twin, twin_codes, seconds + twin_seconds))
    return rows


def main():
    torch.set_num_threads(1)
    rows = run()
    print(f"{'case':42s} {'expected':30s} {'buggy model (first finding @ where)':44s} {'healthy twin':14s} {'s':>5s}")
    for case_, verdict, codes, twin, twin_codes, seconds in rows:
        said = f"{verdict} ({', '.join(codes) or '-'})"
        twin_said = twin if not twin_codes else f"{twin} ({', '.join(twin_codes)})"
        print(f"{case_.name:42s} {'/'.join(case_.expected):30s} {said:44s} {twin_said:14s} "
              f"{seconds:5.2f}")
    counts = {k: sum(r[1] == k for r in rows) for k in ("found", "wrong", "missed")}
    alarms = sum(r[3] != "quiet" for r in rows)
    print(f"\n{len(rows)} reports: {counts['found']} found, {counts['wrong']} wrong, "
          f"{counts['missed']} missed; {alarms} false alarms on the {len(rows)} healthy twins")
    print("\nreports:")
    for case_ in CASES:
        print(f"  {case_.name}: {case_.report}")


if __name__ == "__main__":
    main()
