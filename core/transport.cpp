#include "transport.hpp"

namespace keeper::core {

std::string_view transport_name(transport t) {
    switch (t) {
        case transport::none: return "-";
        case transport::soap11: return "soap11";
        case transport::soap12: return "soap12";
        case transport::http_get: return "get";
        case transport::http_post: return "post";
    }
    return "-";
}

}  // namespace keeper::core
