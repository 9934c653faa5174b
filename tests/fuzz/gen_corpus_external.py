"""The external-memory seeds of the differential fuzzer's corpus (gen_corpus.py registers them; run
gen_corpus.py, not this file). Each is a short operation sequence in driver.cpp's input format reaching
the external-memory ops (target.hpp: op_ext_*) and the buffer ops on imported and exportable memory,
with their documented Errc. Fields of op_ext_import: access = the memory (MEMFD, DMA_BUF, HOST_PTR,
BAD_TYPE), m = the fd (bit 0: the sealed memfd, bit 1: fd -1), n0 = offset (host pointer: bytes past a
page), n1 = bytes, keep = allow_copy, wide = require_sealed."""


def register(g):
    """Adds the external-memory seeds to gen_corpus's SEEDS (g: the gen_corpus module)."""
    op, seed = g.op, g.seed
    READ, WRITE, DISCARD = g.READ, g.WRITE, g.DISCARD
    RO, WO, H_RO, H_NA, BAD = g.RO, g.WO, g.H_RO, g.H_NA, g.BAD
    MEMFD, DMA_BUF, HOST_PTR, BAD_TYPE = 0, 1, 2, 3
    UNSEALED, SEALED, NO_FD = 0, 1, 2

    @seed("external-import")
    def _():
        """Imports of both memfds (memfd and dma-buf forms) zero-copy: the fd's writes (pwrite) are seen
        by every import, an import's writes by the others and by copies; a view of an import; a copying
        import (misaligned offset with allow_copy) that later fd writes do not reach; host pointers
        zero-copy and copied; maps of imports; release with a view alive."""
        return [op("ext_pwrite", m=UNSEALED, n0=0, n1=8192, seed=180), op("ext_pwrite", m=SEALED, n1=8192, seed=181),
                op("ext_import", 0, m=UNSEALED, n0=0, n1=4096, access=MEMFD), op("read", 0, n1=4096),
                op("ext_import", 1, m=UNSEALED, n0=2048, n1=4096, access=DMA_BUF), op("read", 1, n1=4096),
                op("write", 0, n0=2048, n1=1024, seed=182), op("read", 1, n1=2048),
                op("ext_pwrite", m=UNSEALED, n0=3000, n1=500, seed=183), op("read", 0, n1=4096), op("read", 1, n1=4096),
                op("ext_import", 2, m=SEALED, n0=256, n1=8192 - 256, access=MEMFD, wide=True), op("read", 2, n1=1024),
                op("sub", 3, 2, n0=1024, n1=512), op("fill", 3, n0=0, n1=512, pattern=4, seed=184),
                op("read", 2, n0=1024, n1=512), op("ext_import", 4, m=UNSEALED, n0=100, n1=1000, access=MEMFD, keep=True),
                op("read", 4, n1=1000), op("ext_pwrite", m=UNSEALED, n0=100, n1=1000, seed=185), op("read", 4, n1=1000),
                op("copy", 4, 0, n0=0, n1=0, n2=512), op("read", 0, n1=512), op("read", 1, n0=0, n1=512),
                op("ext_import", 5, n0=0, n1=2000, access=HOST_PTR, seed=186), op("read", 5, n1=2000),
                op("ext_import", 6, n0=8, n1=300, access=HOST_PTR, keep=True, seed=187), op("read", 6, n1=300),
                op("ext_import", 7, n0=128, n1=64, access=HOST_PTR, seed=188), op("copy", 7, 0, n2=64),
                op("read", 0, n1=64), op("map", 1, m=0, n0=0, n1=256, access=WRITE),
                op("map_write", m=0, n0=0, n1=256, seed=189), op("unmap", m=0), op("read", 0, n0=2048, n1=256),
                op("map", 0, m=1, n1=4096, access=READ), op("map_drop", m=1), op("release", 2), op("read", 3, n1=512),
                op("ext_pwrite", m=SEALED, n0=1200, n1=64, seed=190), op("read", 3, n1=512), op("drop", 3),
                op("ext_import", 2, m=UNSEALED, n0=0, n1=8192, access=MEMFD, flags=RO), op("read", 2, n1=8192),
                op("migrate", 0, migration=2), op("read", 1, n1=4096), op("finish")]

    @seed("external-export")
    def _():
        """create_exportable, the import of its export handle and of a view's (the same memory both
        ways), a re-export of an import, a sealed memfd import exported, what is not exportable
        (unsupported: plain buffers, unsealed and dma-buf imports, copies, pool blocks), an empty slot
        (released), exportable memory on the second context."""
        return [op("ext_exportable", 0, n0=4096), op("read", 0, n1=4096), op("write", 0, n1=4096, seed=200),
                op("ext_handle", 1, 0), op("read", 1, n1=4096), op("write", 1, n0=512, n1=512, seed=201),
                op("read", 0, n1=4096), op("sub", 2, 0, n0=1024, n1=1024), op("ext_handle", 3, 2),
                op("read", 3, n1=1024), op("fill", 3, n0=0, n1=256, pattern=8, seed=202), op("read", 0, n0=1024, n1=512),
                op("ext_handle", 4, 3), op("write", 4, n1=128, seed=203), op("read", 2, n1=256), op("read", 1, n1=4096),
                op("ext_import", 5, m=SEALED, n0=4096, n1=4096, access=MEMFD), op("ext_handle", 6, 5),
                op("ext_pwrite", m=SEALED, n0=4096, n1=300, seed=204), op("read", 6, n1=512),
                op("write", 6, n0=1000, n1=100, seed=205), op("read", 5, n1=2048),
                op("ext_import", 5, m=UNSEALED, n0=0, n1=128, access=MEMFD), op("ext_handle", 6, 5),
                op("ext_import", 5, m=SEALED, n0=0, n1=128, access=DMA_BUF), op("ext_handle", 6, 5),
                op("ext_import", 5, m=SEALED, n0=64, n1=128, access=MEMFD, keep=True), op("ext_handle", 6, 5),
                op("create", 5, n0=256), op("ext_handle", 6, 5), op("drop", 5), op("ext_handle", 6, 5),
                op("pool_init", n0=256, count=2), op("pool_acquire", 5), op("ext_handle", 6, 5), op("drop", 5),
                op("ext_handle", 6, 0, flags=RO | WO), op("ext_handle", 6, 0, flags=BAD), op("ext_handle", 6, 0, flags=RO),
                op("read", 6, n1=64), op("ext_exportable", 7, n0=1000, ctx=1), op("write", 7, n1=1000, seed=206, queue=1),
                op("ext_handle", 5, 7), op("read", 5, n1=1000, queue=1), op("read", 5, n1=16),
                op("release", 0), op("read", 1, n1=4096), op("drop", 2), op("read", 3, n1=1024), op("finish")]

    @seed("external-errors")
    def _():
        """Every Errc of the external-memory ops in edgemem's check order: zero bytes, past the device's
        max, bad flags, null and misaligned host pointers, an unknown HandleType, fd -1, an unsealed memfd
        with require_sealed (a dma-buf ignores it), offset + bytes past the fd (and overflowing),
        misaligned offsets without allow_copy; create_exportable's zero, max and flags."""
        return [op("ext_import", 0, n1=0), op("ext_import", 0, n1="max"), op("ext_import", 0, m=NO_FD, n1=0, access=BAD_TYPE),
                op("ext_import", 0, n1=64, flags=RO | WO), op("ext_import", 0, n1=64, flags=BAD),
                op("ext_import", 0, n1=64, flags=H_RO | H_NA), op("ext_import", 0, n1=64, access=HOST_PTR, null=True),
                op("ext_import", 0, n0=1, n1=64, access=HOST_PTR), op("ext_import", 0, n0=64, n1=64, access=HOST_PTR),
                op("ext_import", 0, n1=64, access=BAD_TYPE), op("ext_import", 0, m=NO_FD, n1=64),
                op("ext_import", 0, m=NO_FD | SEALED, n1=64, access=DMA_BUF),
                op("ext_import", 0, m=UNSEALED, n1=64, wide=True), op("ext_import", 0, m=UNSEALED, n1=64, access=DMA_BUF, wide=True),
                op("ext_import", 1, m=SEALED, n1=64, wide=True), op("ext_import", 2, m=SEALED, n0=8192, n1=1),
                op("ext_import", 2, m=SEALED, n0=4096, n1=4097), op("ext_import", 2, n0="max", n1=64),
                op("ext_import", 2, n0="max-127", n1=256, access=DMA_BUF), op("ext_import", 2, n0=8191, n1=1),
                op("ext_import", 2, n0=64, n1=64), op("ext_import", 2, n0=129, n1=64, access=DMA_BUF),
                op("ext_import", 2, n0=8191, n1=1, keep=True), op("read", 2, n1=1), op("ext_import", 3, n0=8064, n1=128),
                op("ext_import", 3, n0=0, n1=8192, flags=H_RO), op("write", 3, n1=16, seed=5), op("read", 3, n1=16),
                op("ext_exportable", 4, n0=0), op("ext_exportable", 4, n0="2^40"), op("ext_exportable", 4, n0=64, flags=RO | WO),
                op("ext_exportable", 4, n0=64, flags=BAD), op("ext_exportable", 4, n0=64, flags=H_NA),
                op("ext_handle", 5, 6), op("ext_handle", 5, 4), op("ext_handle", 5, 3), op("finish")]
