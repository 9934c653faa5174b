"""The shared virtual memory seeds of the differential fuzzer's corpus (gen_corpus.py registers them;
run gen_corpus.py, not this file). Each is a short operation sequence in driver.cpp's input format
reaching the SVM ops (target.hpp: op_svm_*) and the buffer ops on SVM, with their documented Errc.
A grain that only some targets have (PoCL may lack fine_system) makes the driver skip that op."""


def register(g):
    """Adds the SVM seeds to gen_corpus's SEEDS (g: the gen_corpus module)."""
    op, image, seed, side = g.op, g.image, g.seed, g.side
    COARSE, FINE, FSYS, BAD_GRAIN = g.COARSE, g.FINE, g.FSYS, g.BAD_GRAIN
    A64, A96, A256 = g.ALIGN_64, g.ALIGN_96, g.ALIGN_256
    READ, WRITE, DISCARD = g.READ, g.WRITE, g.DISCARD

    @seed("svm-basic")
    def _():
        """Svm objects in buffer slots: writes, reads, fills (async, a kept event), copies SVM <-> SVM and
        SVM <-> buffer, Svm::sub and Buffer::sub views, host_span (fine grain: read and written; coarse:
        access_denied), maps (conflicts included), like, migrate, release with a view alive."""
        return [op("svm_create", 0, n0=2048, access=COARSE), op("write", 0, n1=2048, seed=160),
                op("read", 0, n1=2048), op("svm_create", 1, n0=1024, access=FINE, migration=A64),
                op("write", 1, n1=1024, seed=161), op("copy", 1, 0, n0=512, n1=0, n2=512), op("read", 1, n1=1024),
                op("create", 2, n0=1024), op("write", 2, n1=1024, seed=162), op("copy", 0, 2, n0=0, n1=1024, n2=1024),
                op("copy", 2, 0, n0=0, n1=0, n2=512, async_=True), op("read", 0, n1=2048), op("read", 2, n1=1024),
                op("fill", 0, n0=64, n1=256, pattern=8, seed=163),
                op("fill", 1, 1, n0=0, n1=512, pattern=128, seed=164, async_=True, keep=True),
                op("read", 1, n1=1024, async_=True, m=0b0010), op("svm_sub", 3, 0, n0=512, n1=512),
                op("read", 3, n1=512), op("write", 3, n0=0, n1=64, seed=165), op("read", 0, n0=512, n1=128),
                op("sub", 4, 0, n0=1024, n1=512), op("read", 4, n1=512), op("svm_span", 1),
                op("svm_span", 1, wide=True), op("svm_span", 1, n0=100, n1=300, seed=166, keep=True),
                op("read", 1, n1=1024), op("svm_span", 0), op("svm_span", 3), op("svm_span", 4),
                op("map", 0, m=0, n0=0, n1=512, access=WRITE), op("map_write", m=0, n0=8, n1=100, seed=167),
                op("unmap", m=0), op("read", 0, n1=1024), op("map", 0, m=1, n0=512, n1=512, access=READ),
                op("map", 3, m=2, n1=64, access=WRITE), op("write", 0, n0=600, n1=4, seed=1),
                op("read", 3, n1=512), op("map_drop", m=1), op("map", 1, m=3, n1=1024, access=DISCARD),
                op("map_write", m=3, n1=1024, seed=168), op("map_drop", m=3), op("read", 1, n1=1024),
                op("svm_like", 5, 0), op("write", 5, n1=2048, seed=169), op("read", 5, n0=1000, n1=48),
                op("migrate", 1, migration=1), op("migrate", 0, migration=0), op("read", 0, n1=2048),
                op("release", 0), op("read", 3, n1=512), op("drop", 3), op("read", 4, n1=512), op("move", 6, 4),
                op("read", 6, n1=512), op("drop", 6), op("svm_create", 7, n0=64, access=FSYS, migration=A64),
                op("svm_span", 7, keep=True, n1=64, seed=2), op("read", 7, n1=64), op("finish")]

    @seed("svm-errors")
    def _():
        """Svm::create's, like's, sub's and host_span's Errc in check order, the buffer ops' range and
        overlap checks on SVM, rect transfers, image views and image <-> buffer copies on SVM
        (unsupported), SVM of the other context, use after release."""
        rect = (side(0, 0, 0, rp=64), side(0), (16, 2, 1))
        return [op("svm_create", 0, n0=1024, access=BAD_GRAIN), op("svm_create", 0, n0=0),
                op("svm_create", 0, n0="max"), op("svm_create", 0, n0="2^40", access=FINE),
                op("svm_create", 0, n0=1024, migration=A96), op("svm_create", 0, n0=1024, migration=A256),
                op("svm_create", 0, n0="max", migration=A96), op("svm_create", 0, n0=0, access=BAD_GRAIN),
                op("svm_like", 1, 7), op("svm_sub", 1, 7, n1=64), op("svm_span", 7), op("create", 7, n0=256),
                op("svm_like", 1, 7), op("svm_sub", 1, 7, n1=64), op("svm_span", 7),
                op("svm_create", 0, n0=1022, access=FINE), op("svm_span", 0, wide=True), op("svm_span", 0),
                op("svm_sub", 1, 0, n0=0, n1=0), op("svm_sub", 1, 0, n0=512, n1=511), op("svm_sub", 1, 0, n0=1, n1=64),
                op("svm_sub", 1, 0, n0=128, n1="max"), op("svm_sub", 1, 0, n0="max", n1=2),
                op("svm_sub", 1, 0, n0=0, n1=512), op("svm_sub", 2, 1, n0=256, n1=256), op("svm_span", 2),
                op("svm_like", 3, 2), op("read", 3, n1=1), op("write", 3, n1=256, seed=4), op("read", 3, n1=256),
                op("write", 0, n0=1000, n1=64, seed=1), op("read", 0, n1=0), op("write", 0, n1=16, null=True),
                op("read", 0, n1=16, null=True), op("fill", 0, n0=2, n1=8, pattern=4), op("fill", 0, n1=8, pattern=3),
                op("fill", 0, n0=1020, n1=8, pattern=4), op("copy", 0, 0, n0=0, n1=64, n2=128),
                op("copy", 1, 0, n0=0, n1=0, n2=64), op("copy", 2, 1, n0=256, n1=0, n2=256),
                op("write_rect", 0, n0=4096, seed=2, rect=rect), op("read_rect", 0, n0=4096, rect=rect),
                op("copy_rect", 7, 0, rect=rect), op("copy_rect", 0, 7, rect=rect),
                op("img_view", 0, 0, img=image(g.IMG1D_BUF, g.UNORM8, w=8)),
                op("img_create", 1, img=image(g.IMG2D, g.UNORM8, w=4, h=2)), op("img_to_buf", 1, 0, img=image()),
                op("buf_to_img", 1, 0, n1=64, img=image()), op("migrate", 0, migration=3),
                op("svm_create", 4, n0=256, ctx=1), op("write", 4, n1=64, seed=3),
                op("write", 4, n1=64, seed=3, queue=1), op("read", 4, n1=64, queue=1), op("copy", 0, 4, n2=64),
                op("copy", 4, 0, n2=64, queue=1), op("map", 4, m=0, n1=64), op("svm_like", 5, 4),
                op("read", 5, n1=64, queue=1), op("release", 0), op("svm_span", 0), op("write", 0, n1=4, seed=1),
                op("read", 1, n1=512), op("finish")]

    @seed("svm-pool-heap")
    def _():
        """A FixedPool and a Heap over SVM: zero-filled blocks, commands and maps on them, no Svm object
        behind a block (host_span: n/a), views (unsupported), busy release, bad grains and page sizes."""
        return [op("svm_pool_init", n0=200, count=4, access=COARSE), op("svm_pool_init", n0=200, count=4),
                op("pool_acquire", 0), op("pool_acquire", 1), op("read", 0, n1=256),
                op("write", 0, n1=256, seed=170), op("copy", 1, 0, n2=256), op("read", 1, n1=256),
                op("map", 1, m=0, n1=128, access=WRITE), op("map_write", m=0, n1=128, seed=171), op("unmap", m=0),
                op("read", 1, n1=256), op("svm_span", 0), op("img_view", 0, 0, img=image(g.IMG1D_BUF, g.UNORM8, w=8)),
                op("create", 2, n0=512), op("copy", 2, 1, n0=0, n1=256, n2=256), op("read", 2, n0=256, n1=256),
                op("pool_release"), op("drop", 0), op("drop", 1), op("pool_release"),
                op("svm_pool_init", n0=64, count=2, access=BAD_GRAIN), op("svm_pool_init", n0=0, count=2),
                op("svm_pool_init", n0=64, count=2, ctx=1), op("pool_destroy"),
                op("svm_heap_init", n0=1024, count=4, access=FINE), op("heap_create", 3, n0=300),
                op("heap_from_host", 4, n0=1024, seed=172), op("read", 4, n1=1024), op("write", 3, n1=300, seed=173),
                op("copy", 4, 3, n0=0, n1=512, n2=256), op("read", 4, n1=1024), op("sub", 5, 4, n0=512, n1=512),
                op("read", 5, n1=512), op("migrate", 4, migration=2), op("read", 4, n1=1024),
                op("write", 4, n1=1024, seed=174), op("read", 4, n1=1024), op("heap_release"), op("heap_destroy"),
                op("read", 4, n1=64), op("drop", 3), op("drop", 4), op("drop", 5),
                op("svm_heap_init", n0=100, count=4), op("svm_heap_init", n0=128, count=2, access=FSYS, n2=1),
                op("heap_create", 6, n0=128), op("heap_create", 7, n0=1), op("read", 6, n1=1),
                op("heap_destroy"), op("drop", 6), op("finish")]
