"""Multi-label targets read from one label file per scene category, by column POSITION,
while some of the files list their label columns in a different order: for the images of
those categories a label moved in the header now lands in another label's column. The
training runs, the loss falls, and the model learns, for a third of its images, that the
wrong labels are present.

Reported: "Order of labels differs across categories" -
https://github.com/cugbrs/MLRSNet/issues/4 ("The order of labels in the csv files provided in
the 'labels' directory differs between some categories. Taking the order in 'airplane.csv'
as the correct order (alphabetical), I found the following differences ... desert.csv -
'chaparral' moved between 'water' and 'wetland' ..."; found by diffing the files' header
lines while trying to reach the published F1 scores). Here collages of 2x2 digit cells, 10
labels "digit d appears"; the category of an image (the file its row comes from) is the
digit in its top-left cell; the files of three categories move a label of their header
elsewhere, and the loader takes every file's columns in the first file's order.

Measured (300 steps, 600 held-out collages labelled correctly, logit > 0): the bug's
micro-F1 0.60, the fixed twin's 0.67; ranked (each image's top-k labels, k its true
count) 0.67 against 0.76.
Fix: select each file's columns by name (``frame[label_names]``), not by position.

Why watch misses it: the files are read before training. Every row that reaches the loss
is a valid multi-hot row with the usual number of labels; only the rows of three categories
have some columns swapped, which shows as noisier labels for some inputs - what genuinely
hard labels look like too. Which file a row came from, and its header, never reach watch.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._digit_collages import collages, digits_present

TITLE = "Order of labels differs across categories"
LINK = "https://github.com/cugbrs/MLRSNet/issues/4"
EXPECTED = ("LABEL_COLUMNS_PERMUTED_FOR_SOME_ROWS",)
STEPS = 300
# category file -> (label moved, position it was moved to) in that file's header
MOVED = {2: (1, 8), 5: (3, 9), 7: (0, 6)}


def file_order(category):
    """The label ids in the order of that category's header line."""
    order = list(range(10))
    if category in MOVED:
        label, position = MOVED[category]
        order.remove(label)
        order.insert(position, label)
    return torch.tensor(order)


def as_stored(y, categories):
    """Each row's labels as its category's file stores them (in the file's column order)."""
    stored = y.clone()
    for category in MOVED:
        rows = categories == category
        stored[rows] = y[rows][:, file_order(category)]
    return stored


def load(stored, categories, fixed):
    """The targets the training reads from the stored rows."""
    if not fixed:
        return stored                       # BUG: columns taken by position in every file
    y = torch.empty_like(stored)
    for category in range(10):
        rows = categories == category
        y[rows] = torch.zeros_like(stored[rows]).index_copy(
            1, file_order(category), stored[rows])
    return y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, cells = collages(3000)
    x, cells = x[cells[:, 0] >= 0], cells[cells[:, 0] >= 0]   # every image has a category
    categories = cells[:, 0]
    y = load(as_stored(digits_present(cells), categories), categories, fixed)
    net = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    return train_watched(net, optimizer, nn.BCEWithLogitsLoss(), batches(x, y, steps), **watch)
