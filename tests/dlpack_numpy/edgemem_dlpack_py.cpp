// A minimal CPython module over edgemem's DLPack calls, for test_numpy_dlpack.py (test suite only):
// make_frame(rows, cols) gives an object with __dlpack__ / __dlpack_device__ over an edgemem buffer
// of float32 rows x cols, filled through a Queue write with value r * cols + c + 0.25 (frame.set(i, v)
// writes one more through the queue);
// import_array(obj) takes obj.__dlpack__(), imports it with edgemem::from_dlpack (renaming the
// capsule "used_dltensor", as the DLPack Python spec asks of a consumer), reads it back through a
// Queue read and returns the bytes; live_buffers() is edgemem's count of live buffers and views.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <new>
#include <vector>

#include <edgemem/edgemem.hpp>

namespace {

struct Device {
  edgemem::Context ctx;
  edgemem::Queue q;
};

/// The module's host context and queue, made on first use (null and a Python error when that fails).
Device* device() {
  static Device* dev = nullptr;
  if (dev != nullptr) return dev;
  auto ctx = edgemem::Context::create();
  if (!ctx) {
    PyErr_Format(PyExc_RuntimeError, "Context::create: %s", ctx.error().message);
    return nullptr;
  }
  auto q = edgemem::Queue::create(*ctx);
  if (!q) {
    PyErr_Format(PyExc_RuntimeError, "Queue::create: %s", q.error().message);
    return nullptr;
  }
  dev = new (std::nothrow) Device{std::move(*ctx), std::move(*q)};
  if (dev == nullptr) PyErr_NoMemory();
  return dev;
}

PyObject* edgemem_error(const char* what, const edgemem::Error& e) {
  PyErr_Format(PyExc_RuntimeError, "%s: %s: %s", what, edgemem::to_string(e.code), e.message);
  return nullptr;
}

struct FrameObject {
  PyObject_HEAD
  edgemem::Buffer* buf;
  std::int64_t shape[2];
};

void frame_dealloc(PyObject* self) {
  auto* f = reinterpret_cast<FrameObject*>(self);
  delete f->buf;
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

/// The DLPack Python spec: a capsule still named "dltensor" was never consumed, so its tensor is ours.
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  PyErr_Restore(type, value, traceback);
}

PyObject* frame_dlpack(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* kwlist[] = {"stream", nullptr};
  PyObject* stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$O", const_cast<char**>(kwlist), &stream)) return nullptr;
  if (stream != Py_None) {
    PyErr_SetString(PyExc_BufferError, "a CPU tensor takes stream=None");
    return nullptr;
  }
  auto* f = reinterpret_cast<FrameObject*>(self);
  auto t = edgemem::to_dlpack(*f->buf, DLDataType{kDLFloat, 32, 1}, f->shape, 2);
  if (!t) return edgemem_error("to_dlpack", t.error());
  PyObject* capsule = PyCapsule_New(*t, "dltensor", capsule_destructor);
  if (capsule == nullptr) (*t)->deleter(*t);
  return capsule;
}

/// frame.set(index, value): writes one float through the edgemem queue (the arrays see it: zero-copy).
PyObject* frame_set(PyObject* self, PyObject* args) {
  Py_ssize_t index = 0;
  float value = 0;
  if (!PyArg_ParseTuple(args, "nf", &index, &value)) return nullptr;
  auto* f = reinterpret_cast<FrameObject*>(self);
  if (index < 0 || index >= f->shape[0] * f->shape[1]) {
    PyErr_SetString(PyExc_IndexError, "index out of range");
    return nullptr;
  }
  auto w = device()->q.write(*f->buf, static_cast<std::size_t>(index) * sizeof(float), &value, sizeof value);
  if (!w) return edgemem_error("Queue::write", w.error());
  Py_RETURN_NONE;
}

PyObject* frame_dlpack_device(PyObject*, PyObject*) { return Py_BuildValue("(ii)", int{kDLCPU}, 0); }

template <class F>
PyCFunction as_cfunction(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

PyMethodDef frame_methods[] = {
    {"__dlpack__", as_cfunction(frame_dlpack), METH_VARARGS | METH_KEYWORDS, "A DLPack capsule of the frame"},
    {"__dlpack_device__", frame_dlpack_device, METH_NOARGS, "(kDLCPU, 0)"},
    {"set", frame_set, METH_VARARGS, "set(index, value): one float written through the edgemem queue"},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot frame_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(frame_dealloc)},
    {Py_tp_methods, frame_methods},
    {0, nullptr},
};

PyType_Spec frame_spec = {"edgemem_dlpack_py.Frame", sizeof(FrameObject), 0, Py_TPFLAGS_DEFAULT, frame_slots};

PyObject* frame_type = nullptr;

PyObject* make_frame(PyObject*, PyObject* args) {
  Py_ssize_t rows = 0, cols = 0;
  if (!PyArg_ParseTuple(args, "nn", &rows, &cols)) return nullptr;
  if (rows <= 0 || cols <= 0) {
    PyErr_SetString(PyExc_ValueError, "rows and cols must be positive");
    return nullptr;
  }
  Device* dev = device();
  if (dev == nullptr) return nullptr;
  const auto n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  // Memory with a stable host address: exportable where the device has unified memory, else plain
  // (exported on the host backend only).
  auto buf = edgemem::Buffer::create_exportable(dev->ctx, n * sizeof(float));
  if (!buf) buf = edgemem::Buffer::create(dev->ctx, n * sizeof(float));
  if (!buf) return edgemem_error("Buffer::create", buf.error());
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) + 0.25f;
  auto w = dev->q.write(*buf, 0, values.data(), n * sizeof(float));
  if (!w) return edgemem_error("Queue::write", w.error());
  auto* type = reinterpret_cast<PyTypeObject*>(frame_type);
  auto* f = reinterpret_cast<FrameObject*>(type->tp_alloc(type, 0));
  if (f == nullptr) return nullptr;
  f->buf = new (std::nothrow) edgemem::Buffer(std::move(*buf));
  f->shape[0] = rows;
  f->shape[1] = cols;
  if (f->buf == nullptr) {
    Py_DECREF(f);
    return PyErr_NoMemory();
  }
  return reinterpret_cast<PyObject*>(f);
}

PyObject* import_array(PyObject*, PyObject* obj) {
  Device* dev = device();
  if (dev == nullptr) return nullptr;
  PyObject* capsule = PyObject_CallMethod(obj, "__dlpack__", nullptr);
  if (capsule == nullptr) return nullptr;
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (t == nullptr) {
    Py_DECREF(capsule);
    return nullptr;
  }
  auto buf = edgemem::from_dlpack(dev->ctx, t);
  if (!buf) {
    Py_DECREF(capsule);  // still "dltensor": its destructor calls the producer's deleter
    return edgemem_error("from_dlpack", buf.error());
  }
  PyCapsule_SetName(capsule, "used_dltensor");  // the buffer owns the tensor now
  Py_DECREF(capsule);
  PyObject* out = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(buf->size()));
  if (out == nullptr) return nullptr;
  auto r = dev->q.read(*buf, 0, PyBytes_AS_STRING(out), buf->size());
  if (!r) {
    Py_DECREF(out);
    return edgemem_error("Queue::read", r.error());
  }
  return out;  // `buf` goes here: the producer's deleter runs
}

PyObject* live_buffers(PyObject*, PyObject*) {
  const edgemem::LiveObjects l = edgemem::live_objects();
  return PyLong_FromLongLong(l.buffers + l.sub_buffers);
}

PyObject* live_counters(PyObject*, PyObject*) { return PyBool_FromLong(edgemem::live_objects_enabled ? 1 : 0); }

PyMethodDef module_methods[] = {
    {"make_frame", make_frame, METH_VARARGS, "make_frame(rows, cols): a float32 frame with __dlpack__"},
    {"import_array", import_array, METH_O, "import_array(obj): obj's bytes, imported through from_dlpack"},
    {"live_buffers", live_buffers, METH_NOARGS, "edgemem's live buffers and sub-buffers"},
    {"live_counters", live_counters, METH_NOARGS, "True when this build counts live objects"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "edgemem_dlpack_py", "edgemem DLPack test module", -1,
                          module_methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit_edgemem_dlpack_py() {
  frame_type = PyType_FromSpec(&frame_spec);
  if (frame_type == nullptr) return nullptr;
  return PyModule_Create(&module_def);
}
