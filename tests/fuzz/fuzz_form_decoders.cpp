// The form reader, the form call decoder for every operation, and the text decoders of every
// parameter type (xsd text for SOAP, form text for GET/POST).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/wire/call_decoders.hpp"
#include "core/api/fault.hpp"
#include "core/wire/form_reader.hpp"
#include "core/domain/operation_table.hpp"
#include "core/wire/text_decoders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    using namespace keeper::core;
    const auto choice = data[0];
    const std::string_view text{reinterpret_cast<const char*>(data) + 1, size - 1};
    try {
        (void)read_form(text);
    } catch (const fault&) {
    }
    const auto& ops = operations();
    const auto& op = ops[choice % ops.size()];
    try {
        (void)decode_form_call(op, text);
    } catch (const fault&) {
    }
    for (const auto& p : op.params) {
        (void)decode_xsd(p.type, text);
        (void)decode_form(p.type, text);
    }
    return 0;
}
