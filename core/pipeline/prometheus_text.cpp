#include "core/pipeline/prometheus_text.hpp"

#include <cstdio>

namespace keeper::core::prometheus {

std::size_t bucket_of(std::chrono::microseconds took) {
    const double seconds = static_cast<double>(took.count()) / 1e6;
    std::size_t bucket = 0;
    while (bucket < bucket_bounds.size() && seconds > bucket_bounds[bucket]) ++bucket;
    return bucket;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void write_one(std::string& out, std::string_view name, std::string_view type, std::string_view help,
               std::string_view value) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
    out.append(type).append("\n").append(name).append(" ").append(value).append("\n");
}

void write_histogram(std::string& out, std::string_view name, std::string_view labels,
                     const std::atomic<std::uint64_t> (&buckets)[bucket_count],
                     const std::atomic<std::uint64_t>& sum_us, bool skip_empty) {
    const auto with = [&](const std::string& extra) {
        const auto all = labels.empty()  ? extra
                         : extra.empty() ? std::string{labels}
                                         : std::string{labels} + "," + extra;
        return all.empty() ? std::string{} : "{" + all + "}";
    };
    const std::string n{name};
    std::uint64_t cumulative = 0;
    std::string lines;
    for (std::size_t i = 0; i < bucket_count; ++i) {
        cumulative += buckets[i].load(std::memory_order_relaxed);
        const auto le = i < bucket_bounds.size() ? number(bucket_bounds[i]) : "+Inf";
        lines += n + "_bucket" + with("le=\"" + le + "\"") + " " + std::to_string(cumulative) + "\n";
    }
    if (skip_empty && cumulative == 0) return;
    const double sum = static_cast<double>(sum_us.load(std::memory_order_relaxed)) / 1e6;
    out += lines + n + "_sum" + with("") + " " + number(sum) + "\n" + n + "_count" + with("") + " " +
           std::to_string(cumulative) + "\n";
}

}  // namespace keeper::core::prometheus
