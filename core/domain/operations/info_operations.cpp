// GetUtcNow and GetErrorDesc: answered without the database, and never fault.
#include <chrono>

#include "core/domain/error_descriptions.hpp"
#include "core/domain/operations/handlers.hpp"

namespace keeper::core::handlers {

utc_time get_utc_now(call_context&) {
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

std::string get_error_desc(call_context&, std::int32_t error_code, std::int32_t culture_code) {
    return describe_error(error_code, culture_code);
}

}  // namespace keeper::core::handlers
