// The Python module clusterscore._core: declarations and conversions only (names, pandas
// and Arrow live in the Python package). One file per area: bind_classic.cpp,
// bind_comparison.cpp, bind_judging.cpp; this one holds the module, its errors and
// interrupts, the metric registry and the memory cache.
#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "clusterscore/big_vector.h"
#include "clusterscore/error.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/metric_info.h"
#include "convert.h"

using namespace clusterscore;
using namespace clusterscore::bindings;

namespace {

// A signal's exception (KeyboardInterrupt for Ctrl-C), raised by its Python handler when
// the core polled, held until the Interrupted it became is translated back.
PyObject *signal_type = nullptr, *signal_value = nullptr, *signal_traceback = nullptr;

// The core's InterruptCheck: runs pending signal handlers (the calls release the GIL).
bool python_signal_raised() noexcept {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  PyErr_Fetch(&signal_type, &signal_value, &signal_traceback);
  return true;
}

}  // namespace

NB_MODULE(_core, m) {
  set_interrupt_check(&python_signal_raised);
  static nb::object input_error =
      nb::steal(PyErr_NewException("clusterscore._core.InputError", PyExc_ValueError, nullptr));
  m.attr("InputError") = input_error;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      nb::object args = nb::make_tuple(e.what(), e.source(), e.row());
      PyErr_SetObject(input_error.ptr(), args.ptr());
    } catch (const Interrupted&) {
      if (signal_type == nullptr) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        return;
      }
      PyErr_Restore(signal_type, signal_value, signal_traceback);
      signal_type = signal_value = signal_traceback = nullptr;
    }
  });
  nb::enum_<MetricGroup>(m, "MetricGroup")
      .value("pointwise", MetricGroup::kPointwise)
      .value("impact", MetricGroup::kImpact)
      .value("estimate", MetricGroup::kEstimate)
      .value("classic", MetricGroup::kClassic);
  nb::enum_<Better>(m, "Better")
      .value("higher", Better::kHigher)
      .value("lower", Better::kLower)
      .value("neither", Better::kNeither);
  nb::enum_<Unit>(m, "Unit")
      .value("share", Unit::kShare)
      .value("count", Unit::kCount)
      .value("weight", Unit::kWeight)
      .value("score", Unit::kScore);
  nb::class_<MetricInfo>(m, "MetricInfo")
      .def_prop_ro("name", [](const MetricInfo& i) { return std::string(i.name); })
      .def_ro("group", &MetricInfo::group)
      .def_ro("better", &MetricInfo::better)
      .def_ro("unit", &MetricInfo::unit)
      .def_ro("low", &MetricInfo::low)
      .def_ro("high", &MetricInfo::high);
  m.def("metric_registry", [] {
    const auto r = metric_registry();
    return std::vector<MetricInfo>(r.begin(), r.end());
  });
  m.def("release_memory", [] {
    const uint64_t cached = detail::big_alloc_stats().cached_bytes;
    detail::big_release_cached();
    return cached;
  });

  bind_classic(m);
  bind_judging(m);
  bind_comparison(m);
}
