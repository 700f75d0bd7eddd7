// The join by radix partitions (join/partitioned_join.h): the phases put together.
#include <stdexcept>

#include "detail/interrupt.h"
#include "input/intern_column.h"
#include "join/join_gather.h"
#include "join/join_partitions.h"
#include "join/join_strings.h"
#include "join/partitioned_join.h"

namespace clusterscore::join_detail {
namespace {

BigVector<uint32_t> cluster_index(const ClusteringInput& c, BigVector<uint64_t>* first_row) {
  if (!c.cluster_codes) return detail::intern_column(c.clusters, first_row);
  const size_t n = c.clusters.size;
  BigVector<uint32_t> out(c.cluster_codes, c.cluster_codes + n);
  for (size_t r = 0; r < n; ++r) {
    detail::poll_every(r);
    if (out[r] < first_row->size()) continue;
    if (out[r] != first_row->size())
      throw std::invalid_argument("clusterscore: cluster codes not in order of first appearance");
    first_row->push_back(r);
  }
  return out;
}

}  // namespace

bool join_partitioned(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
                      size_t partition_rows, StringHashFn weak_hash, JoinedClusterings* j,
                      uint64_t string_seed) {
  if (partition_rows == 0) throw std::invalid_argument("clusterscore: partition_rows is 0");
  if (!a.items.is_string()) return PartitionedJoin(IntHash{}, a, b, items, j).run(partition_rows);
  return PartitionedJoin(StringHash{weak_hash, string_seed}, a, b, items, j).run(partition_rows);
}

}  // namespace clusterscore::join_detail
