#pragma once
// SOAP request bytes → the parts routing and decoding need. Throws fault: malformed (400) for
// unreadable XML, an empty body or any DOCTYPE; version_mismatch; must_understand; client for a
// missing Body or body element.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire/soap_version.hpp"

namespace keeper::core {

struct soap_child {
    std::string ns;
    std::string name;
    std::string text;
    bool nil = false;  // xsi:nil="true"
};

struct soap_request {
    std::string body_ns;    // namespace of the first element in Body
    std::string body_name;  // its local name: the operation's wrapper element
    std::vector<soap_child> children;
};

// Installs libxml2's process-wide guards (no external entity is ever loaded). Idempotent; the
// reader calls it, and workers call it at start so the first request pays nothing.
void init_xml_guards();

soap_request read_soap(std::string_view body, soap_version expected);

}  // namespace keeper::core
