"""A batch processed one image at a time whose per-image loss is assigned, not added:
``loss = loss_fn(...)`` inside the loop over the batch, ``loss.backward()`` after it.
Each step's gradient comes from the batch's last image alone; the other images are run
through the model, scored, and thrown away, so the model trains on one image in
sixteen, with a batch of one's noisy steps.

Reported: "apply_gradients might not handle batches correctly" -
https://github.com/dmarcosg/DSAC/issues/6 ("only the last image of the batch has an
influence on the values of the gradients array. The values of these arrays are
re-initialized for each j (i.e. each image of the batch) and only the last value is
passed to apply_gradients. The first images of the batch hence seem to have no impact
whatsoever on the weights of the network"; with a batch of one "everything works as
expected but for other sizes, it won't"). The report's loop is TensorFlow's; here the same
loop in torch: a small digits CNN, 16 images a step, one forward pass each. Fix: add the
per-image losses (and divide by the batch size) before the one backward().

Measured (150 steps, the last 297 digits held out): accuracy 0.10 with only the last
image's loss back-propagated (one image's step at the batch's learning rate: the loss
swings between 0.5 and 3 and never settles), 0.87 with the batch's mean loss.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "apply_gradients might not handle batches correctly"
LINK = "https://github.com/dmarcosg/DSAC/issues/6"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED",)
STEPS = 150
BATCH_SIZE = 16
HELD_OUT = 297


def small_cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(8 * 4 * 4, 10))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, batch_size=BATCH_SIZE):
            optimizer.zero_grad()
            loss = 0
            for j in range(len(xb)):
                image_loss = loss_fn(model(xb[j:j + 1]), yb[j:j + 1])
                if fixed:
                    loss = loss + image_loss / len(xb)
                else:
                    loss = image_loss       # BUG: each image's loss replaces the one before
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
        mon.held_out_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
