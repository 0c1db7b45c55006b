#pragma once
#include <string_view>

namespace keeper::core {

enum class soap_version { v11, v12 };

inline constexpr std::string_view soap11_envelope_ns = "http://schemas.xmlsoap.org/soap/envelope/";
inline constexpr std::string_view soap12_envelope_ns = "http://www.w3.org/2003/05/soap-envelope";
inline constexpr std::string_view xsi_ns = "http://www.w3.org/2001/XMLSchema-instance";

inline std::string_view envelope_ns(soap_version v) {
    return v == soap_version::v11 ? soap11_envelope_ns : soap12_envelope_ns;
}

}  // namespace keeper::core
