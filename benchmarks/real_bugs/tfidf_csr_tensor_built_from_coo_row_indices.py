"""TF-IDF features moved from scipy to torch through ``torch.sparse_csr_tensor`` with the
COO row index of every stored value passed where CSR wants the compressed row pointers
(``crow_indices``, one start per row). Nothing checks it: row i of the densified matrix
takes the values between positions row[i] and row[i+1] of the stored list, so the first
few documents' words are scattered over the first few dozen rows and every other row
comes out all zeros. The network trains on blank inputs and learns only the class
frequencies.

Reported: "Error of producing csr sparse matrix by 'torch.sparse_csr_tensor'" -
https://github.com/pytorch/pytorch/issues/102808 (``torch.sparse_csr_tensor(il, il, lam)``
with the row and column index of each value silently gives a wrong matrix where scipy's
``csr_matrix((lam, (il, il)))`` gives the diagonal: the first argument of
``sparse_csr_tensor`` is the compressed row pointer, not the row index). Here 4-topic
documents as text, TfidfVectorizer fitted on the training split, the sparse matrices
densified by that conversion, a 400-64-4 MLP, Adam lr 3e-3, batches of 32. Fix:
``torch.sparse_csr_tensor(X.indptr, X.indices, X.data, size=X.shape)`` (or
``X.toarray()``).

Measured (held-out accuracy on 800 documents, bug vs fixed): seed 0: 0.265 vs 0.974;
seeds + 1000: 0.254 vs 0.971.
"""
import numpy as np
import torch
from sklearn.feature_extraction.text import TfidfVectorizer
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bow import CLASSES, accuracy, documents, texts

TITLE = "Error of producing csr sparse matrix by 'torch.sparse_csr_tensor'"
LINK = "https://github.com/pytorch/pytorch/issues/102808"
EXPECTED = ("CONSTANT_INPUTS",)
STEPS = 200


def to_torch(matrix, fixed):
    values = torch.from_numpy(matrix.data.astype(np.float32))
    if fixed:
        crow = torch.from_numpy(matrix.indptr.astype(np.int64))
        col = torch.from_numpy(matrix.indices.astype(np.int64))
    else:                                    # BUG: COO row/col indices given to the CSR constructor
        coo = matrix.tocoo()
        crow = torch.from_numpy(coo.row.astype(np.int64))
        col = torch.from_numpy(coo.col.astype(np.int64))
    return torch.sparse_csr_tensor(crow, col, values, size=matrix.shape).to_dense()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    docs, y = documents(2800, topical=0.2)
    words = texts(docs)
    vectorizer = TfidfVectorizer()
    x_train = to_torch(vectorizer.fit_transform(words[:2000]), fixed)
    x_test = to_torch(vectorizer.transform(words[2000:]), fixed)
    y_train, y_test = y[:2000], y[2000:]
    model = nn.Sequential(nn.Linear(x_train.shape[1], 64), nn.ReLU(), nn.Linear(64, CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
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
