#!/usr/bin/env python3
"""Seeds for the hostile-peer fuzzer (peer_driver.cpp): one file per attack the driver plays, each a
valid or nearly valid case, so libFuzzer starts past the magic and version checks. Writes
tests/fuzz/peer_corpus/seed-*.bin (the committed corpus; rerun after changing the driver's input layout).
Layout (peer_driver.cpp's Reader, little-endian): attack byte, then that attack's fields."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_corpus")
MAGIC, VERSION = 0x4D4D4445, 2
BUFFER, POOL = 1, 2


def desc(offset=0, nbytes=4096, kind=BUFFER, block_count=0, block_bytes=0, pool_id=0):
    """An IpcDescriptor's 64 bytes."""
    return struct.pack("<IHHQQ16sHHIQQ", MAGIC, VERSION, 0, offset, nbytes, bytes(16), kind, 0,
                       block_count, block_bytes, pool_id)


def memfd(size, kind=1, seals=0):
    """make_fd's bytes: kind 1 (export's seals) or 2 (seals from the bits: 1 shrink 2 grow 4 write 8 seal)."""
    return bytes([kind]) + struct.pack("<I", size) + bytes([seals])


def use_buffer(read_only=False):
    return bytes([0, 1 if read_only else 0])


def use_pool(pool_id, indices):
    out = bytes([1, len(indices) - 1])
    for i in indices:  # own pool id, small index, no reserved
        out += bytes([1, 1, i, 0])
    return out


def message(sock, fd, body, use, second_fd=None):
    out = bytes([0, sock]) + fd + bytes([1 if second_fd is not None else 0])
    if second_fd is not None:
        out += second_fd
    out += bytes([1]) if len(body) == 64 else bytes([0]) + struct.pack("<I", len(body))
    return out + body + use


def adopt(d, fd, use):
    return bytes([1, 0]) + d + fd + use


def ring(frame_sel, count_sel, steps):
    return bytes([2, frame_sel, count_sel]) + bytes(steps)


SEEDS = {
    "msg-seqpacket-buffer": message(0, memfd(4096), desc(), use_buffer()),
    "msg-dgram-buffer-readonly": message(1, memfd(8192), desc(nbytes=8192), use_buffer(True)),
    "msg-stream-buffer": message(2, memfd(4096), desc(), use_buffer()),
    "msg-seqpacket-pool": message(0, memfd(4096), desc(kind=POOL, block_count=4, block_bytes=1024, pool_id=7),
                                  use_pool(7, [0, 3, 4])),
    "msg-seqpacket-ring": message(0, memfd(4096), desc(), bytes([2])),
    "msg-unsealed-memfd": message(0, memfd(4096, kind=2, seals=0), desc(), use_buffer()),
    "msg-shrink-sealed-memfd": message(0, memfd(4096, kind=2, seals=1), desc(), use_buffer()),
    "msg-two-fds": message(0, memfd(4096), desc(), use_buffer(), second_fd=memfd(4096)),
    "msg-eventfd": message(0, bytes([3]), desc(), use_buffer()),
    "msg-long": message(0, memfd(4096), desc() + bytes(40), use_buffer()),
    "msg-short-stream": message(2, memfd(4096), desc()[:40], use_buffer()),
    "msg-no-fd": message(0, bytes([0]), desc(), use_buffer()),
    "adopt-buffer-past-end": adopt(desc(offset=4096, nbytes=4096), memfd(4096), use_buffer()),
    "adopt-pool": adopt(desc(kind=POOL, block_count=2, block_bytes=2048, pool_id=9), memfd(4096),
                        use_pool(9, [1, 2])),
    "adopt-ring": adopt(desc(nbytes=65536), memfd(65536), bytes([2])),
    # ring: acquire publish take read... with peer writes of head (offset 32), tail (40), frame_count (24)
    "ring-steady": ring(3, 2, [0, 1, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3]),
    "ring-peer-head": ring(1, 3, [0, 1, 4, 32, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 3, 2]),
    "ring-peer-tail": ring(1, 3, [0, 1, 2, 4, 40, 7, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0]),
    "ring-peer-count-reattach": ring(2, 1, [0, 1, 4, 24, 3, 0xff, 0xff, 0xff, 0xff, 6, 2, 3]),
    "ring-peer-geometry-reattach": ring(2, 4, [5, 8, 7, 0, 0, 0, 0, 0, 0, 1, 0, 6, 2, 0]),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, f"seed-{name}.bin"), "wb") as f:
        f.write(data)
print(f"{len(SEEDS)} seeds in {OUT}")
