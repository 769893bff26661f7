"""A VQA model's question encoder embeds the padded question ids, (batch, words), and gives
the (batch, words, emb) tensor to an ``nn.LSTM`` built without ``batch_first=True``. The LSTM
reads axis 0 as time: it runs along the BATCH, one question after another, with the word
positions as its batch, and the "last state" picked per question at its length is the state
after reading every earlier question of the batch. Each question vector mixes the batch's
questions, and the attention over the image regions and the fusion are driven by it. Nothing
errors - the shapes fit either way; the answers are worse.

Reported: "Batch first in LSTM" - https://github.com/Cadene/vqa.pytorch/issues/40 ("we
should feed to the RNN inputs of shape (seq_len, batch, input_size) however it seems to me
that we are feeding inputs with shape (batch, seq_len, input_size). Therefore I believe
that the parameter batch_first should be set True."): vqa/models/seq2vec.py's ``LSTM`` and
``TwoLSTM`` question encoders build ``nn.LSTM(input_size=emb_size, hidden_size=...)`` and
feed it ``self.embedding(input)`` of the (batch, words) question ids, then ``select_last``
the output at each question's length. (The same repository's issue 20, a question model
trained with "embedding matrix + LSTM", reports its accuracy far below the skip-thoughts
encoder's.) No finding code names a recurrent layer given the wrong axis order; the nearest
is the consequence, BATCH_MIXING.
Here: questions about 2x2 digit collages ("which digit is in cell c?", "is there a d?", 13
answers) with the four cells' pixels as pre-extracted region features; the seq2vec LSTM
(padding id 0, last state at each question's length), attention over the regions from the
product of the tanh-projected region and question (MLB style), multiplicative fusion,
linear classifier, cross-entropy on the answer, Adam, batch 64; the held-out questions
scored in batches of 64.
Fix: ``nn.LSTM(..., batch_first=True)``.

Measured (400 steps, held-out answer accuracy on 1,024 questions): seed 0: 0.43 with the
bug, 0.85 fixed; seeds + 1000: 0.47 vs 0.85.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._captioning import (ANSWERS, QUESTION_VOCAB, drawn_seed,
                                              shuffled_batches, vqa_data)

TITLE = "Batch first in LSTM"
LINK = "https://github.com/Cadene/vqa.pytorch/issues/40"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
BATCH = 64
TRAIN, HELD_OUT = 3000, 1024


def process_lengths(questions):
    return questions.shape[1] - questions.eq(0).sum(1)


def select_last(x, lengths):
    """x[i, lengths[i] - 1] for every i (seq2vec's mask-and-sum, indexed)."""
    return x[torch.arange(x.shape[0]), lengths - 1]


class QuestionLSTM(nn.Module):
    def __init__(self, fixed, emb=32, hidden=64):
        super().__init__()
        self.embedding = nn.Embedding(QUESTION_VOCAB, emb, padding_idx=0)
        # BUG (fixed=False): no batch_first, so axis 0 (the batch) is read as time
        self.rnn = nn.LSTM(input_size=emb, hidden_size=hidden, batch_first=fixed)

    def forward(self, questions):
        lengths = process_lengths(questions)
        output, _ = self.rnn(self.embedding(questions))
        return select_last(output, lengths)


class AttentionVQA(nn.Module):
    def __init__(self, fixed, features=68, hidden=64):
        super().__init__()
        self.seq2vec = QuestionLSTM(fixed, hidden=hidden)
        self.att_v = nn.Linear(features, hidden)
        self.att_q = nn.Linear(hidden, hidden)
        self.att = nn.Linear(hidden, 1)
        self.fus_v = nn.Linear(features, hidden)
        self.fus_q = nn.Linear(hidden, hidden)
        self.classif = nn.Linear(hidden, ANSWERS)

    def forward(self, v, questions):
        q = self.seq2vec(questions)                                          # (N, hidden)
        joint = torch.tanh(self.att_v(v)) * torch.tanh(self.att_q(q))[:, None]
        weights = self.att(joint).softmax(1)                                 # over regions
        attended = (weights * v).sum(1)
        x = torch.tanh(self.fus_v(attended)) * torch.tanh(self.fus_q(q))
        return self.classif(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    regions, questions, answers = vqa_data(TRAIN, seed=data_seed)
    model = AttentionVQA(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            optimizer.zero_grad()
            loss = criterion(model(regions[index], questions[index]), answers[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held = vqa_data(HELD_OUT, held_out=True, seed=data_seed)
    hits = 0
    with torch.no_grad():
        for start in range(0, HELD_OUT, BATCH):
            v, q, a = (x[start:start + BATCH] for x in held)
            hits += (model(v, q).argmax(-1) == a).sum().item()
    mon.held_out_accuracy = hits / HELD_OUT
    mon.final_loss = loss.item()
    return mon
