#!/usr/bin/env python3
"""Plots backends/opencl/bench/peers results (the files `peers --json FILE` writes) as one PNG.

Left: frames/s of each frame pipeline per peer (p50; with several files, one per run, the bar is the
median of the runs' p50s and the whisker spans the lowest to the highest). Right: edgemem/best per
per-call workload (edgemem's p50 time over the fastest peer's; below 1 edgemem is faster), with the
1.05 goal line; the pool rows are left out (their ratios are 1/1000 scale).

Usage: /usr/bin/python3 backends/opencl/bench/peers/plot_peers.py OUT.png RUN.json [RUN.json ...] [--title TEXT]
       python3 backends/opencl/bench/peers/plot_peers.py --table RUN.json [RUN.json ...]
(Debian's python3-matplotlib; matplotlib's Agg backend, no display needed.) --table prints the runs
as one Markdown table instead (no matplotlib needed): each cell the median of the runs' p50s, the
edgemem/best column the median ratio and, with several runs, its lowest and highest.
"""
import json
import statistics
import sys

PEERS = ["raw", "opencl.hpp", "Boost.Compute", "edgemem", "raw naive"]
COLORS = {"raw": "#7f7f7f", "opencl.hpp": "#1f77b4", "Boost.Compute": "#2ca02c", "edgemem": "#d62728",
          "raw naive": "#c7c7c7"}


def load(paths):
    runs = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            runs.append(json.load(f))
    return runs


def fmt(us, fps):
    if fps:
        return f"{1e6 / us:.1f}"
    return f"{us:.3f}" if us < 100 else f"{us:.1f}"


def table(runs):
    """The runs as one Markdown table (median of the runs' p50s; ratio median [lowest-highest])."""
    cols = ["raw", "opencl.hpp", "Boost.Compute", "edgemem"]
    print("| workload | raw | opencl.hpp | Boost.Compute | edgemem | edgemem/best | goal |")
    print("|---|---|---|---|---|---|---|")
    for row in runs[0]["rows"]:
        name, fps = row["workload"], row["unit"] == "frames/s"
        rows = [next(r for r in run["rows"] if r["workload"] == name) for run in runs]
        lines = [("ratio", cols, "")]
        if fps:
            lines.append(("naive_ratio", ["raw naive", None, None, "edgemem"], ", naive raw"))
        for key, names, suffix in lines:
            cells = []
            for c in names:
                vals = [r["us_per_call"][c]["p50"] for r in rows if c is not None and c in r["us_per_call"]]
                cells.append(fmt(statistics.median(vals), fps) if vals else "-")
            ratios = [r[key] for r in rows]
            ratio = f"{statistics.median(ratios):.3f}" if min(ratios) >= 0.1 else f"{statistics.median(ratios):.4f}"
            if len(runs) > 1:
                ratio += f" ({min(ratios):.3f}-{max(ratios):.3f})" if min(ratios) >= 0.1 else \
                    f" ({min(ratios):.4f}-{max(ratios):.4f})"
            goal = row["goal_max_ratio"] if key == "ratio" else 0.5
            goal_text = "(none)" if goal <= 0 else f"<= {goal:g}"
            unit = "frames/s" if fps else "us"
            print(f"| {name}{suffix} [{unit}] | " + " | ".join(cells) + f" | {ratio} | {goal_text} |")


def main(argv):
    if len(argv) > 2 and argv[1] == "--table":
        table(load(argv[2:]))
        return 0
    import matplotlib  # only the plot needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    title = None
    if "--title" in argv:
        i = argv.index("--title")
        title = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out, runs = argv[1], load(argv[2:])
    first = runs[0]
    pipelines = [r["workload"] for r in first["rows"] if r["unit"] == "frames/s"]
    per_call = [r["workload"] for r in first["rows"]
                if r["unit"] == "us" and not r["workload"].startswith("pool")]

    def rows_of(name):
        return [next(r for r in run["rows"] if r["workload"] == name) for run in runs]

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [1, 1.5]})

    # Left: frames/s per peer, one group per pipeline.
    width = 0.16
    for k, peer in enumerate(PEERS):
        xs, ys, lo, hi = [], [], [], []
        for g, name in enumerate(pipelines):
            fps = [1e6 / r["us_per_call"][peer]["p50"] for r in rows_of(name) if peer in r["us_per_call"]]
            if not fps:
                continue
            med = statistics.median(fps)
            xs.append(g + (k - 2) * width)
            ys.append(med)
            lo.append(med - min(fps))
            hi.append(max(fps) - med)
        if xs:
            left.bar(xs, ys, width, yerr=[lo, hi] if len(runs) > 1 else None, capsize=3, label=peer,
                     color=COLORS[peer])
    left.set_xticks(range(len(pipelines)))
    left.set_xticklabels([n.replace("frame_pipeline_", "pipeline: ") for n in pipelines])
    left.set_ylabel("frames/s (p50; higher is better)")
    left.set_title("1080p RGBA frame pipeline")
    left.set_ylim(0, left.get_ylim()[1] * 1.25)  # room for the legend above the bars
    left.legend(fontsize=8, loc="upper center", ncol=3)

    # Right: edgemem/best per per-call workload.
    ratios = [[r["ratio"] for r in rows_of(name)] for name in per_call]
    meds = [statistics.median(v) for v in ratios]
    ys = range(len(per_call))
    right.barh(ys, meds, color=["#d62728" if m > 1.05 else "#1f77b4" for m in meds],
               xerr=[[m - min(v) for m, v in zip(meds, ratios)], [max(v) - m for m, v in zip(meds, ratios)]]
               if len(runs) > 1 else None, capsize=3)
    right.axvline(1.0, color="black", linewidth=0.8)
    right.axvline(1.05, color="#d62728", linestyle="--", linewidth=0.8, label="goal 1.05")
    right.set_yticks(list(ys))
    right.set_yticklabels(per_call, fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("edgemem p50 / best peer p50 (below 1: edgemem faster)")
    right.set_title("per-call workloads")
    right.legend(fontsize=8, loc="lower right")

    device = f'{first["platform"]}: {first["device"]}'
    runs_note = f"{len(runs)} run{'s' if len(runs) > 1 else ''}"
    fig.suptitle(title or f"backends/opencl/bench/peers on {device} ({runs_note})", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
