"""A two-task image model (an image encoder, an autoregressive "ingredient" decoder and a
"recipe" decoder that reads the image features and the true ingredients) whose ingredient
decoder returns its stacked step logits through ``.data``: ``torch.stack(logits, 1).data``
is a tensor with no history, so the ingredient loss has no gradient. Nothing fails,
because the recipe loss added to it still has one: ``loss.backward()`` runs, the encoder
and the recipe decoder train, the total loss falls, and the ingredient decoder stays at its
random start, predicting ingredients no better than chance.

Reported: "Requires_grad is False" - https://github.com/facebookresearch/inversecooking/issues/3
("logits = torch.stack(logits, 1).data --> logits = torch.stack(logits, 1)"; fixed by the
maintainers). Here the 8x8 digits (last 400 rows held out): the "ingredients" of an image
are its digit and an end token, decoded greedily by a GRU cell fed its own previous
prediction; the "recipe" is the mirrored image, decoded from the image features and the
true digit (teacher forcing, as the recipe decoder reads the true ingredients). Loss:
cross-entropy over the two ingredient steps plus the recipe's mean squared error; Adam
1e-3, batches of 64, 300 steps.
Fix: stack the logits without ``.data``.

Measured (held-out accuracy of the first decoded ingredient, the digit): 0.060 with the
bug, 0.873 fixed; seeds + 1000: 0.098 vs 0.885.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Requires_grad is False"
LINK = "https://github.com/facebookresearch/inversecooking/issues/3"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "NO_GRADIENT")
STEPS = 300
HELD_OUT = 400
END = 10                       # the end-of-ingredients token
STEPS_DECODED = 2


class IngredientDecoder(nn.Module):
    """Greedy autoregressive decoder over 10 digits + the end token."""

    def __init__(self, features, stacked_through_data, hidden=64):
        super().__init__()
        self.start = nn.Linear(features, hidden)
        self.embed = nn.Embedding(END + 2, hidden)          # + a start token
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, END + 1)
        self.stacked_through_data = stacked_through_data

    def sample(self, features):
        state = torch.tanh(self.start(features))
        token = torch.full((features.shape[0],), END + 1, dtype=torch.long)
        logits = []
        for _ in range(STEPS_DECODED):
            state = self.cell(self.embed(token), state)
            step = self.out(state)
            logits.append(step)
            token = step.argmax(-1)
        if self.stacked_through_data:          # BUG: .data drops the decoder's history
            return torch.stack(logits, 1).data
        return torch.stack(logits, 1)


class InverseDigits(nn.Module):
    def __init__(self, stacked_through_data):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.ingredients = IngredientDecoder(64, stacked_through_data)
        self.recipe = nn.Sequential(nn.Linear(64 + 10, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x, true_digit):
        features = self.encoder(x)
        ingredient_logits = self.ingredients.sample(features)
        recipe = self.recipe(torch.cat([features, F.one_hot(true_digit, 10).float()], 1))
        return ingredient_logits, recipe


def mirrored(x):
    return x.view(-1, 8, 8).flip(-1).reshape(-1, 64)


@torch.no_grad()
def first_ingredient_accuracy(model, x, y):
    model.eval()
    logits, _ = model(x, y)
    model.train()
    return round((logits[:, 0].argmax(-1) == y).float().mean().item(), 4)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x, y, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = InverseDigits(stacked_through_data=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            ingredient_logits, recipe = model(xb, yb)
            targets = torch.stack([yb, torch.full_like(yb, END)], 1)
            ingredient_loss = F.cross_entropy(ingredient_logits.reshape(-1, END + 1),
                                              targets.reshape(-1))
            loss = ingredient_loss + F.mse_loss(recipe, mirrored(xb))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = first_ingredient_accuracy(model, x_test, y_test)
    return mon
