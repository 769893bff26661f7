"""A causal language model trained on packed rows - several documents back to back in one
row, each with its own position ids restarting at 0 - whose attention is causal over the
whole row, not within each document. The restarted position ids were meant to keep the
documents apart; they only restart the position embedding. Every document reads the ones
packed before it, and where those repeat it (duplicates, one family of related sequences),
the model learns to copy from them instead of learning to predict a document on its own.

Reported: "Sequence packing not working as expected: looks like attention applied across
documents" - https://github.com/alex-hh/profam/issues/495 ("This mechanism is supposed to
work via passing in position IDs which indicate the position of the token within the
document ... the first document in the packed batch is instantiated with random input_ids,
then every other document in the packed batch has the same input IDs as the first. If
there is no attention between documents we would expect the accuracy to be approx 5% ...
With 20 documents in the batch the expected accuracy in this scenario is ~95% which is
exactly what we observe"). Here the reporter's test on text: rows of three copies of a
24-character window of the sonnets, each followed by an end-of-document id, a 2-layer
causal transformer. Fix: a block-diagonal causal mask, built from where the position ids
restart.

Measured (200 steps, seed 0; next-character accuracy on 512 held-out documents, each
alone in its row, as the model is used): bug: last training loss 0.73 (it copies the
earlier copies), accuracy 0.33; fixed: last training loss 1.98, accuracy 0.39.
Named by ATTENTION_CROSSES_DOCUMENTS (monitor/document_boundaries.py: the position ids
restart inside each row, and changing the first document moved the outputs of the next).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = ("Sequence packing not working as expected: looks like attention applied across "
         "documents")
LINK = "https://github.com/alex-hh/profam/issues/495"
EXPECTED = ("ATTENTION_CROSSES_DOCUMENTS",)
STEPS = 200
DOCUMENT = 24        # characters per document
COPIES = 3           # documents packed in a row (the first, then its repeats)


class PackedCausalLM(nn.Module):
    def __init__(self, vocab, per_document_mask, dim=64):
        super().__init__()
        self.per_document_mask = per_document_mask
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(DOCUMENT + 1, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.decoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, position_ids):
        x = self.embed(input_ids) + self.position(position_ids)
        length = input_ids.shape[1]
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        if self.per_document_mask:
            document = (position_ids == 0).cumsum(1)               # a new one at each 0
            other = document[:, :, None] != document[:, None, :]
            blocked = future | other                                 # (B, T, T)
            heads = self.decoder.layers[0].self_attn.num_heads
            mask = blocked.repeat_interleave(heads, dim=0)
        else:
            mask = future        # BUG: causal over the whole row, across documents
        return self.head(self.decoder(x, mask=mask))


def packed_rows(windows, end_id):
    """(input_ids, position_ids, targets) of rows [doc, END] * COPIES, shifted by one."""
    end = torch.full_like(windows[:, :1], end_id)
    document = torch.cat([windows, end], dim=1)
    row = document.repeat(1, COPIES)
    positions = torch.arange(DOCUMENT + 1).repeat(COPIES).expand(len(row), -1)
    return row[:, :-1], positions[:, :-1], row[:, 1:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = PackedCausalLM(vocab + 1, per_document_mask=fixed)      # + the end id
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=DOCUMENT - 1):
            input_ids, position_ids, targets = packed_rows(window, vocab)
            optimizer.zero_grad()
            logits = model(input_ids=input_ids, position_ids=position_ids)
            loss = F.cross_entropy(logits.transpose(1, 2), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_loss = loss.item()
    held_out = next(text_windows(ids, 1, batch_size=512, length=DOCUMENT - 1, seed=1))
    with torch.no_grad():
        positions = torch.arange(DOCUMENT).expand(len(held_out), -1)
        predicted = model(input_ids=held_out, position_ids=positions).argmax(-1)
    mon.measured_accuracy = (predicted[:, :-1] == held_out[:, 1:]).float().mean().item()
    return mon
