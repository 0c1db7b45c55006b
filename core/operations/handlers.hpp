#pragma once
// Operation handlers: typed arguments in, a result out. They never see XML, query strings or
// HTTP; the operation table (operation_table.cpp) names them and their wire parameters.
#include <cstdint>
#include <string>

#include "../call_context.hpp"
#include "../date_time.hpp"
#include "../result_code.hpp"

namespace keeper::core::handlers {

// SimpleAuthApi / AccountApi: sessions (session_operations.cpp)
result_code authenticate(call_context& ctx, const std::string& session_id, const std::string& login,
                         const std::string& auth_hash);
result_code check_session_ex(call_context& ctx, const std::string& session_id, const std::string& app_id);

// GlobalApi / ErrorsApi: no database (info_operations.cpp)
utc_time get_utc_now(call_context& ctx);
std::string get_error_desc(call_context& ctx, std::int32_t error_code, std::int32_t culture_code);

}  // namespace keeper::core::handlers
