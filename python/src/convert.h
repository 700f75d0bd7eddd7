// What the binding files share: array and id-column conversions, and the few result
// conversions one area's bindings use from another's.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
// Every type caster any binding uses, in every file: an inline conversion compiled where
// one is missing would fail at run time, whichever copy the linker keeps.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "classic/classic_cells.h"
#include "comparison/comparison.h"
#include "input/id_chunks.h"
#include "judging/sampling.h"

namespace clusterscore::bindings {

namespace nb = nanobind;

template <class T>
using Array = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// f()'s result, computed with the GIL released: other Python threads run meanwhile (the
// command line writes one batch while the core makes the next), and Ctrl-C is polled by
// the core's own check.
template <class F>
auto without_gil(F f) {
  nb::gil_scoped_release release;
  return f();
}

// Moves (or copies) a std::vector / BigVector into a numpy array that owns it.
template <class V>
nb::object to_numpy(V&& v) {
  using Vec = std::decay_t<V>;
  using T = typename Vec::value_type;
  auto* heap = new Vec(std::forward<V>(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<Vec*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), {heap->size()}, owner));
}

// A read-only numpy view of `v`, a member of the bound result `owner`: no copy, and the
// view keeps the result alive. Enums (a pair kind) are viewed as their codes.
template <class T>
using View = nb::ndarray<nb::numpy, const T, nb::ndim<1>>;
template <class T, class A>
auto view_of(const std::vector<T, A>& v, nb::handle owner) {
  if constexpr (std::is_enum_v<T>) {
    using Code = std::underlying_type_t<T>;
    static_assert(sizeof(Code) == sizeof(T));
    return View<Code>(reinterpret_cast<const Code*>(v.data()), {v.size()}, owner);
  } else {
    return View<T>(v.data(), {v.size()}, owner);
  }
}

// A bound result's array member as a view_of(), for def_prop_ro.
template <class T, auto Member>
auto member_view(nb::handle_t<T> self) {
  return view_of(nb::cast<const T&>(self).*Member, self);
}

// The same for an array member of a member (ClusterFlows' flows, LabelCells' cells).
template <class T, auto Outer, auto Member>
auto nested_view(nb::handle_t<T> self) {
  return view_of(nb::cast<const T&>(self).*Outer.*Member, self);
}

// Column `k` of a result's metric columns (GroupTable's, PerItemRows', a curve's), viewed.
template <class A>
View<double> column_view(const std::vector<std::vector<double, A>>& columns, size_t k,
                         nb::handle owner) {
  if (k >= columns.size()) throw nb::index_error("no such column");
  return view_of(columns[k], owner);
}

// An id column arrives as (kind, values) for integers or (kind, chars, offsets) for
// strings, with an optional validity byte array last; see clusterscore/_arrays.py.
inline IdColumn id_column(const nb::tuple& t) {
  const std::string kind = nb::cast<std::string>(t[0]);
  IdColumn c;
  if (kind == "int64") {
    auto v = nb::cast<Array<int64_t>>(t[1]);
    c = IdColumn::of_ints(v.data(), v.shape(0));
  } else if (kind == "string") {
    auto chars = nb::cast<Array<uint8_t>>(t[1]);
    auto off = nb::cast<Array<int32_t>>(t[2]);
    c = IdColumn::of_strings(reinterpret_cast<const char*>(chars.data()), off.data(),
                             off.shape(0) - 1);
  } else if (kind == "large_string") {
    auto chars = nb::cast<Array<uint8_t>>(t[1]);
    auto off = nb::cast<Array<int64_t>>(t[2]);
    c = IdColumn::of_strings(reinterpret_cast<const char*>(chars.data()), off.data(),
                             off.shape(0) - 1);
  } else {
    throw std::invalid_argument("clusterscore: unknown id column kind " + kind);
  }
  if (t.size() == 4 && !t[3].is_none()) {
    auto valid = nb::cast<Array<uint8_t>>(t[3]);
    if (valid.shape(0) != c.size) throw std::invalid_argument("clusterscore: validity length");
    c.valid = valid.data();
  }
  return c;
}

// The columns of one call. A column arrives as one tuple, or as a list of tuples when
// Arrow holds it in chunks (Parquet row groups, say): the chunks are concatenated here,
// into big vectors that come from the block cache and live as long as the call.
class Columns {
 public:
  IdColumn operator()(nb::handle h) {
    if (nb::isinstance<nb::tuple>(h)) return id_column(nb::borrow<nb::tuple>(h));
    std::vector<IdColumn> chunks;
    for (nb::handle t : nb::cast<nb::list>(h)) chunks.push_back(id_column(nb::cast<nb::tuple>(t)));
    joined_.push_back(concatenate(chunks));
    return joined_.back().column;
  }

 private:
  std::deque<ConcatenatedIds> joined_;  // a deque: elements never move
};

inline nb::object u128_int(unsigned __int128 x) {
  nb::object hi = nb::int_(uint64_t(x >> 64)), lo = nb::int_(uint64_t(x));
  return (hi << nb::int_(64)) | lo;
}

inline nb::object opt(const std::optional<double>& v) {
  if (v) return nb::float_(*v);
  return nb::none();
}

// Conversions of one area used by another (the Comparison's methods return them).
nb::dict scores_dict(const ClassicScores& s, bool weighted);
nb::dict totals_dict(const SampleTotals& t);
nb::dict needed_dict(const DrawsNeeded& n);
PairSampleTable sample_table(const Comparison& c, uint64_t pairs, uint64_t stable_pairs,
                             SampleMode mode, uint64_t seed);
UnitPairDraws unit_draws(const Comparison& c, uint64_t pairs, uint64_t stable_pairs,
                         SampleMode mode, uint64_t seed);

// Each area's declarations, called once by the module.
void bind_classic(nb::module_& m);
void bind_judging(nb::module_& m);
void bind_comparison(nb::module_& m);
void bind_curves(nb::module_& m);
void bind_levels(nb::module_& m);
void bind_truth_sample(nb::module_& m);

}  // namespace clusterscore::bindings
