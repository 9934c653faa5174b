#!/usr/bin/env python3
"""CI smoke test of backends/opencl/bench/peers: runs `peers --quick --json FILE`, checks that every workload row is
there with a positive p50 for every peer and a ratio, then feeds the file to plot_peers.py (--table,
and the PNG when matplotlib is importable: Debian's python3-matplotlib, which scripts/edgemem.sh
installs). No timing is checked: a 2-core CI machine says nothing about speed.

Usage: check_smoke.py PATH_TO_peers
"""
import json
import os
import subprocess
import sys
import tempfile

WORKLOADS = ["create_1MiB_touch_release", "pool_acquire_release", "pool_vs_untouched_create_release",
             "sub_buffer_create_release", "sub_buffer_native_create_release", "write_4B_blocking",
             "write_4B_async", "write_64MiB", "read_64MiB", "map_unmap_64MiB_write_discard",
             "map_unmap_64MiB_read", "fill_64MiB", "copy_64MiB", "frame_pipeline_map", "frame_pipeline_write"]
PEERS = ["raw", "opencl.hpp", "Boost.Compute", "edgemem"]


def main():
    exe = sys.argv[1]
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot_peers.py")
    with tempfile.TemporaryDirectory() as tmp:
        js, png = os.path.join(tmp, "smoke.json"), os.path.join(tmp, "smoke.png")
        p = subprocess.run([exe, "--quick", "--json", js], capture_output=True, text=True, check=False)
        print(p.stdout[-3000:] + p.stderr)
        if p.returncode != 0:
            print(f"peers exited with {p.returncode}")
            return 1
        with open(js, encoding="utf-8") as f:
            rows = {r["workload"]: r for r in json.load(f)["rows"]}
        bad = [w for w in WORKLOADS if w not in rows]
        for w in WORKLOADS:
            r = rows.get(w)
            if r is None:
                continue
            if not (r["ratio"] > 0) or any(not (r["us_per_call"][peer]["p50"] > 0) for peer in PEERS):
                bad.append(w)
        if bad:
            print("rows missing or without a positive p50 / ratio: " + ", ".join(bad))
            return 1
        t = subprocess.run([sys.executable, plot, "--table", js], capture_output=True, text=True, check=False)
        print(t.stdout + t.stderr)
        if t.returncode != 0 or t.stdout.count("\n|") < len(WORKLOADS):
            print("plot_peers.py --table failed")
            return 1
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("matplotlib not importable: the PNG plot is not checked")
            return 0
        g = subprocess.run([sys.executable, plot, png, js], capture_output=True, text=True, check=False)
        print(g.stdout + g.stderr)
        with open(png, "rb") as f:
            if g.returncode != 0 or f.read(8) != b"\x89PNG\r\n\x1a\n":
                print("plot_peers.py did not write a PNG")
                return 1
    print("peers smoke: every row, the table and the plot: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
