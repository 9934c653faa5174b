#!/usr/bin/env python3
"""Runs examples/frame_pipeline and checks its output against an independent Python model of the
same pipeline (synthetic frames, mirrored strips, a copy_rect crop, FNV-1a over the results)."""
import os
import re
import shlex
import subprocess
import sys

STRIPS, BPP = 4, 4


def camera(frame, n):
    s = (frame * 2654435761 + 12345) & 0xFFFFFFFF | 1
    out = bytearray(n)
    for i in range(n):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        out[i] = s >> 24
    return out


def fnv(h, data):
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def expected(frames, width, height):
    pitch, strip_rows = width * BPP, height // STRIPS
    strip_bytes = strip_rows * pitch
    roi_w, roi_h = pitch // 2, max(strip_rows // 2, 1)
    h, moved = 0xCBF29CE484222325, 0
    for f in range(frames):
        img = camera(f, height * pitch)
        strips = [img[i * strip_bytes:(i + 1) * strip_bytes] for i in range(STRIPS)]
        for s in reversed(strips):  # output strip i holds input strip STRIPS-1-i
            h = fnv(h, s)
        roi = b"".join(strips[1][y * pitch + pitch // 4: y * pitch + pitch // 4 + roi_w] for y in range(roi_h))
        h = fnv(h, roi)
        moved += height * pitch + 2 * STRIPS * strip_bytes + 2 * roi_w * roi_h
    return h, moved


def main():
    exe, frames, width, height = sys.argv[1], 5, 48, 16
    wrapper = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))  # qemu-user in a cross build
    run = subprocess.run(wrapper + [exe, "--frames", str(frames), "--width", str(width), "--height", str(height)],
                         capture_output=True, text=True, check=False)
    print(run.stdout + run.stderr)
    if run.returncode != 0:
        print("frame_pipeline exited with", run.returncode)
        return 1
    got = re.search(r"frames=(\d+) .*bytes_moved=(\d+) checksum=0x([0-9a-f]+)", run.stdout)
    if not got:
        print("no result line")
        return 1
    want_sum, want_moved = expected(frames, width, height)
    ok = int(got.group(1)) == frames and int(got.group(2)) == want_moved and int(got.group(3), 16) == want_sum
    print(f"expected bytes_moved={want_moved} checksum=0x{want_sum:016x}: {'match' if ok else 'MISMATCH'}")
    steady = re.search(r"steady_state_edgemem_allocations=(\d+)", run.stdout)
    if not steady or int(steady.group(1)) != 0:
        print("edgemem allocated in the demo's frame loop (steady_state_edgemem_allocations must be 0)")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
