#!/usr/bin/env python3
"""Writes the seed corpus of the differential fuzzer (tests/fuzz/corpus/seed-*.bin) and the
regression inputs written by hand (tests/fuzz/corpus/regress-*.bin listed in REGRESS below).

Each seed is a short, meaningful operation sequence in the input format of driver.cpp, so the
fuzzer starts from inputs that reach every operation and its documented error paths. The seeds
are committed; re-run this script only after changing the input format or adding seeds:
    python3 tests/fuzz/gen_corpus.py [OUT_DIR]     (default: tests/fuzz/corpus)
Regression inputs found by the fuzzer live next to them as regress-*.bin and are never rewritten;
those written here reproduce a reported bug and come out byte for byte the same on every run.
"""
import os
import random
import struct
import sys

OPS = ["create", "from_host", "wrap", "like", "sub", "release", "drop", "move", "write", "read",
       "fill", "copy", "write_rect", "read_rect", "copy_rect", "map", "map_write", "unmap", "map_drop",
       "pool_init", "pool_acquire", "pool_release", "pool_destroy", "heap_init", "heap_create",
       "heap_from_host", "heap_release", "heap_destroy", "migrate", "finish", "event"]
BUFFER_OPS = list(OPS)  # the random-walk seed draws from these (its bytes predate the image ops)
IMAGE_OPS = ["img_create", "img_from_host", "img_like", "img_view", "img_release", "img_drop", "img_write",
             "img_read", "img_copy", "img_fill", "img_to_buf", "buf_to_img", "img_map"]
OPS += IMAGE_OPS
OPS += ["native"]  # op_native comes after the image ops (target.hpp)
SVM_OPS = ["svm_create", "svm_like", "svm_sub", "svm_span", "svm_pool_init", "svm_heap_init"]
OPS += SVM_OPS
EXT_OPS = ["ext_import", "ext_exportable", "ext_handle", "ext_pwrite"]  # after the SVM ops (target.hpp)
OPS += EXT_OPS
OPS += ["img_pixel"]  # read_pixel on an image mapping, after the external ops (target.hpp)
OPS += ["img_adopt"]  # Image::adopt of image b's native() into image a, after img_pixel (target.hpp)
RECT_OPS = {"write_rect", "read_rect", "copy_rect"}
SPECIAL = {0: 0, 1: 1, 64: 2, 127: 3, 128: 4, 129: 5, 255: 6, 256: 7, 1024: 8, 4096: 9, 8192: 10,
           "max": 11, "max-127": 12, "half": 13, "2^40": 14, "2^48": 15}
PATTERNS = [1, 2, 4, 8, 16, 32, 64, 128, 0, 3, 256, 4]

# Flags (MemFlags bits) and enum values.
RO, WO, H_RO, H_WO, H_NA, BAD = 1, 2, 4, 8, 16, 32
DEVICE, HOST, SHARED = 0, 1, 2
READ, WRITE, DISCARD, BAD_ACCESS = 0, 1, 2, 3
# SVM ops: the grain goes in `access`, the alignment (target.hpp's kSvmAlignments index) in `migration`.
COARSE, FINE, FSYS, BAD_GRAIN = 0, 1, 2, 3
ALIGN_DEFAULT, ALIGN_64, ALIGN_96, ALIGN_256 = 0, 1, 2, 3


def num(v):
    """Encodes a size/offset as the u16 number() decodes."""
    if isinstance(v, str):
        return 0xC000 | SPECIAL[v]
    if v < 8192:
        return v
    if v % 128 == 0 and v // 128 < 64:
        return 0x4000 | (v // 128)
    return 0xC000 | SPECIAL[v]


def side(x=0, y=0, z=0, rp=0, sp=None, sp_raw=None):
    """One rect side: rp must be even (0: packed); sp: multiple k of the row pitch; sp_raw: k*64."""
    rpb = 0 if rp == 0 else 0x80 | (rp // 2)
    if sp_raw is not None:
        spb = 0x40 | sp_raw
    elif sp is not None:
        spb = 0x80 | (sp - 1)
    else:
        spb = 0
    return bytes([x, y, z, rpb, spb])


def op(name, a=0, b=0, m=0, n0=0, n1=0, n2=0, *, async_=False, null=False, wide=False, ctx=0,
       queue=0, flags=0, storage=0, access=0, migration=0, seed=0, pattern=None, count=None,
       rect=None, keep=False, img=None):
    """One operation. Async ops wait for the events of mask m; keep=True stores the event in slot b & 3.
    event ops: m & 3 is the event slot, access 0 wait, 1 is_complete, 2 release, 3 move to slot b & 3."""
    s1 = a | (b << 3) | ((m & 3) << 6)
    s2 = (1 if async_ else 0) | (0x0E if null else 0) | (0x10 if wide else 0)
    if ctx:
        s2 |= 0x60
    if queue:
        s2 |= 0xA0
    s3 = (0x80 | flags if flags else 0) | (0x40 if keep else 0)
    s4 = storage | (access << 2) | (migration << 4) | ((m >> 2) << 6)
    r0, r1, r2 = num(n0), num(n1), num(n2)
    if count is not None:
        r1 = count
    if pattern is not None:
        r2 = PATTERNS.index(pattern)
    out = bytes([OPS.index(name), s1, s2, s3, s4, seed]) + struct.pack("<HHH", r0, r1, r2)
    if name in RECT_OPS:
        s0, s1_, region = rect
        out += s0 + s1_ + bytes(region)
    if name in IMAGE_OPS:
        out += img if img is not None else image()
    return out


# The image block of image ops (driver_image.inc).
IMG1D, IMG1D_BUF, IMG1D_ARR, IMG2D, IMG2D_ARR, IMG3D = range(6)
UNORM8, UINT8, F32, SINT16 = range(4)
F_RW, F_RO, F_WO, F_HRO, F_HWO, F_HNA, F_BAD = range(7)
DIM_SPECIAL = {0: 0xC0, "2^40": 0xC1, 9: 0xC2, 2: 0xC3}
ORIGIN_SPECIAL = {"2^40": 0xC0, "max": 0xC1}
EXTENT_SPECIAL = {0: 0xC0, "2^40": 0xC1, "max": 0xC2, 9: 0xC3}


def image(type_=IMG2D, fmt=UNORM8, flags=F_RW, w=1, h=1, d=1, arr=1, *, raw_dims=None, origin=(0, 0, 0),
          extent=("rest", "rest", "rest"), src=(0, 0, 0), rp=None, sp=None, color=0):
    """The 17-byte image block. Dims: 1..8 (an unused one: 1), or the specials 0, "2^40", 9, 2 (raw_dims:
    the bytes as they are). Origins 0..7 or "2^40" / "max"; extents "rest" (of image a), 1..8, 0, 9,
    "2^40", "max". rp / sp: None (tight), ("pad", k) (k more pixels / rows), ("raw", v) (rp: v bytes,
    sp: v * 16 bytes), "odd" (tight + 1). color: bit 2 saturating values, 3 in bits 0-1 the wrong kind,
    bit 3 float colors from the driver-differing table (driver_image.inc)."""
    def dim(v):
        return DIM_SPECIAL[v] if v in (0, "2^40", 9) else v - 1
    def dim_unused(v):
        return 0 if v == 1 else DIM_SPECIAL[v]
    def org(v):
        return ORIGIN_SPECIAL[v] if isinstance(v, str) else (0x40 | v if v else 0)
    def ext(v):
        if v == "rest":
            return 0
        return EXTENT_SPECIAL[v] if v in EXTENT_SPECIAL else 0x40 | (v - 1)
    def pitch(v):
        if v is None:
            return 0
        if v == "odd":
            return 0xC0
        kind, k = v
        return (0x40 if kind == "pad" else 0x80) | k
    used = {IMG1D: (1, 0, 0, 0), IMG1D_BUF: (1, 0, 0, 0), IMG1D_ARR: (1, 0, 0, 1), IMG2D: (1, 1, 0, 0),
            IMG2D_ARR: (1, 1, 0, 1), IMG3D: (1, 1, 1, 0)}.get(type_, (1, 0, 0, 0))  # 6: image1d (views only)
    if raw_dims is not None:
        dims = bytes(raw_dims)
    else:
        dims = bytes([dim(v) if u else dim_unused(v) for v, u in zip((w, h, d, arr), used)])
    b0 = type_ | (fmt << 3) | (flags << 5)
    return (bytes([b0]) + dims + bytes(org(v) for v in origin) + bytes(ext(v) for v in extent) +
            bytes(org(v) for v in src) + bytes([pitch(rp), pitch(sp), color]))


SEEDS = {}
REGRESS = {}


def seed(name):
    def wrap(fn):
        SEEDS[name] = fn
        return fn
    return wrap


def regress(name):
    def wrap(fn):
        REGRESS[name] = fn
        return fn
    return wrap


@seed("buffer-basic")
def _():
    return [op("create", 0, n0=1024), op("write", 0, n0=0, n1=1024, seed=3), op("read", 0, n0=0, n1=1024),
            op("read", 0, n0=100, n1=200), op("write", 0, n0=1000, n1=24, seed=9), op("read", 0, n0=990, n1=34),
            op("create", 1, n0=1, storage=SHARED), op("write", 1, n1=1, seed=1), op("read", 1, n1=1),
            op("like", 2, 0), op("write", 2, n1=512, seed=4), op("read", 2, n1=1024), op("release", 0),
            op("read", 0, n1=1), op("release", 0), op("finish")]


@seed("from-host-wrap")
def _():
    return [op("from_host", 0, n0=777, seed=5, storage=HOST), op("read", 0, n1=777),
            op("wrap", 1, n0=4096, seed=6), op("read", 1, n0=4000, n1=96), op("write", 1, n0=8, n1=64, seed=7),
            op("read", 1, n1=128), op("wrap", 2, n0=300, seed=8, wide=True), op("read", 2, n1=300),
            op("from_host", 3, n0=64, null=True), op("wrap", 3, n0=64, null=True), op("from_host", 3, n0=0, seed=1),
            op("create", 3, n0="max"), op("create", 3, n0="2^40"), op("create", 3, n0=0),
            op("from_host", 3, n0=128, ctx=1, seed=2), op("read", 3, n1=128), op("read", 3, n1=128, queue=1)]


@seed("sub-buffers")
def _():
    return [op("create", 0, n0=4096), op("write", 0, n1=4096, seed=10), op("sub", 1, 0, n0=128, n1=512),
            op("read", 1, n1=512), op("write", 1, n0=10, n1=20, seed=11), op("read", 0, n0=128, n1=64),
            op("sub", 2, 1, n0=256, n1=256), op("read", 2, n1=256), op("sub", 3, 0, n0=100, n1=64),
            op("sub", 3, 0, n0=4096, n1=1), op("sub", 3, 0, n0=0, n1=0), op("sub", 3, 0, n0=128, n1="max"),
            op("sub", 3, 1, n0=0, n1=513), op("drop", 0), op("read", 1, n1=512), op("drop", 1),
            op("read", 2, n1=256), op("sub", 4, 2, n0=128, n1=128), op("read", 4, n1=128), op("sub", 2, 2, n0=128, n1=64),
            op("read", 2, n1=64)]


@seed("fill")
def _():
    ops = [op("create", 0, n0=2048)]
    for i, p in enumerate([1, 2, 4, 8, 16, 32, 64, 128]):
        ops += [op("fill", 0, n0=p * i, n1=p * 3, seed=20 + i, pattern=p)]
    ops += [op("read", 0, n1=2048), op("fill", 0, n0=1, n1=4, pattern=4), op("fill", 0, n0=0, n1=6, pattern=4),
            op("fill", 0, n0=0, n1=8, pattern=3), op("fill", 0, n0=0, n1=8, pattern=0),
            op("fill", 0, n0=0, n1=256, pattern=256), op("fill", 0, n0=2040, n1=16, pattern=8),
            op("fill", 0, n0=0, n1=8, pattern=8, null=True), op("fill", 0, n0=0, n1=2048, pattern=128, async_=True, seed=3),
            op("read", 0, n0=1000, n1=1048)]
    return ops


@seed("copy")
def _():
    return [op("create", 0, n0=4096), op("write", 0, n1=4096, seed=30), op("create", 1, n0=1024),
            op("copy", 1, 0, n0=100, n1=0, n2=1024), op("read", 1, n1=1024), op("copy", 0, 0, n0=0, n1=512, n2=512),
            op("read", 0, n1=1024), op("copy", 0, 0, n0=0, n1=256, n2=512), op("sub", 2, 0, n0=1024, n1=1024),
            op("sub", 3, 0, n0=1536, n1=1024), op("copy", 3, 2, n0=0, n1=0, n2=512), op("copy", 3, 2, n0=0, n1=0, n2=513),
            op("copy", 2, 1, n0=0, n1=0, n2=1024, async_=True), op("read", 0, n1=4096), op("copy", 1, 0, n0=0, n1=1, n2="max"),
            op("create", 4, n0=64, ctx=1), op("copy", 4, 0, n2=64), op("copy", 4, 0, n2=64, queue=1)]


@seed("rects")
def _():
    r = lambda s0, s1, reg: (s0, s1, reg)
    return [op("create", 0, n0=4096), op("fill", 0, n1=4096, pattern=1, seed=1),
            op("write_rect", 0, n0=2000, seed=40, rect=r(side(4, 2, 0, rp=64), side(0, 0, 0, rp=32), (16, 4, 1))),
            op("read_rect", 0, n0=4096, rect=r(side(0, 0, 0, rp=64), side(0, 0, 0), (64, 8, 1))),
            op("write_rect", 0, n0=8192, seed=41,
               rect=r(side(1, 1, 1, rp=32, sp=8), side(2, 0, 0, rp=40, sp=4), (20, 3, 2))),
            op("read_rect", 0, n0=8192, rect=r(side(0, 0, 0, rp=32, sp=8), side(3, 1, 0, rp=50, sp=9), (32, 8, 3))),
            op("create", 1, n0=2048),
            op("copy_rect", 1, 0, rect=r(side(0, 0, 0, rp=64), side(8, 1, 0, rp=100), (48, 6, 1))),
            op("read", 1, n1=2048),
            op("copy_rect", 0, 0, rect=r(side(0, 0, 0, rp=64), side(0, 32, 0, rp=32), (16, 8, 1))),
            op("read", 0, n1=4096),
            op("copy_rect", 0, 0, rect=r(side(0, 0, 0, rp=64), side(8, 0, 0, rp=64), (16, 8, 1))),
            op("sub", 2, 0, n0=1024, n1=1024), op("sub", 3, 0, n0=2048, n1=1024),
            op("copy_rect", 3, 2, rect=r(side(0, 0, 0, rp=32), side(0, 0, 0, rp=64), (32, 8, 1))),
            op("read", 0, n1=4096),
            op("write_rect", 0, n0=10, seed=42, rect=r(side(0), side(0), (16, 1, 1))),
            op("write_rect", 0, n0=64, seed=42, rect=r(side(0, 0, 0, rp=8), side(0), (16, 2, 1))),
            op("write_rect", 0, n0=64, seed=42, rect=r(side(0), side(0), (0, 2, 1))),
            op("read_rect", 0, n0=64, null=True, rect=r(side(0), side(0), (16, 2, 1))),
            op("write_rect", 0, n0=4096, seed=43, rect=r(side(0, 0, 0, rp=64, sp_raw=3), side(0), (16, 2, 2))),
            op("read_rect", 0, n0=4096, async_=True, rect=r(side(60, 7, 3, rp=64, sp=8), side(0), (64, 8, 4)))]


@seed("map")
def _():
    return [op("create", 0, n0=2048), op("write", 0, n1=2048, seed=50),
            op("map", 0, m=0, n0=0, n1=512, access=READ), op("map", 0, m=1, n0=256, n1=512, access=READ),
            op("read", 0, n0=0, n1=2048), op("write", 0, n0=300, n1=4, seed=1), op("map", 0, m=2, n0=0, n1=128, access=WRITE),
            op("release", 0), op("unmap", m=0), op("unmap", m=0), op("map_drop", m=1),
            op("map", 0, m=2, n0=1024, n1=1024, access=WRITE), op("map_write", m=2, n0=10, n1=100, seed=51),
            op("read", 0, n0=1024, n1=4), op("unmap", m=2), op("read", 0, n1=2048),
            op("map", 0, m=3, n0=512, n1=256, access=DISCARD), op("map_write", m=3, n0=0, n1=256, seed=52),
            op("map_drop", m=3), op("read", 0, n1=2048), op("map", 0, m=0, n0=2, n1=8, access=READ, wide=True),
            op("map", 0, m=0, n0=4, n1=6, access=READ, wide=True), op("map", 0, m=0, n0=4, n1=8, access=READ, wide=True),
            op("map", 0, m=1, n0=0, n1=8, access=BAD_ACCESS), op("map", 0, m=1, n0=2048, n1=1),
            op("sub", 1, 0, n0=128, n1=256), op("map", 1, m=1, n0=0, n1=256, access=WRITE),
            op("map_write", m=1, n1=256, seed=53), op("drop", 1), op("map_drop", m=1), op("read", 0, n1=2048),
            op("map", 0, m=3, n1=64, access=WRITE), op("drop", 0), op("unmap", m=3), op("map_drop", m=0)]


@seed("map-slots")
def _():
    ops = [op("create", 0, n0=4096)]
    for i in range(10):  # the ninth mapping through one handle: exhausted
        ops.append(op("map", 0, m=i, n0=i * 256, n1=128, access=READ))
    ops += [op("map", 0, m=10, n0=0, n1=64, access=READ), op("sub", 1, 0, n1=4096),
            op("map", 1, m=11, n1=64, access=READ), op("map", 1, m=12, n1=64, access=WRITE),
            op("release", 1), op("drop", 1), op("map_drop", m=0), op("map_drop", m=1), op("map_drop", m=2),
            op("release", 0), op("unmap", m=11), op("map", 0, m=13, n1=4096, access=DISCARD), op("release", 0)]
    for i in range(14):
        ops.append(op("map_drop", m=i))
    ops.append(op("release", 0))
    return ops


@seed("pool")
def _():
    return [op("pool_init", n0=200, count=4), op("pool_init", n0=200, count=4)] + \
        [op("pool_acquire", i) for i in range(5)] + \
        [op("write", 0, n1=256, seed=60), op("read", 0, n1=256), op("sub", 5, 1, n0=128, n1=128),
         op("release", 1), op("pool_release"), op("pool_acquire", 6), op("drop", 5), op("pool_acquire", 6),
         op("map", 2, m=0, n1=64, access=WRITE), op("drop", 2), op("pool_acquire", 7), op("map_drop", m=0),
         op("pool_acquire", 7), op("read", 7, n1=256), op("move", 4, 0), op("read", 4, n1=256), op("read", 0, n1=1),
         op("pool_destroy"), op("read", 4, n1=256), op("write", 3, n1=10, seed=61), op("pool_acquire", 0),
         op("pool_init", n0=0, count=2), op("pool_init", n0=64, count=0), op("pool_init", n0="max", count=2),
         op("pool_init", n0="2^40", count=2), op("pool_init", n0=64, count=2, ctx=1),
         op("pool_init", n0=64, count=2, flags=H_RO), op("read", 0, n1=64), op("pool_acquire", 0), op("read", 0, n1=64),
         op("drop", 0), op("pool_release"), op("pool_init", n0=64, count=2, flags=BAD),
         op("pool_init", n0=1024, count=16, storage=SHARED), op("pool_acquire", 1), op("pool_release"),
         op("drop", 1), op("pool_release"), op("pool_release"), op("pool_acquire", 1)]


@seed("heap")
def _():
    return [op("heap_create", 0, n0=10), op("heap_init", n0=100, count=8), op("heap_init", n0=128, count=8),
            op("heap_init", n0=128, count=8), op("heap_create", 0, n0=300), op("heap_create", 1, n0=640),
            op("heap_create", 2, n0=1), op("heap_create", 2, n0=0), op("heap_create", 2, n0=1025),
            op("drop", 0), op("heap_create", 2, n0=200), op("heap_from_host", 3, n0=100, seed=70),
            op("read", 3, n1=100), op("heap_from_host", 4, n0=1, null=True), op("heap_from_host", 4, n0=1, queue=1),
            op("write", 2, n1=200, seed=71), op("read", 2, n1=200), op("sub", 5, 1, n0=128, n1=256),
            op("drop", 1), op("heap_create", 6, n0=256), op("drop", 5), op("heap_create", 6, n0=640),
            op("heap_release"), op("map", 2, m=0, n1=64, access=READ), op("drop", 2), op("heap_create", 7, n0=128),
            op("heap_destroy"), op("read", 3, n1=100), op("map_drop", m=0), op("heap_create", 0, n0=1),
            op("heap_init", n0=256, count=16, flags=H_WO), op("heap_create", 0, n0=4096),
            op("drop", 3), op("drop", 6), op("drop", 7), op("drop", 0), op("heap_release"), op("heap_release")]


@seed("errors")
def _():
    return [op("read", 0, n1=1), op("write", 0, n1=1, seed=1), op("release", 0), op("sub", 1, 0, n1=1),
            op("like", 1, 0), op("map", 0, m=0, n1=1), op("unmap", m=0), op("map_write", m=0, n1=4),
            op("create", 0, n0=256), op("read", 0, n1=0), op("read", 0, n0=256, n1=1), op("read", 0, n0="max", n1=2),
            op("read", 0, n0=1, n1="max"), op("write", 0, n1=16, null=True), op("read", 0, n1=16, null=True),
            op("create", 1, n0=64, flags=RO | WO), op("create", 1, n0=64, flags=H_RO | H_WO),
            op("create", 1, n0=64, flags=BAD), op("create", 1, n0=64, storage=3 % 3), op("migrate", 0, migration=3),
            op("copy", 0, 0, n0=0, n1=128, n2=0), op("copy", 0, 0, n0="2^48", n1=0, n2=1),
            op("create", 2, n0=128, ctx=1), op("write", 2, n1=4, seed=2), op("write", 2, n1=4, seed=2, queue=1),
            op("read", 2, n1=4, queue=1), op("copy", 2, 0, n2=64), op("like", 3, 2), op("read", 3, n1=4, queue=1)]


@seed("flags")
def _():
    return [op("from_host", 0, n0=512, seed=80, flags=H_RO), op("read", 0, n1=512), op("write", 0, n1=4, seed=1),
            op("fill", 0, n1=4, pattern=4), op("map", 0, m=0, n1=64, access=READ), op("map", 0, m=1, n1=64, access=WRITE),
            op("map_drop", m=0), op("from_host", 1, n0=512, seed=81, flags=H_WO), op("read", 1, n1=4),
            op("write", 1, n1=256, seed=82), op("fill", 1, n0=256, n1=256, pattern=16, seed=83),
            op("map", 1, m=1, n1=64, access=READ), op("map", 1, m=1, n0=64, n1=64, access=WRITE),
            op("map_write", m=1, n1=64, seed=84), op("unmap", m=1), op("create", 2, n0=512), op("copy", 2, 1, n2=512),
            op("read", 2, n1=512), op("create", 3, n0=64, flags=H_NA), op("write", 3, n1=4, seed=1),
            op("read", 3, n1=4), op("copy", 2, 3, n2=64), op("read", 2, n1=64), op("sub", 4, 1, n0=128, n1=128),
            op("read", 4, n1=1), op("create", 5, n0=64, flags=RO), op("write", 5, n1=64, seed=85),
            op("read", 5, n1=64), op("create", 6, n0=64, flags=WO | H_RO, storage=SHARED), op("read", 6, n1=64)]


@seed("async")
def _():
    r = lambda s0, s1, reg: (s0, s1, reg)
    return [op("create", 0, n0=1024), op("write", 0, n1=1024, seed=90, async_=True), op("read", 0, n1=1024, async_=True),
            op("fill", 0, n0=512, n1=512, pattern=8, seed=91, async_=True), op("create", 1, n0=1024),
            op("copy", 1, 0, n2=1024, async_=True), op("read", 1, n1=1024, async_=True),
            op("write_rect", 1, n0=1024, seed=92, async_=True, rect=r(side(0, 0, 0, rp=64), side(0), (32, 4, 1))),
            op("copy_rect", 0, 1, async_=True, rect=r(side(0, 0, 0, rp=64), side(0, 0, 0, rp=64), (64, 8, 1))),
            op("read", 0, n1=1024), op("migrate", 0, migration=1, async_=True), op("migrate", 0, migration=2),
            op("migrate", 0, migration=0), op("read", 0, n1=1024), op("write", 0, n1="max", async_=True), op("finish"),
            op("finish", queue=1)]


@seed("events")
def _():
    WAIT, DONE, RELEASE, MOVE = 0, 1, 2, 3
    r = lambda s0, s1, reg: (s0, s1, reg)
    return [op("create", 0, n0=2048), op("create", 1, n0=2048),
            op("write", 0, 0, n1=2048, seed=120, async_=True, keep=True),
            op("fill", 1, 1, n0=0, n1=1024, pattern=4, seed=121, async_=True, keep=True, m=0b0001),
            op("copy", 1, 0, n0=0, n1=1024, n2=1024, async_=True, keep=True, m=0b0011),
            op("read", 1, n1=2048, async_=True, m=0b0111), op("event", m=0, access=WAIT),
            op("event", m=1, access=DONE), op("event", m=2, access=RELEASE), op("event", m=2, access=WAIT),
            op("write", 0, n1=16, seed=1, async_=True, m=0b0100), op("event", 0, 3, m=0, access=MOVE),
            op("event", m=0, access=WAIT), op("event", m=3, access=WAIT),
            op("write_rect", 0, 1, n0=512, seed=122, async_=True, keep=True, m=0b1000,
               rect=r(side(0, 0, 0, rp=64), side(0), (32, 4, 1))),
            op("copy_rect", 1, 0, async_=True, keep=True, m=0b0010,
               rect=r(side(0, 0, 0, rp=64), side(0, 0, 0, rp=64), (64, 4, 1))),
            op("migrate", 1, 3, migration=1, async_=True, keep=True, m=0b0001), op("read", 1, n1=2048),
            op("create", 5, n0=64, ctx=1), op("write", 5, 2, n1=64, seed=3, queue=1, async_=True, keep=True),
            op("write", 0, n1=64, seed=4, async_=True, m=0b0100), op("event", m=2, access=WAIT),
            op("drop", 0), op("event", m=1, access=WAIT), op("finish")]


@seed("moves")
def _():
    return [op("create", 0, n0=256), op("write", 0, n1=256, seed=100), op("move", 1, 0), op("read", 0, n1=1),
            op("read", 1, n1=256), op("move", 1, 1), op("read", 1, n1=256), op("create", 2, n0=128),
            op("map", 2, m=0, n1=128, access=WRITE), op("move", 2, 1), op("map_write", m=0, n1=128, seed=101),
            op("unmap", m=0), op("read", 2, n1=256), op("pool_init", n0=128, count=2), op("pool_acquire", 3),
            op("move", 4, 3), op("move", 3, 2), op("release", 4), op("pool_acquire", 5), op("pool_acquire", 6),
            op("pool_acquire", 7), op("move", 5, 6), op("pool_release"), op("drop", 5), op("pool_release")]


@seed("heap-max-buffers")
def _():
    return [op("heap_init", n0=128, count=8, n2=2), op("heap_create", 0, n0=1), op("heap_create", 1, n0=200),
            op("heap_create", 2, n0=1), op("drop", 0), op("heap_create", 2, n0=128), op("read", 2, n1=128),
            op("heap_from_host", 3, n0=64, seed=5), op("drop", 1), op("heap_from_host", 3, n0=64, seed=5),
            op("read", 3, n1=64), op("heap_release"), op("drop", 2), op("drop", 3), op("heap_release"),
            op("heap_init", n0=128, count=2, n2=8), op("heap_create", 0, n0=1), op("heap_create", 1, n0=1),
            op("heap_create", 2, n0=1), op("heap_init", n0=128, count=4, flags=H_NA), op("heap_destroy"),
            op("heap_init", n0=128, count=4, flags=H_NA), op("heap_from_host", 4, n0="max-127", seed=1),
            op("heap_create", 4, n0=512), op("heap_create", 5, n0=1)]


@seed("pool-heap-mix")
def _():
    return [op("heap_init", n0=1024, count=4, storage=SHARED), op("pool_init", n0=512, count=3),
            op("pool_acquire", 0), op("heap_create", 1, n0=2048), op("copy", 1, 0, n2=512),
            op("heap_from_host", 2, n0=1024, seed=110), op("copy", 0, 2, n2=512), op("read", 0, n1=512),
            op("read", 1, n1=512), op("map", 1, m=0, n1=1024, access=READ), op("heap_destroy"), op("pool_destroy"),
            op("read", 1, n1=2048), op("read", 0, n1=512), op("map_drop", m=0), op("drop", 1), op("drop", 0),
            op("heap_init", n0=128, count=1), op("heap_create", 3, n0=128), op("heap_create", 4, n0=1)]


@seed("random-walk")
def _():
    rng = random.Random(1234)
    out = [op("create", 0, n0=4096), op("create", 1, n0=2048, storage=SHARED), op("pool_init", n0=256, count=4),
           op("heap_init", n0=256, count=8)]
    for _ in range(150):
        name = rng.choice(BUFFER_OPS)
        kw = dict(a=rng.randrange(8), b=rng.randrange(8), m=rng.randrange(4), seed=rng.randrange(256),
                  n0=rng.choice([0, 128, 256, 512, 1, 100]), n1=rng.choice([1, 64, 128, 256, 512]),
                  n2=rng.choice([1, 64, 128]), access=rng.randrange(3), async_=rng.random() < 0.3)
        if name in RECT_OPS:
            kw["rect"] = (side(rng.randrange(8), rng.randrange(2), 0, rp=64), side(0), (rng.randrange(1, 33), 2, 1))
        if name == "fill":
            kw["pattern"] = rng.choice([1, 2, 4, 8])
            kw.pop("n2")
        if name in ("pool_init", "heap_init"):
            kw["count"] = rng.randrange(1, 5)
            kw.pop("n1")
            kw["n0"] = 256
        out.append(op(name, **kw))
    return out


@seed("migrate-discard")
def _():
    """to_device_discard leaves the whole root allocation undefined (the model compares none of its
    bytes until they are written again), on a root, a sub-buffer, a pool block and a heap buffer;
    to_host and to_device keep the contents."""
    return [op("create", 0, n0=4096), op("write", 0, n1=4096, seed=130), op("sub", 1, 0, n0=1024, n1=1024),
            op("migrate", 1, migration=2), op("read", 0, n1=4096), op("write", 1, n1=512, seed=131),
            op("read", 1, n1=1024), op("read", 0, n1=4096), op("write", 0, n1=4096, seed=132),
            op("migrate", 0, migration=1), op("read", 0, n1=4096), op("migrate", 0, migration=0),
            op("read", 1, n1=1024), op("migrate", 0, 2, migration=2, async_=True, keep=True),
            op("write", 0, n0=2048, n1=2048, seed=133, async_=True, m=0b0100), op("read", 0, n1=4096),
            op("pool_init", n0=256, count=2), op("pool_acquire", 2), op("pool_acquire", 3),
            op("write", 2, n1=256, seed=134), op("write", 3, n1=256, seed=135), op("migrate", 3, migration=2),
            op("read", 2, n1=256), op("read", 3, n1=256), op("write", 3, n1=256, seed=136), op("read", 3, n1=256),
            op("heap_init", n0=1024, count=4), op("heap_from_host", 4, n0=1024, seed=137),
            op("migrate", 4, migration=2, async_=True), op("read", 4, n1=1024), op("write", 4, n1=1024, seed=138),
            op("read", 4, n1=1024), op("migrate", 4, migration=3), op("finish")]


@seed("copy-rect-one-buffer")
def _():
    """copy_rect and copy within one buffer (equal pitches, disjoint regions: one command on OpenCL,
    not row by row) on a root buffer, with a sub-buffer, a pool block and heap buffers in the other
    slots, so a one-byte change of a slot gives the same on those; copy_rect between two of them."""
    r = lambda s0, s1, reg: (s0, s1, reg)
    cols = r(side(0, 0, 0, rp=64), side(32, 0, 0, rp=64), (16, 8, 1))
    rows = r(side(0, 1, 0, rp=64), side(16, 0, 0, rp=64), (16, 7, 1))
    slabs = r(side(0, 0, 0, rp=64, sp=4), side(32, 0, 0, rp=64, sp=4), (16, 4, 2))
    narrow = r(side(0, 1, 0, rp=64), side(16, 0, 0, rp=32), (8, 7, 1))
    return [op("create", 0, n0=4096), op("write", 0, n1=4096, seed=150), op("sub", 1, 0, n0=1024, n1=1024),
            op("pool_init", n0=256, count=2), op("pool_acquire", 2), op("write", 2, n1=256, seed=151),
            op("heap_init", n0=1024, count=4), op("heap_from_host", 3, n0=1024, seed=152),
            op("heap_create", 4, n0=1024), op("copy_rect", 0, 0, rect=cols), op("read", 0, n1=4096),
            op("copy_rect", 0, 0, async_=True, rect=rows), op("copy_rect", 0, 0, rect=slabs), op("read", 0, n1=4096),
            op("copy_rect", 4, 3, rect=cols), op("copy_rect", 2, 1, async_=True, rect=narrow), op("read", 4, n1=1024),
            op("read", 2, n1=256), op("copy", 0, 0, n0=0, n1=2048, n2=1024), op("copy", 1, 1, n0=0, n1=512, n2=512),
            op("copy", 3, 3, n0=512, n1=0, n2=256, async_=True), op("read", 1, n1=1024), op("read", 3, n1=1024)]


@regress("copy-rect-same-sub-buffer")
def _():
    """Issue item 4: copy_rect with one sub-buffer as source and destination (equal pitches,
    disjoint regions) crashed inside PoCL's clEnqueueCopyBufferRect (SEGV), blocking and async: a
    sub(), a sub of a sub, a pool block, a heap buffer from create_buffer and one from
    create_buffer_from_host. Sub-buffer origins and heap pages are multiples of 512 bytes, so the
    input means the same with host_base_align=512 (the H100's base alignment)."""
    r = lambda s0, s1, reg: (s0, s1, reg)
    cols = r(side(0, 0, 0, rp=64), side(32, 0, 0, rp=64), (16, 8, 1))   # columns 0-15 -> 32-47
    rows = r(side(0, 1, 0, rp=64), side(16, 0, 0, rp=64), (16, 7, 1))   # rows 1-7 -> rows 0-6, x 16
    slabs = r(side(0, 0, 0, rp=64, sp=4), side(32, 0, 0, rp=64, sp=4), (16, 4, 2))
    small = r(side(0, 0, 0, rp=32), side(16, 0, 0, rp=32), (8, 8, 1))
    return [op("create", 0, n0=4096), op("write", 0, n1=4096, seed=140), op("sub", 1, 0, n0=1024, n1=1024),
            op("copy_rect", 1, 1, rect=cols), op("read", 1, n1=1024), op("read", 0, n1=4096),
            op("copy_rect", 1, 1, async_=True, rect=rows), op("read", 1, n1=1024),
            op("sub", 5, 1, n0=512, n1=512), op("copy_rect", 5, 5, rect=slabs), op("read", 0, n1=4096),
            op("pool_init", n0=256, count=2), op("pool_acquire", 2), op("write", 2, n1=256, seed=141),
            op("copy_rect", 2, 2, rect=small), op("read", 2, n1=256),
            op("copy_rect", 2, 2, async_=True, rect=small), op("read", 2, n1=256),
            op("heap_init", n0=1024, count=4), op("heap_create", 3, n0=1024), op("write", 3, n1=1024, seed=142),
            op("copy_rect", 3, 3, rect=cols), op("read", 3, n1=1024),
            op("heap_from_host", 4, n0=1024, seed=143), op("copy_rect", 4, 4, async_=True, rect=rows),
            op("read", 4, n1=1024), op("finish")]

@seed("image-basic")
def _():
    """2D and 3D images: tight and pitched transfers, like, copy (also within one image), fill, read and
    write maps (map_write through the map's own pitches), release."""
    I = image
    return [op("img_create", 0, img=I(IMG2D, UNORM8, w=8, h=4)), op("img_write", 0, n0=8192, seed=30, img=I()),
            op("img_read", 0, n0=8192, img=I()),
            op("img_read", 0, n0=8192, img=I(origin=(2, 1, 0), extent=(3, 2, 1), rp=("pad", 2), sp=("pad", 1))),
            op("img_write", 0, n0=4096, seed=31, img=I(origin=(1, 1, 0), extent=(4, 3, 1), rp=("pad", 1))),
            op("img_read", 0, n0=8192, img=I()),
            op("img_from_host", 1, seed=32, img=I(IMG3D, F32, w=4, h=3, d=2, rp=("pad", 1), sp=("pad", 1))),
            op("img_read", 1, n0=8192, img=I()), op("img_like", 2, 1), op("img_copy", 2, 1, img=I()),
            op("img_read", 2, n0=8192, img=I()),
            op("img_copy", 2, 1, img=I(origin=(1, 0, 1), extent=(2, 2, 1), src=(2, 1, 0))),
            op("img_copy", 2, 2, img=I(origin=(0, 0, 0), extent=(2, 3, 1), src=(2, 0, 1))),
            op("img_read", 2, n0=8192, img=I()), op("img_fill", 0, seed=33, img=I(origin=(0, 2, 0), extent=(8, 2, 1))),
            op("img_read", 0, n0=8192, img=I()),
            op("img_map", 0, m=1, access=READ, img=I(origin=(1, 0, 0), extent=(5, 3, 1))), op("unmap", m=1),
            op("img_map", 0, m=2, access=WRITE, img=I(origin=(2, 1, 0), extent=(3, 2, 1))),
            op("map_write", m=2, n0=5, n1=17, seed=34), op("unmap", m=2), op("img_read", 0, n0=8192, img=I()),
            op("img_map", 1, m=3, access=READ, img=I()), op("map_drop", m=3),
            op("img_map", 1, m=3, access=WRITE, img=I(origin=(1, 1, 1), extent=(2, 2, 1))),
            op("map_write", m=3, n0=0, n1=64, seed=35), op("map_drop", m=3), op("img_read", 1, n0=8192, img=I()),
            op("img_release", 0), op("img_read", 0, n0=8192, img=I()), op("img_drop", 1), op("finish")]


@seed("image-errors")
def _():
    """Documented Errc values of image creation and commands, in check order."""
    I = image
    return [op("img_create", 0, img=I(IMG2D, UNORM8, w=0, h=4)), op("img_create", 0, img=I(IMG2D, UNORM8, w=4, h=4, d=2)),
            op("img_create", 0, img=I(IMG1D, UNORM8, w=4, h=2)),
            op("img_create", 0, img=I(IMG2D_ARR, UINT8, w=4, h=2, arr="2^40")),
            op("img_create", 0, img=I(IMG2D, F32, F_BAD, w=4, h=4)),
            op("img_create", 0, img=I(IMG1D_BUF, UNORM8, F_BAD, w="2^40")),
            op("img_create", 0, img=I(IMG1D_BUF, UNORM8, F_BAD, w=4)),
            op("img_from_host", 0, null=True, img=I(IMG2D, UNORM8, w=2, h=2)),
            op("img_from_host", 0, seed=1, img=I(IMG2D, UNORM8, w=2, h=2, rp="odd")),
            op("img_from_host", 0, seed=1, img=I(IMG2D, UNORM8, w=2, h=2, rp=("raw", 4))),
            op("img_from_host", 0, seed=1, img=I(IMG3D, UNORM8, w=2, h=2, d=2, sp="odd")),
            op("img_create", 0, img=I(IMG2D, UNORM8, w=4, h=4)),
            op("img_write", 0, n0=4096, img=I(extent=(0, 1, 1))),
            op("img_write", 0, n0=4096, img=I(origin=(3, 0, 0), extent=(2, 1, 1))),
            op("img_write", 0, n0=4096, img=I(origin=("max", 0, 0), extent=(1, 1, 1))),
            op("img_write", 0, n0=4096, img=I(extent=("max", 1, 1))), op("img_write", 0, n0=4096, null=True, img=I()),
            op("img_write", 0, n0=63, seed=2, img=I()), op("img_write", 0, n0=64, seed=2, img=I()),
            op("img_read", 0, n0=4096, img=I(rp=("raw", 8))), op("img_read", 0, n0=4096, img=I(rp="odd")),
            op("img_read", 0, n0=4096, img=I(sp="odd")), op("img_read", 0, n0=4096, queue=1, img=I()),
            op("img_fill", 0, img=I(color=3)), op("img_fill", 0, img=I(extent=(5, 1, 1))),
            op("img_create", 1, img=I(IMG2D, UINT8, w=4, h=4)), op("img_copy", 1, 0, img=I()),
            op("img_copy", 0, 0, img=I(origin=(1, 1, 0), extent=(2, 2, 1))),
            op("img_copy", 0, 0, img=I(origin=(2, 2, 0), extent=(2, 2, 1))), op("img_read", 0, n0=4096, img=I()),
            op("img_create", 2, img=I(IMG2D, UNORM8, F_HRO, w=4, h=4)), op("img_write", 2, n0=4096, img=I()),
            op("img_fill", 2, img=I()), op("img_map", 2, m=0, access=WRITE, img=I()),
            op("img_create", 3, img=I(IMG2D, UNORM8, F_HWO, w=4, h=4)), op("img_read", 3, n0=4096, img=I()),
            op("img_map", 3, m=0, access=READ, img=I()), op("img_write", 3, n0=4096, seed=3, img=I()),
            op("img_create", 3, img=I(IMG2D, UNORM8, F_HNA, w=4, h=4)), op("img_read", 3, n0=4096, img=I()),
            op("img_map", 0, m=4, access=BAD_ACCESS, img=I()),
            op("img_map", 0, m=4, access=READ, img=I(extent=(2, 2, 1))), op("img_release", 0),
            op("img_write", 0, n0=4096, img=I()),
            op("img_map", 0, m=5, access=READ, img=I(origin=(2, 2, 0), extent=(2, 2, 1))),
            op("img_map", 0, m=6, access=WRITE, img=I(extent=(1, 1, 1))), op("unmap", m=4), op("unmap", m=5),
            op("unmap", m=5), op("img_release", 0), op("img_release", 0)]


@seed("image-arrays-buffers")
def _():
    """1D and 2D arrays, copies between images and buffers, 1D-buffer images and views of buffers
    (sharing the buffer's bytes: overlap, a view keeping its buffer), async forms with kept events.
    Views of sub-buffers, fills of 1D-buffer images and copies from a view into its own buffer are
    skipped by the driver on PoCL (the OpenCL backend's tests/driver_bugs/pocl/README.md); here they reach the host and the model."""
    I = image
    return [op("img_create", 0, img=I(IMG1D_ARR, SINT16, w=5, arr=3)),
            op("img_write", 0, n0=8192, seed=40, img=I(rp=("pad", 1), sp=("pad", 1))),
            op("img_read", 0, n0=8192, img=I()),
            op("img_read", 0, n0=8192, img=I(origin=(1, 1, 0), extent=(3, 2, 1), sp=("pad", 2))),
            op("img_create", 1, img=I(IMG2D_ARR, UNORM8, w=3, h=2, arr=4)),
            op("img_write", 1, n0=8192, seed=41, img=I(sp=("pad", 1))),
            op("img_read", 1, n0=8192, img=I(origin=(0, 1, 1), extent=(3, 1, 2))),
            op("create", 0, n0=1024), op("img_to_buf", 1, 0, n1=100, img=I()), op("read", 0, n0=100, n1=96),
            op("write", 0, n0=0, n1=1024, seed=42), op("buf_to_img", 1, 0, n1=8, img=I(origin=(1, 0, 1), extent=(2, 2, 2))),
            op("img_read", 1, n0=8192, img=I()), op("img_to_buf", 1, 0, n1=1000, img=I()),
            op("img_to_buf", 1, 5, img=I()), op("img_view", 2, 0, img=I(IMG1D_BUF, UNORM8, w=8)),
            op("img_read", 2, n0=4096, img=I()),
            op("img_write", 2, n0=4096, seed=43, img=I(origin=(2, 0, 0), extent=(3, 1, 1))), op("read", 0, n1=64),
            op("img_to_buf", 2, 0, n1=16, img=I()), op("img_to_buf", 2, 0, n1=32, img=I()), op("read", 0, n1=64),
            op("sub", 1, 0, n0=512, n1=256), op("create", 3, n0=256), op("img_view", 3, 3, img=I(IMG1D_BUF, F32, w=8)),
            op("img_copy", 3, 2, img=I()), op("img_view", 3, 3, img=I(IMG1D_BUF, UNORM8, w=8)),
            op("img_copy", 3, 2, img=I()), op("read", 3, n1=32), op("create", 2, n0=16),
            op("img_view", 3, 2, img=I(IMG1D_BUF, UNORM8, w=8)), op("img_view", 3, 2, img=I(IMG1D_BUF, UNORM8, w=4)),
            op("img_view", 3, 2, img=I(6, UNORM8, w=4)), op("img_view", 3, 7, img=I(IMG1D_BUF, UNORM8, w=4)),
            op("release", 0), op("img_read", 2, n0=4096, img=I()),
            op("img_map", 2, m=7, access=WRITE, img=I(origin=(1, 0, 0), extent=(2, 1, 1))),
            op("write", 1, n0=0, n1=16, seed=44), op("map_write", m=7, n0=0, n1=8, seed=45), op("unmap", m=7),
            op("img_read", 2, n0=4096, img=I()), op("img_create", 0, img=I(IMG1D_BUF, UINT8, w=8)),
            op("img_write", 0, n0=4096, seed=46, img=I()),
            op("img_fill", 1, 1, async_=True, keep=True, img=I(extent=(3, 1, 2))),
            op("img_read", 1, n0=4096, m=2, async_=True, img=I()), op("event", m=1, access=0),
            op("create", 4, n0=64), op("img_to_buf", 0, 4, n1=0, async_=True, keep=True, img=I()),
            op("buf_to_img", 3, 4, n1=8, m=1, async_=True, img=I(extent=(2, 1, 1))),
            op("read", 4, n1=32), op("img_read", 3, n0=64, img=I()), op("finish")]


@seed("image-fill-formats")
def _():
    """fill_image on every format: in-range colors (unorm8: k / 255), saturating ones, the wrong kind."""
    I = image
    out = []
    for k, fmt in enumerate((UNORM8, UINT8, F32, SINT16)):
        out += [op("img_create", k, img=I(IMG2D, fmt, w=3, h=2)), op("img_fill", k, seed=50 + k, img=I()),
                op("img_read", k, n0=4096, img=I()), op("img_fill", k, seed=54 + k, img=I(extent=(2, 1, 1), color=4)),
                op("img_read", k, n0=4096, img=I()), op("img_fill", k, img=I(color=3)),
                op("img_map", k, m=k, access=READ, img=I(origin=(1, 0, 0), extent=(2, 2, 1)))]
    out += [op("img_create", 0, img=I(IMG3D, SINT16, w=2, h=2, d=3)),
            op("img_fill", 0, seed=60, img=I(origin=(0, 1, 1), extent=(2, 1, 2), color=4)),
            op("img_map", 0, m=4, access=DISCARD, img=I(extent=(1, 1, 1))), op("map_write", m=4, n1=8, seed=61),
            op("map_drop", m=4), op("img_read", 0, n0=4096, img=I()), op("finish")]
    return out


@seed("image-fill-hard-colors")
def _():
    """fill_image with the colors drivers convert differently (issue #30 item 1; color bit 3): ties,
    infinities, -0, tiny and near-1 values, on unorm8 and float images, whole and in part."""
    I = image
    out = []
    for k, fmt in enumerate((UNORM8, F32)):
        out += [op("img_create", k, img=I(IMG2D, fmt, w=4, h=2))]
        for s in range(5):
            out += [op("img_fill", k, seed=70 + 2 * s + k, img=I(color=8)), op("img_read", k, n0=4096, img=I()),
                    op("img_fill", k, seed=71 + s, img=I(origin=(1, 1, 0), extent=(2, 1, 1), color=8 | 4)),
                    op("img_read", k, n0=4096, img=I())]
    return out + [op("finish")]


@seed("wrap-odd-addresses")
def _():
    """Buffer::wrap of caller memory 1, 2 and 3 bytes past a page (issue #30 item 6: CUDA's memset and
    copies refused such addresses): fills of every pattern size at aligned and odd offsets, writes,
    copies between two odd wraps, a rect, a sub-buffer, maps, reads back."""
    out = []
    for k in (1, 2, 3):
        out += [op("wrap", k, n0=1024, n1=k, seed=90 + k, wide=True)]
        for pat, off in ((1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (64, 64), (128, 128), (2, 0), (4, 0)):
            out += [op("fill", k, n0=off, n1=pat * 3, pattern=pat, seed=95 + k)]
        out += [op("read", k, n1=1024), op("write", k, n0=3, n1=61, seed=99), op("read", k, n0=1, n1=127)]
    out += [op("copy", 2, 1, n0=5, n1=7, n2=301), op("copy", 3, 2, n0=64, n1=0, n2=128, async_=True),
            op("read", 2, n1=1024), op("read", 3, n1=1024),
            op("write_rect", 1, n0=4096, seed=100, rect=(side(x=3, y=1, rp=34), side(x=1, rp=20), (17, 3, 1))),
            op("read", 1, n1=1024), op("sub", 4, 3, n0=128, n1=256), op("fill", 4, n0=4, n1=64, pattern=4, seed=101),
            op("read", 3, n1=1024), op("map", 3, m=0, n0=1, n1=63, access=READ), op("map", 1, m=1, n0=0, n1=64, access=WRITE),
            op("map_write", m=1, n0=1, n1=9, seed=102), op("unmap", m=1), op("read", 1, n1=64), op("map_drop", m=0),
            op("finish")]
    return out


def px(c, normalized=False):
    """The n0 / n1 / n2 number that pixel_coord() (target.hpp) decodes as coordinate c."""
    return min(max(int(round(c * (256 if normalized else 4))) + 64, 0), 1023)  # clamped to what it can say


@seed("image-read-pixel")
def _():
    """read_pixel on image mappings (issue #30 item 2): a 1D array's and a 2D array's layer coordinate
    rounded with rint (0.5 and 1.5 to even, 0.75 up, -0.5 to 0), never filtered by linear sampling; x
    and y floored and clamped; every address mode, normalised coordinates, linear filtering of unorm8,
    a 3D image, and a mapped region that starts inside the image."""
    I = image
    out = [op("img_create", 0, img=I(IMG1D_ARR, UINT8, w=4, arr=3)), op("img_write", 0, n0=8192, seed=80, img=I()),
           op("img_map", 0, m=0, access=READ, img=I())]
    for x, layer in ((0, 0.5), (1.25, 0.75), (2, 1.0), (3.75, 1.5), (-1, -0.5), (9, 2.5), (1, 7)):
        for linear in (False, True):
            out += [op("img_pixel", m=0, n0=px(x), n1=px(layer), wide=linear, access=1)]
    out += [op("img_create", 1, img=I(IMG2D_ARR, F32, w=3, h=2, arr=4)), op("img_write", 1, n0=8192, seed=81, img=I()),
            op("img_map", 1, m=1, access=READ, img=I(origin=(1, 0, 1), extent=(2, 2, 3)))]
    for x, y, layer in ((0, 0, 0.5), (1.5, 1.75, 0.75), (0.25, 0, 1.0), (1, 1, 1.5), (5, -3, 2.5)):
        for address in (0, 1, 2):
            out += [op("img_pixel", m=1, n0=px(x), n1=px(y), n2=px(layer), access=address)]
        out += [op("img_pixel", m=1, n0=px(x / 2, True), n1=px(y / 2, True), n2=px(layer), keep=True, wide=True,
                   access=3)]
    out += [op("img_create", 2, img=I(IMG2D, UNORM8, w=4, h=3)), op("img_write", 2, n0=8192, seed=82, img=I()),
            op("img_map", 2, m=2, access=WRITE, img=I(origin=(1, 1, 0), extent=(3, 2, 1))),
            op("map_write", m=2, n0=3, n1=5, seed=83)]
    for x, y in ((0.5, 0.5), (1.25, 0.75), (2.9, 1.1), (-2, 4)):
        out += [op("img_pixel", m=2, n0=px(x), n1=px(y), wide=True, access=1),
                op("img_pixel", m=2, n0=px(x / 3, True), n1=px(y / 2, True), keep=True, wide=True, migration=3),
                op("img_pixel", m=2, n0=px(x / 3, True), n1=px(y / 2, True), keep=True, access=3)]
    out += [op("img_create", 3, img=I(IMG3D, SINT16, w=2, h=2, d=3)), op("img_write", 3, n0=8192, seed=84, img=I()),
            op("img_map", 3, m=3, access=READ, img=I()),
            op("img_pixel", m=3, n0=px(1.5), n1=px(0.25), n2=px(2.75), access=1),
            op("img_pixel", m=3, n0=px(1.5), n1=px(0.25), n2=px(2.75), wide=True, access=1),
            op("img_pixel", m=3, n0=px(1), n1=px(1), n2=px(1), access=3),  # repeat without normalised: invalid
            op("unmap", m=0), op("img_pixel", m=0, n0=px(1)), op("img_pixel", m=7, n0=px(1)), op("finish")]
    return out


@seed("image-adopt")
def _():
    """Image::adopt of edgemem's own images (issue #30 item 3: an adopted 1D-buffer image took the
    driver's 1D-buffer path, which crashes PoCL): a 2D image and a 1D-buffer image adopted into another
    slot, then written, filled, copied to and from buffers and other images, mapped and sampled; adopted
    twice, onto its own slot, from an empty slot (released); and the adoptions the driver keeps out (a
    view of a buffer slot, an open mapping)."""
    I = image
    return [op("img_create", 0, img=I(IMG2D, UNORM8, w=4, h=2)), op("img_write", 0, n0=8192, seed=110, img=I()),
            op("img_adopt", 1, 0), op("img_read", 1, n0=8192, img=I()), op("img_read", 0, n0=8192, img=I()),
            op("img_fill", 1, seed=111, img=I(origin=(1, 0, 0), extent=(2, 2, 1), color=4)),
            op("img_read", 1, n0=8192, img=I()),
            op("img_create", 2, img=I(IMG1D_BUF, UINT8, w=8)), op("img_write", 2, n0=8192, seed=112, img=I()),
            op("img_adopt", 3, 2), op("img_fill", 3, seed=113, img=I(origin=(2, 0, 0), extent=(3, 1, 1))),
            op("img_read", 3, n0=8192, img=I()), op("create", 0, n0=256), op("write", 0, n1=256, seed=114),
            op("img_to_buf", 3, 0, n1=16, img=I(origin=(1, 0, 0), extent=(5, 1, 1))), op("read", 0, n1=256),
            op("buf_to_img", 3, 0, n1=40, img=I(origin=(0, 0, 0), extent=(4, 1, 1))),
            op("img_read", 3, n0=8192, img=I()),
            op("img_create", 2, img=I(IMG1D_BUF, UINT8, w=8)), op("img_copy", 2, 3, img=I(extent=(8, 1, 1))),
            op("img_read", 2, n0=8192, img=I()),
            op("img_adopt", 3, 3), op("img_read", 3, n0=8192, img=I()),
            op("img_adopt", 0, 1), op("img_map", 0, m=0, access=READ, img=I()),
            op("img_pixel", m=0, n0=px(1.5), n1=px(0.5), access=1),
            op("img_adopt", 2, 3),  # kept out: a mapping is open
            op("unmap", m=0), op("img_read", 0, n0=8192, async_=True, img=I()),
            op("img_adopt", 1, 0), op("img_read", 1, n0=8192, img=I()),
            op("img_view", 0, 0, img=I(IMG1D_BUF, UINT8, w=16)), op("img_adopt", 2, 0),  # kept out: a view of slot 0
            op("img_drop", 0), op("img_adopt", 0, 0),  # released
            op("img_release", 1), op("img_adopt", 2, 1),  # released
            op("img_read", 3, n0=8192, img=I()), op("finish")]


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_corpus_svm  # noqa: E402  (the SVM seeds)
gen_corpus_svm.register(sys.modules[__name__])
import gen_corpus_external  # noqa: E402  (the external-memory seeds)
gen_corpus_external.register(sys.modules[__name__])


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out_dir, exist_ok=True)
    for prefix, table in (("seed-", SEEDS), ("regress-", REGRESS)):
        for name, fn in table.items():
            data = b"".join(fn())
            with open(os.path.join(out_dir, prefix + name + ".bin"), "wb") as f:
                f.write(data)
            print("%s%s.bin: %d bytes" % (prefix, name, len(data)))


if __name__ == "__main__":
    main()
