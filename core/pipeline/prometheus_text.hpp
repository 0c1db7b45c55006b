#pragma once
// The Prometheus text format as every part of GET /metrics writes its series: the requests' counters
// (core/pipeline/metrics.hpp), the database connections' (db/store/database_gauges.hpp), the pool's
// (pool/pool_gauges.hpp). Histograms share one set of bounds, so a dashboard compares them.
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace keeper::core::prometheus {

inline constexpr std::array<double, 11> bucket_bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1.0};
inline constexpr std::size_t bucket_count = bucket_bounds.size() + 1;  // the last: above every bound

// The bucket a duration falls in.
std::size_t bucket_of(std::chrono::microseconds took);

std::string number(double v);

template <typename T>
std::string value(const std::atomic<T>& a) {
    return std::to_string(a.load(std::memory_order_relaxed));
}

// One single-valued series with its HELP and TYPE lines.
void write_one(std::string& out, std::string_view name, std::string_view type, std::string_view help,
               std::string_view value);

// A single-valued series of a block of gauges (db/store/database_gauges.cpp, pool/pool_gauges.cpp):
// its name, its help and the atomic it reads.
template <typename Block, typename T>
struct series_line {
    const char* name;
    const char* help;
    std::atomic<T> Block::*field;
};

// Each of `lines`, of TYPE `type`, its value read from `block`.
template <typename Block, typename T, std::size_t N>
void write_series(std::string& out, std::string_view type, const series_line<Block, T> (&lines)[N],
                  const Block& block) {
    for (const auto& line : lines) write_one(out, line.name, type, line.help, value(block.*line.field));
}

// One histogram's series (buckets cumulative, then sum and count), labelled with `labels` ("" for
// none); nothing when it is empty and skip_empty.
void write_histogram(std::string& out, std::string_view name, std::string_view labels,
                     const std::atomic<std::uint64_t> (&buckets)[bucket_count],
                     const std::atomic<std::uint64_t>& sum_us, bool skip_empty);

}  // namespace keeper::core::prometheus
