// The Python module clusterscore._core: declarations and conversions only (names, pandas
// and Arrow live in the Python package). One file per area: bind_classic.cpp,
// bind_comparison.cpp, bind_judging.cpp; this one holds the module, its errors and
// interrupts, the metric registry and the memory cache.
#include <nanobind/nanobind.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "clusterscore/error.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/memory.h"
#include "clusterscore/metric_info.h"
#include "clusterscore/pair_sample.h"
#include "clusterscore/progress.h"
#include "clusterscore/threads.h"
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

// The Python callable shown the core's progress, or null. A raw reference, never
// released at exit: a static nb::object would be destroyed after the interpreter.
PyObject* progress_callable = nullptr;

// The core's ProgressReport: calls progress_callable(done, total). Its code may run a
// pending signal's handler; the exception (KeyboardInterrupt) then stops the core as
// the interrupt check would. Any other exception from it is reported, not raised: a
// progress display does not end a computation.
bool python_progress(uint64_t done, uint64_t total) noexcept {
  nb::gil_scoped_acquire gil;
  if (progress_callable == nullptr) return false;
  PyObject* r = PyObject_CallFunction(progress_callable, "KK", (unsigned long long)done,
                                      (unsigned long long)total);
  if (r != nullptr) {
    Py_DECREF(r);
    return false;
  }
  if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
    PyErr_WriteUnraisable(progress_callable);
    return false;
  }
  PyErr_Fetch(&signal_type, &signal_value, &signal_traceback);
  return true;
}

// CLUSTERSCORE_THREADS, if set, as set_threads() would take it; a ValueError naming it
// otherwise (the import fails with it, and the command line prints it as one line).
void threads_from_environment() {
  const char* value = std::getenv("CLUSTERSCORE_THREADS");
  if (value == nullptr || *value == '\0') return;
  const std::string text(value);
  const bool digits = text.size() <= 6 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw nb::value_error(("CLUSTERSCORE_THREADS='" + text.substr(0, 40) +
                           "': give a whole number of threads (0: one per core)")
                              .c_str());
  if (std::stoul(text) > kMostThreads)
    throw nb::value_error(("CLUSTERSCORE_THREADS='" + text + "': at most " +
                           std::to_string(kMostThreads) + " threads")
                              .c_str());
  set_threads(unsigned(std::stoul(text)));
}

// CLUSTERSCORE_HUGE_PAGES, if set: 1 asks for huge pages, 0 leaves the system's policy; a
// ValueError naming it otherwise (as for CLUSTERSCORE_THREADS).
void huge_pages_from_environment() {
  const char* value = std::getenv("CLUSTERSCORE_HUGE_PAGES");
  if (value == nullptr || *value == '\0') return;
  const std::string text(value);
  if (text != "0" && text != "1")
    throw nb::value_error(("CLUSTERSCORE_HUGE_PAGES='" + text.substr(0, 40) +
                           "': give 1 (huge pages for the big arrays) or 0 (the system's policy)")
                              .c_str());
  set_huge_pages(text == "1");
}

void show_progress(nb::object callable) {
  PyObject* next = callable.is_none() ? nullptr : callable.ptr();
  Py_XINCREF(next);
  Py_XDECREF(progress_callable);
  progress_callable = next;
  set_progress_report(next == nullptr ? nullptr : &python_progress);
}

}  // namespace

NB_MODULE(_core, m) {
  // Arrow tables hold views of bound results (GroupTable, PerItemRows, ClusterFlows), and
  // pyarrow may free its buffers after this module at exit: nanobind would then report the
  // results still alive as leaks, on the command line's stderr.
  nb::set_leak_warnings(false);
  set_interrupt_check(&python_signal_raised);
  threads_from_environment();
  huge_pages_from_environment();
  m.def("set_threads", &set_threads, nb::arg("n"),
        "Uses up to `n` threads in every later call; 0: one per core.");
  m.def("threads", &threads, "The number of threads in use.");
  m.attr("MOST_THREADS") = kMostThreads;
  m.attr("MOST_DRAWS") = kMostDraws;
  // The code the core writes for "no such row or cell" in its index arrays.
  m.attr("NONE") = kNone;
  m.def("show_progress", &show_progress, nb::arg("callable").none(),
        "Calls `callable(done, total)` as the core's long loops advance (each loop starts "
        "again at 0); None stops it. The command line's progress bars use it.");
  static nb::object input_error =
      nb::steal(PyErr_NewException("clusterscore._core.InputError", PyExc_ValueError, nullptr));
  m.attr("InputError") = input_error;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      nb::object args = nb::make_tuple(e.what(), e.source(), e.row(), e.first_row());
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
      .def_ro("high", &MetricInfo::high)
      .def_ro("symmetric", &MetricInfo::symmetric)
      .def_ro("weightable", &MetricInfo::weightable);
  m.def("metric_registry", [] {
    const auto r = metric_registry();
    return std::vector<MetricInfo>(r.begin(), r.end());
  });
  m.def("set_huge_pages", &set_huge_pages, nb::arg("on"),
        "Asks for huge pages for the big arrays mapped from now on (true), or leaves the "
        "system's policy (false, the default).");
  m.def("huge_pages", &huge_pages, "Whether huge pages are asked for.");
  m.def("release_memory", &release_memory,
        "Hands the big arrays kept for reuse back to the system; returns their bytes.");

  bind_classic(m);
  bind_judging(m);
  bind_comparison(m);
  bind_curves(m);
  bind_levels(m);
  bind_truth_sample(m);
}
