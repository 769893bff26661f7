"""Train a small character-level GPT on Shakespeare's sonnets, in minigrad and PyTorch at once.

    python -m minigrad.examples.char_gpt                       # 300 steps, both frameworks
    python -m minigrad.examples.char_gpt --steps 50 --plot losses.png
    python -m minigrad.examples.char_gpt --no-torch           # minigrad alone

Both models come from the same source (``minigrad.examples.models.make_gpt``);
torch's initial weights are copied into minigrad, both see the same batches and
both use AdamW with the same settings, so the two loss curves should lie on top
of each other (float32: they drift apart slowly, by rounding). At the end each
model writes a sample. With ``--attention sdpa`` the blocks call
``F.scaled_dot_product_attention`` instead of spelling attention out.
"""
import argparse
import time
from pathlib import Path

import numpy as np

from .models import make_gpt, minigrad_framework, torch_framework

TEXT = Path(__file__).with_name("sonnets.txt")


def load_text():
    text = TEXT.read_text(encoding="utf-8")
    chars = sorted(set(text))
    return text, chars, np.array([chars.index(c) for c in text], dtype=np.int64)


def batches(ids, steps, batch_size, block_size, seed):
    """The same random (inputs, next-character targets) windows for both frameworks."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - block_size - 1, batch_size)
        x = np.stack([ids[s:s + block_size] for s in starts])
        y = np.stack([ids[s + 1:s + block_size + 1] for s in starts])
        yield x, y


def sample(fw, model, chars, length, block_size, seed, start="\n"):
    """Generate ``length`` characters, each drawn from the model's softmax over the next one."""
    rng = np.random.default_rng(seed)
    ids = [chars.index(start)]
    model.eval()
    with fw.no_grad():
        for _ in range(length):
            context = np.array([ids[-block_size:]], dtype=np.int64)
            logits = fw.numpy(model(fw.tensor(context)))[0, -1].astype(np.float64)
            probs = np.exp(logits - logits.max())
            ids.append(int(rng.choice(len(chars), p=probs / probs.sum())))
    model.train()
    return "".join(chars[i] for i in ids[1:])


def build(args, vocab):
    """The minigrad model and, unless --no-torch, its torch twin with the same initial weights."""
    config = dict(block_size=args.block_size, n_embd=args.n_embd, n_head=args.n_head,
                  n_layer=args.n_layer, dropout=args.dropout, attention=args.attention,
                  gelu=args.gelu)
    mg_fw = minigrad_framework()
    mg_fw.manual_seed(args.seed)
    runs = {"minigrad": (mg_fw, make_gpt(mg_fw, vocab, **config))}
    if not args.no_torch:
        try:
            torch_fw = torch_framework()
        except ImportError:
            print("PyTorch is not installed: training minigrad alone")
            return runs
        torch_fw.manual_seed(args.seed)
        torch_model = make_gpt(torch_fw, vocab, **config)
        runs["minigrad"][1].load_state_dict(torch_model.state_dict())   # same starting point
        runs["torch"] = (torch_fw, torch_model)
    return runs


def train(args):
    """Train every run on the same batches; returns {name: {"losses": [...], "seconds": s}}."""
    text, chars, ids = load_text()
    runs = build(args, len(chars))
    results = {}
    for name, (fw, model) in runs.items():
        optimizer = fw.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
        losses, started = [], time.perf_counter()
        for x, y in batches(ids, args.steps, args.batch_size, args.block_size, args.seed):
            _, loss = model(fw.tensor(x), fw.tensor(y))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(fw.numpy(loss)))
        results[name] = dict(losses=losses, seconds=time.perf_counter() - started,
                             sample=sample(fw, model, chars, args.sample_length, args.block_size,
                                           args.seed))
    return results


def report(results, every):
    names = list(results)
    print(f"{'step':>6}" + "".join(f"{n + ' loss':>16}" for n in names))
    steps = len(results[names[0]]["losses"])
    for step in sorted(set(list(range(0, steps, every)) + [steps - 1])):
        print(f"{step:>6}" + "".join(f"{results[n]['losses'][step]:>16.4f}" for n in names))
    for n in names:
        per_step = 1000 * results[n]["seconds"] / max(steps, 1)
        print(f"\n{n}: {per_step:.1f} ms per training step; sample:\n{results[n]['sample']}")


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, result in results.items():
        ax.plot(result["losses"], label=name, alpha=0.8)
    ax.set_xlabel("training step")
    ax.set_ylabel("cross-entropy (nats per character)")
    ax.set_title("char-level GPT on the sonnets: same source, same weights, same batches")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    print(f"loss curves written to {path}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minigrad.examples.char_gpt",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=32)
    parser.add_argument("--n-embd", type=int, default=48)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--attention", choices=("hand", "sdpa"), default="hand")
    parser.add_argument("--gelu", choices=("none", "tanh"), default="none",
                        help="exact GELU (erf) or GPT-2's tanh approximation (faster in minigrad)")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample-length", type=int, default=200)
    parser.add_argument("--every", type=int, default=25, help="print the losses every N steps")
    parser.add_argument("--plot", default=None, help="write both loss curves to this image file")
    parser.add_argument("--no-torch", action="store_true", help="train minigrad alone")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.n_embd % args.n_head:
        parser.error("--steps must be positive and --n-embd divisible by --n-head")
    return args


def main(argv=None):
    args = parse_args(argv)
    results = train(args)
    report(results, args.every)
    if args.plot:
        plot(results, args.plot)
    return results


if __name__ == "__main__":
    main()
