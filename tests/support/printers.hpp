#pragma once
// Lets Boost.Test print core's enums in failure messages (found by argument-dependent lookup).
#include <ostream>

#include "core/api/fault.hpp"
#include "core/api/operation.hpp"
#include "core/api/provider.hpp"
#include "core/api/result_code.hpp"
#include "core/wire/transport_table.hpp"

namespace keeper::core {

inline std::ostream& operator<<(std::ostream& o, provider p) { return o << provider_name(p); }
inline std::ostream& operator<<(std::ostream& o, fault_kind k) { return o << fault_kind_name(k); }
inline std::ostream& operator<<(std::ostream& o, result_code c) { return o << static_cast<int>(c); }
inline std::ostream& operator<<(std::ostream& o, const store_result& r) {
    return o << static_cast<int>(r.code) << (r.replayed ? " (replayed)" : "");
}
inline std::ostream& operator<<(std::ostream& o, transport t) { return o << transport_name(t); }
inline std::ostream& operator<<(std::ostream& o, param_type t) { return o << xsd_type_name(t); }
inline std::ostream& operator<<(std::ostream& o, api_group g) { return o << group_name(g); }
inline std::ostream& operator<<(std::ostream& o, result_type t) { return o << static_cast<int>(t); }

}  // namespace keeper::core
