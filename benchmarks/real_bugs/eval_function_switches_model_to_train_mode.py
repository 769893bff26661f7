"""The evaluation function of a hand-written loop begins with model.train() where
model.eval() belongs (a copy of the training function's first line). Every evaluation then
runs with dropout still dropping half the hidden units and batch norm normalising each test
batch by its own statistics while folding them into its running averages. Training itself is
untouched (train_one_epoch sets train mode again), but every accuracy the script reports -
the per-epoch curve and the final number - is that of a noisy, test-normalised model.

Reported: "model.train in eval function" -
https://github.com/sshaoshuai/Pointnet2.PyTorch/issues/28 ("function `eval_one_epoch`
starts with setting `model.train()`, which is incorrect in my opinion. It should be
`model.eval()`."). The report's script: train_one_epoch / eval_one_epoch called in turn each
epoch, Adam, a classifier head with batch norm and dropout 0.5, evaluation in batches under
torch.no_grad(). Here the same loop on the 8x8 digits (an MLP 64 -> 128 -> 64 -> 10 with
BatchNorm1d and Dropout(0.5) after each hidden layer, batches of 32, Adam 1e-3, 8 epochs,
the last 360 digits evaluated in batches of 32 after each epoch).
Fix: model.eval() at the top of eval_one_epoch.

Measured (held-out accuracy as eval_one_epoch reports it after the last epoch): 0.836 with
the bug, 0.914 fixed; seeds + 1000: 0.853 vs 0.908.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "model.train in eval function"
LINK = "https://github.com/sshaoshuai/Pointnet2.PyTorch/issues/28"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 360              # 8 epochs of 45 batches


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y),
                                               batch_size=32, shuffle=True)
    test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_test, y_test),
                                              batch_size=32)
    epochs = max(1, steps // len(train_loader))
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def eval_one_epoch():
        if fixed:
            model.eval()
        else:
            model.train()          # BUG: copied from train_one_epoch
        total_loss, correct = 0.0, 0
        with torch.no_grad():
            for xb, yb in test_loader:
                logits = model(xb)
                total_loss += F.cross_entropy(logits, yb, reduction="sum").item()
                correct += (logits.argmax(1) == yb).sum().item()
        return total_loss / len(x_test), correct / len(x_test)

    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(epochs):
            model.train()                                  # train_one_epoch
            for index, (xb, yb) in enumerate(train_loader):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                val_loss = None
                if index == len(train_loader) - 1:         # then eval_one_epoch
                    val_loss, val_accuracy = eval_one_epoch()
                mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = val_accuracy
    return mon
