"""Draws the plots of docs/performance.md from that page's own tables, so a plot cannot disagree with the
numbers beside it: edit a table, rerun this, commit the PNGs.

    pip install matplotlib && python docs/plots/make_plots.py        # writes docs/plots/*.png

`tables()` (no matplotlib needed) is what tests/docs/test_docs_site.py checks: every table a plot reads
is still on the page, under its heading, with the rows the plot expects.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "..", "performance.md")

# plot -> the heading (### ...) of the table it reads
HEADINGS = {
    "tutorial_scripts": "TF1 tutorial-style scripts as whole processes, 2026-11-27",
    "train_step": "Training step per optimizer",
    "memory_zoo": "Memory zoo (CPU)",
    "big_graph": "Huge graphs",
    "pooling": "Pooling and convolution gradients",
}
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def numbers(cell):
    """Every number of a table cell, in order ("100 / 155 ms = **0.64×**" -> [100, 155, 0.64])."""
    return [float(n.replace(",", "")) for n in NUMBER.findall(cell)]


def table_after(text, heading):
    """The rows (lists of cells, header and rule left out) of the first table under `### heading`."""
    start = text.index("\n### %s\n" % heading)
    rows = []
    for line in text[start:].split("\n")[2:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows or line.startswith("#"):
            break
    if len(rows) < 3:
        raise ValueError("no table under '### %s' in %s" % (heading, PAGE))
    return rows[2:]


def tables(page=PAGE):
    """{plot name: {row label: [numbers of each cell]}} read from the page."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    return {name: {row[0]: [numbers(c) for c in row[1:]] for row in table_after(text, heading)}
            for name, heading in HEADINGS.items()}


def _bars(ax, labels, series, width=0.8):
    import numpy as np
    x = np.arange(len(labels))
    w = width / len(series)
    for i, (name, values) in enumerate(series.items()):
        ax.bar(x + (i - (len(series) - 1) / 2) * w, values, w, label=name)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=15, ha="right", fontsize=8)
    ax.legend(fontsize=8)


def draw(out=HERE):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = tables()

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(out, name + ".png"), dpi=90)
        plt.close(fig)

    rows = t["tutorial_scripts"]   # cells: wall cold, wall warm, CPU cold, CPU warm, step: "tinyflow / TF s = r×"
    fig, ax = plt.subplots(figsize=(8, 3.6))
    _bars(ax, list(rows), {"process wall, cold": [c[0][0] / c[0][1] for c in rows.values()],
                           "process wall, warm": [c[1][0] / c[1][1] for c in rows.values()],
                           "training step (wall)": [c[4][0] / c[4][1] for c in rows.values()]})
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_ylabel("tinyflow / TF 1.15 (lower is faster)")
    ax.set_title("TF1 tutorial-style scripts, tinyflow against TF 1.15 (CPU, 2 cores)", fontsize=10)
    save(fig, "tutorial_scripts")

    rows = t["train_step"]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    _bars(ax, list(rows), {"MLP 784-256-256-10": [c[0][0] for c in rows.values()],
                           "20-layer MLP": [c[1][0] for c in rows.values()]})
    ax.axhline(1.10, color="C0", ls="--", lw=0.8)
    ax.axhline(1.05, color="C1", ls="--", lw=0.8)
    ax.set_ylim(0.8, 1.2)
    ax.set_ylabel("tinyflow / hand-written JAX")
    ax.set_title("One training step per optimizer (fastest steps; dashed: targets)", fontsize=10)
    save(fig, "train_step")

    rows = t["memory_zoo"]   # cells: TF ops, HLO instrs, planned TF ops, planned fused, XLA temp, ...
    fig, ax = plt.subplots(figsize=(8, 3.6))
    _bars(ax, list(rows), {"tinyflow plan, TF ops": [c[2][0] for c in rows.values()],
                           "tinyflow plan, XLA's fused HLO": [c[3][0] for c in rows.values()],
                           "XLA temp": [c[4][0] for c in rows.values()]})
    ax.set_ylabel("MiB, one training step")
    ax.set_title("Memory plans beside XLA's buffer assignment (CPU)", fontsize=10)
    save(fig, "memory_zoo")

    rows = t["big_graph"]   # cells: tinyflow, hand JAX (maybe a range), TF 1.15, ...
    ks = [numbers(k)[0] for k in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for name, col in (("tinyflow", 0), ("hand-written JAX", 1), ("TF 1.15", 2)):
        cells = [c[col] for c in rows.values()]
        mid = [sum(c[:2]) / 2 if name == "hand-written JAX" and len(c) > 1 else c[0] for c in cells]
        ax.plot(ks, mid, "o-", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("K (ops in the chain)")
    ax.set_ylabel("first Session.run / call, s")
    ax.set_title("Compile-and-run of a chain of K ops and its gradient", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, "big_graph")

    rows = t["pooling"]
    fig, ax = plt.subplots(figsize=(8, 3.8))
    _bars(ax, [r.split(" [")[0].rstrip(",") for r in rows],
          {"tinyflow": [c[0][0] for c in rows.values()], "hand-written jax.vjp": [c[1][0] for c in rows.values()],
           "TF 1.15": [c[2][0] for c in rows.values()]})
    ax.set_yscale("log")
    ax.set_ylabel("CPU ms (log scale)")
    ax.set_title("Pooling and convolution gradients (fastest of 20)", fontsize=10)
    save(fig, "pooling")


if __name__ == "__main__":
    draw()
    print("wrote", ", ".join(sorted(f for f in os.listdir(HERE) if f.endswith(".png"))))
