"""NumPy as a DLPack consumer and producer of edgemem (run by `meson test dlpack_numpy`).

numpy.from_dlpack(frame) must see an edgemem buffer's bytes zero-copy with the right shape and
dtype, and keep the memory after the frame object is gone; edgemem.from_dlpack must import a NumPy
array's bytes and run NumPy's deleter (the array's reference count returns to where it was)."""
import gc
import sys

import numpy as np

import edgemem_dlpack_py as em


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def export_to_numpy():
    base = em.live_buffers()
    frame = em.make_frame(6, 10)
    check(frame.__dlpack_device__() == (1, 0), "__dlpack_device__ is (kDLCPU, 0)")
    arr = np.from_dlpack(frame)
    expected = np.arange(60, dtype=np.float32).reshape(6, 10) + np.float32(0.25)
    check(arr.dtype == np.float32, "dtype float32")
    check(arr.shape == (6, 10), "shape (6, 10)")
    check(arr.flags["C_CONTIGUOUS"], "C-contiguous")
    check(np.array_equal(arr, expected), "the values written through the edgemem queue")
    # Zero-copy: both arrays see a write through the edgemem queue (NumPy 1.24 makes them read-only).
    other = np.from_dlpack(frame)
    frame.set(2 * 10 + 3, -1.0)
    check(arr[2, 3] == -1.0 and other[2, 3] == -1.0, "the arrays share the buffer's memory")
    del other
    # The tensor holds the buffer: the frame goes, the array still reads the bytes.
    del frame
    gc.collect()
    if em.live_counters():
        check(em.live_buffers() == base + 1, "the array keeps the edgemem buffer")
    expected[2, 3] = -1.0
    check(np.array_equal(arr, expected), "the bytes after the frame object is gone")
    del arr
    gc.collect()
    check(em.live_buffers() == base, "NumPy called the deleter: the buffer is released")
    # A capsule nobody consumes is deleted by its destructor.
    frame = em.make_frame(2, 2)
    capsule = frame.__dlpack__()
    del frame, capsule
    gc.collect()
    check(em.live_buffers() == base, "an unconsumed capsule releases the buffer")


def import_from_numpy():
    base = em.live_buffers()
    a = np.arange(1000, dtype=np.uint16).reshape(10, 100) * 3
    refs = sys.getrefcount(a)
    capsule = a.__dlpack__()
    check(sys.getrefcount(a) == refs + 1, "a live capsule holds the array (the refcount check can fail)")
    del capsule
    check(sys.getrefcount(a) == refs, "a dropped capsule lets it go")
    data = em.import_array(a)
    gc.collect()
    check(data == a.tobytes(), "edgemem reads the array's bytes")
    check(sys.getrefcount(a) == refs, "NumPy's deleter ran: the array's refcount is back")
    b = np.linspace(0, 1, 77, dtype=np.float64)
    check(em.import_array(b) == b.tobytes(), "a float64 vector")
    s = np.arange(64, dtype=np.int32).reshape(8, 8)[:, ::2]  # not contiguous
    refs = sys.getrefcount(s)
    try:
        em.import_array(s)
        check(False, "a strided array is refused")
    except RuntimeError as e:
        check("unsupported" in str(e), "a strided array is refused (unsupported): " + str(e))
    gc.collect()
    check(sys.getrefcount(s) == refs, "the refused capsule's destructor ran NumPy's deleter")
    check(em.live_buffers() == base, "no edgemem buffer is left")


export_to_numpy()
import_from_numpy()
print("all passed")
