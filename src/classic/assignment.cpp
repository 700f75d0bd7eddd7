#include "classic/assignment.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "detail/interrupt.h"

namespace clusterscore::detail {
namespace {

constexpr uint32_t kFree = UINT32_MAX;
constexpr double kAlpha = 5.0;  // ε shrinks by this factor per phase

// The doubled graph in CSR, person by person: person r < n_rows is row r and bids for
// columns (object q) and its own mirror (object n_cols + r, benefit 0); person
// n_rows + q is column q's mirror and bids for mirrored rows (object n_cols + r, same
// benefit as cell (r, q)) and for column q itself (benefit 0).
struct Doubled {
  std::vector<uint64_t> start;
  std::vector<uint32_t> object;
  std::vector<double> benefit;
};

Doubled doubled(size_t n_rows, size_t n_cols, std::span<const uint64_t> start,
                std::span<const uint32_t> col, std::span<const double> profit, double scale) {
  const size_t n = n_rows + n_cols, edges = start[n_rows];
  Doubled d;
  d.start.assign(n + 1, 0);
  for (size_t r = 0; r < n_rows; ++r) d.start[r + 1] = start[r + 1] - start[r] + 1;
  for (size_t e = 0; e < edges; ++e) ++d.start[n_rows + col[e] + 1];
  for (size_t q = 0; q < n_cols; ++q) ++d.start[n_rows + q + 1];
  for (size_t i = 0; i < n; ++i) d.start[i + 1] += d.start[i];
  d.object.resize(d.start[n]);
  d.benefit.resize(d.start[n]);
  std::vector<uint64_t> fill(d.start.begin(), d.start.end() - 1);
  auto put = [&](size_t person, uint32_t object, double b) {
    d.object[fill[person]] = object;
    d.benefit[fill[person]++] = b;
  };
  for (uint32_t r = 0; r < n_rows; ++r) {
    for (uint64_t e = start[r]; e < start[r + 1]; ++e) {
      put(r, col[e], profit[e] * scale);
      put(n_rows + col[e], uint32_t(n_cols + r), profit[e] * scale);
    }
    put(r, uint32_t(n_cols + r), 0.0);
  }
  for (uint32_t q = 0; q < n_cols; ++q) put(n_rows + q, q, 0.0);
  return d;
}

// One ε phase of the forward auction, Gauss–Seidel: unassigned persons bid in turn for
// their best object, raising its price by the margin over their second best plus ε.
// Ends with every person assigned (a perfect matching exists) and ε-complementary
// slackness: each person within ε of its best value.
void auction_phase(const Doubled& d, double eps, std::vector<double>& price,
                   std::vector<uint32_t>& owner, std::vector<uint32_t>& assigned) {
  const size_t n = assigned.size();
  std::fill(owner.begin(), owner.end(), kFree);
  std::fill(assigned.begin(), assigned.end(), kFree);
  std::deque<uint32_t> waiting;
  for (uint32_t i = 0; i < n; ++i) waiting.push_back(i);
  for (size_t bids = 0; !waiting.empty(); ++bids) {
    poll_every<18>(bids);  // a bid scans a row: polled often enough to stop within 0.1 s
    const uint32_t i = waiting.front();
    waiting.pop_front();
    double v1 = -std::numeric_limits<double>::infinity(), v2 = v1;
    uint32_t best = kFree;
    for (uint64_t e = d.start[i]; e < d.start[i + 1]; ++e) {
      const double v = d.benefit[e] - price[d.object[e]];
      if (v > v1) {
        v2 = v1;
        v1 = v;
        best = d.object[e];
      } else if (v > v2) {
        v2 = v;
      }
    }
    // A person with one object (a row or a column without edges) is its only bidder:
    // the smallest raise will do. The price must rise even where the step is below its
    // rounding, or the bidding loops.
    if (v2 == -std::numeric_limits<double>::infinity()) v2 = v1;
    const double raised = price[best] + (v1 - v2 + eps);
    price[best] = raised > price[best] ? raised : std::nextafter(price[best], HUGE_VAL);
    if (owner[best] != kFree) {
      assigned[owner[best]] = kFree;
      waiting.push_back(owner[best]);
    }
    owner[best] = i;
    assigned[i] = best;
  }
}

bool all_integers(std::span<const double> profit, double limit) {
  for (double p : profit)
    if (p != std::floor(p) || p > limit) return false;
  return true;
}

}  // namespace

std::vector<uint32_t> max_weight_matching(size_t n_rows, size_t n_cols,
                                          std::span<const uint64_t> start,
                                          std::span<const uint32_t> col,
                                          std::span<const double> profit) {
  std::vector<uint32_t> out(n_rows, kFree);
  if (profit.empty()) return out;
  const size_t n = n_rows + n_cols;
  const double largest = *std::max_element(profit.begin(), profit.end());
  // Integer profits scaled by n + 1 make a final ε of 1 exact: the auction ends within
  // n·ε of the optimum, less than one unit of the original profits. Prices stay integers
  // below 2^53, so every step is exact in doubles.
  const bool exact = all_integers(profit, std::ldexp(1.0, 50) / double(4 * (n + 1)));
  const double scale = exact ? double(n + 1) : 1.0;
  // Other profits: ε stops well above the rounding of prices near the largest profit.
  const double final_eps = exact ? 1.0 : std::ldexp(largest, -36);
  const Doubled d = doubled(n_rows, n_cols, start, col, profit, scale);
  poll_interrupt();
  std::vector<double> price(n, 0.0);
  std::vector<uint32_t> owner(n), assigned(n);
  for (double eps = std::max(final_eps, largest * scale / kAlpha);; eps /= kAlpha) {
    if (exact) eps = std::max(1.0, std::floor(eps));
    eps = std::max(eps, final_eps);
    auction_phase(d, eps, price, owner, assigned);
    if (eps <= final_eps) break;
  }
  for (size_t r = 0; r < n_rows; ++r)
    if (assigned[r] < n_cols) out[r] = assigned[r];
  return out;
}

}  // namespace clusterscore::detail
