"""Labelled sonnet stretches for the text-model cases of batch 53, in the id layouts
pretrained tokenizers use: BERT-style (padding 0, characters 1..vocab) and RoBERTa-style
(the start token <s> is 0, padding is 1, characters 2..vocab+1), padded per batch as a
collate function pads them (to the batch's longest row, plus ``extra``)."""
import torch

from benchmarks.real_bugs.padding_mask_broadcast_over_queries import snippets

BOS, ROBERTA_PAD = 0, 1


def bert_style(count, seed):
    """(ids, labels, vocab): stretches of 8-40 characters, 0 pads (see ``snippets``)."""
    return snippets(count, seed)


def roberta_style(count, seed):
    """(ids, labels, vocab) with <s> (id 0) first, characters shifted to 2.., padding 1."""
    ids, labels, vocab = snippets(count, seed)
    real = ids != 0
    shifted = torch.where(real, ids + 1, torch.full_like(ids, ROBERTA_PAD))
    with_bos = torch.cat([torch.full((len(ids), 1), BOS), shifted], dim=1)
    return with_bos, labels, vocab + 1


def batches(ids, labels, steps, pad_id, batch_size=32, extra=2, start=0):
    """``steps`` batches cut to the batch's longest real row + ``extra`` columns of padding
    (more columns than the rows hold are filled with ``pad_id``)."""
    for step in range(start, start + steps):
        rows = torch.arange(step * batch_size, (step + 1) * batch_size) % len(ids)
        width = int((ids[rows] != pad_id).sum(1).max()) + extra
        chunk = ids[rows, :min(width, ids.shape[1])]
        if width > chunk.shape[1]:
            fill = torch.full((len(rows), width - chunk.shape[1]), pad_id)
            chunk = torch.cat([chunk, fill], dim=1)
        yield chunk, labels[rows]


@torch.no_grad()
def accuracy(model, ids, labels, pad_id, extra, call=None):
    """Held-out accuracy with each batch padded ``extra`` columns past its longest row."""
    model.eval()
    call = call or model
    right = total = 0
    for xb, yb in batches(ids, labels, len(ids) // 256, pad_id, batch_size=256, extra=extra):
        right += int((call(xb).argmax(-1) == yb).sum())
        total += len(yb)
    model.train()
    return right / total
