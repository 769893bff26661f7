"""A bag-of-embeddings topic classifier fed fixed-length padded rows: ``nn.EmbeddingBag``
(mode "mean") built without ``padding_idx`` takes the 2-D (batch, 200) id matrix and
averages every position, the padding id 0 included. A short document's mean is mostly the
padding vector, its few words diluted by how much it was padded.

Reported: "Include padding_idx parameter for EmbeddingBag" -
https://github.com/pytorch/pytorch/issues/47858 ("when I am using nn.EmbeddingBag I cannot
specify the padding_idx parameter so the model can be thrown by the average being skewed
with longer sequences of text with lots of padding"; closed as a duplicate of #3194, and
``padding_idx`` has been accepted since). Here 4-topic documents of 2 to 60 word ids,
15% of them topic words, end-padded to a fixed 200; EmbeddingBag(400, 16, mean) then a
linear layer, Adam lr 5e-3, batches of 32. Fix: ``nn.EmbeddingBag(..., padding_idx=0)`` so the
mean runs over the real words only.

Measured (held-out accuracy on 800 documents, bug vs fixed): seed 0: 0.789 vs 0.923;
seeds + 1000: 0.524 vs 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bow import BagClassifier, PAD, accuracy, documents, padded

TITLE = "Include padding_idx parameter for EmbeddingBag"
LINK = "https://github.com/pytorch/pytorch/issues/47858"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 300
PAD_TO = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    docs, y = documents(2800, topical=0.15, min_len=2)
    x = padded(docs, PAD_TO)
    x_train, y_train, x_test, y_test = x[:2000], y[:2000], x[2000:], y[2000:]
    # BUG when not fixed: no padding_idx, so the mean counts every padded position
    model = BagClassifier(padding_idx=PAD if fixed else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, len(x_train), (32,))
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            mon.held_out_accuracy = accuracy(model(x_test), y_test)
    return mon
