#pragma once
// A result as the XML transports write it, shared by the SOAP and the GET/POST writers and the
// WSDL: its text inside an element, and its XML Schema type.
#include <string>
#include <string_view>

#include "core/api/operation.hpp"

namespace keeper::core {

inline constexpr std::string_view xml_declaration = R"(<?xml version="1.0" encoding="utf-8"?>)";

// The text of a result as it appears inside the XML element (escaped).
std::string result_text(const result_value& value);
// The XML Schema type name of a result ("int", "dateTime", "string").
std::string_view result_type_name(result_type type);

}  // namespace keeper::core
