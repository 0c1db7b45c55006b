// The SOAP reader and decoder: any body, either SOAP version, any SOAPAction, every group. A
// fault is a fine answer; anything else thrown, or a crash, is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/wire/call_decoders.hpp"
#include "core/api/fault.hpp"
#include "core/api/operation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    using namespace keeper::core;
    const auto choice = data[0];
    const std::string_view body{reinterpret_cast<const char*>(data) + 1, size - 1};
    const auto version = (choice & 1) ? soap_version::v12 : soap_version::v11;
    const auto group = static_cast<api_group>((choice >> 1) % 6);
    std::optional<std::string> action;
    if (choice & 0x10) action = "http://tempuri.org/Authenticate";
    if (choice & 0x20) action = "http://tempuri.org/TopupPurseFromAtmCard";
    try {
        (void)decode_soap_call(body, version, action, group, "http://tempuri.org/");
    } catch (const fault& f) {
        (void)f.what();
    }
    return 0;
}
