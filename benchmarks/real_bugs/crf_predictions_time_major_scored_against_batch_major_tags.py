"""A BiLSTM-CRF tagger trained correctly but scored wrongly: its decoder returns the tags
time-major, (seq_len, batch), as a CRF that takes (seq_len, batch, tags) emissions does,
while the gold tags are stored batch-major, (batch, seq_len); both are flattened to one
vector and compared position by position. Each predicted tag is set against another
sentence's word. The held-out accuracy and F1 come out near the majority-tag level,
however well the model tags, except at batch size 1, where the two layouts flatten alike.

Reported: "The f1 score only increases when the batch size =1" -
https://github.com/kmkurn/pytorch-crf/issues/45 (a BiLSTM+CRF for NER whose loss fell while
F1 stayed at 0.12 and the outputs looked like all O; with batch size 1 F1 rose to 0.91;
the reporter found the cause: the gold labels were (batch_size, seq_len) and the
predictions (seq_len, batch_size), both flattened to one vector for the accuracy and F1,
so the labels did not match; transposing fixed it). Here: the hand-written CRF of
benchmarks/real_bugs/_crf_tagging.py, its Viterbi paths laid out time-major as the
reporter's were, held-out token accuracy over the real (unpadded) words.
Fix: transpose the predictions to (batch, seq_len) before flattening.

Measured (300 Adam steps, batch 32, 400 held-out sentences scored in batches of 100): seed
0, held-out token accuracy 0.456 with the bug against 0.954 fixed (the model is the same);
seeds shifted by 1000, 0.492 against 0.958.
"""
import torch

from benchmarks.real_bugs._crf_tagging import length_mask, train_tagger, trimmed

TITLE = "The f1 score only increases when the batch size =1"
LINK = "https://github.com/kmkurn/pytorch-crf/issues/45"
EXPECTED = ("PREDICTIONS_SCORED_IN_ANOTHER_LAYOUT",)
STEPS = 300


@torch.no_grad()
def held_out_accuracy(model, held, fixed, batch_size=100):
    ids, tags, lengths = held
    model.eval()
    right = total = 0
    for start in range(0, len(ids), batch_size):
        index = torch.arange(start, min(start + batch_size, len(ids)))
        words, gold, size = trimmed(ids, tags, lengths, index)
        paths = model.viterbi(model(words, size), size)
        predicted = torch.zeros(words.shape[1], len(index), dtype=torch.long)  # time-major
        for b, path in enumerate(paths):
            predicted[:len(path), b] = torch.tensor(path)
        if fixed:
            predicted = predicted.T              # (batch, seq_len), as the gold tags are
        # BUG (fixed=False): a (seq_len, batch) tensor flattened against (batch, seq_len)
        real = length_mask(size, words.shape[1]).reshape(-1)
        same = predicted.reshape(-1) == gold.reshape(-1)
        right += int(same[real].sum())
        total += int(real.sum())
    model.train()
    return right / total


def run(fixed=False, steps=STEPS, **watch):
    mon, model, held = train_tagger(steps, **watch)
    mon.held_out_accuracy = held_out_accuracy(model, held, fixed)
    return mon
