#pragma once
// SOAP 1.1 and 1.2 answers: the result in <NameResponse><NameResult>, faults as soap:Fault, in
// the envelope ASMX writes (declaration, xsi and xsd declared, no white space).
#include <string>
#include <string_view>

#include "core/api/fault.hpp"
#include "core/api/http_message.hpp"
#include "core/api/operation.hpp"
#include "core/wire/soap_version.hpp"

namespace keeper::core {

std::string_view soap_content_type(soap_version v);
http_response write_soap_result(soap_version v, const operation& op, const result_value& value, std::string_view ns);
// Unreadable XML is 400 (ASMX sends it with an empty body; keeper says why), every other fault 500.
http_response write_soap_fault(soap_version v, const fault& f);

}  // namespace keeper::core
