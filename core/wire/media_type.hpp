#pragma once
// A Content-Type header value: `type/subtype; name=value; name="quoted"`.
#include <map>
#include <string>
#include <string_view>

namespace keeper::core {

struct media_type {
    std::string essence;                        // lower case, e.g. "application/soap+xml"
    std::map<std::string, std::string> params;  // names lower case, values unquoted
};

media_type parse_media_type(std::string_view header);

}  // namespace keeper::core
