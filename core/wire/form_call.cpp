// HTTP GET / POST parameters → decoded_call.
#include "core/wire/call_decoders.hpp"
#include "core/api/fault.hpp"
#include "core/wire/form_reader.hpp"
#include "core/wire/text_decoders.hpp"
#include "core/api/text_util.hpp"

namespace keeper::core {
namespace {

param_value read_param(const std::multimap<std::string, std::string>& form, const param_spec& p) {
    const std::string name{p.name};
    const auto& text = one_form_value(form, name);
    if (!utf8_length(text)) throw fault(fault_kind::client, "Parameter '" + name + "' is not valid UTF-8.");
    auto value = decode_form(p.type, text);
    if (!value) {
        throw fault(fault_kind::client, "Parameter '" + name + "' has an invalid value '" + shorten_for_message(text) +
                                            "': not a valid " + std::string{xsd_type_name(p.type)} + ".");
    }
    return std::move(*value);
}

}  // namespace

decoded_call decode_form_call(const operation& op, std::string_view encoded_form) {
    const auto form = read_form(encoded_form);
    decoded_call call{&op, {}};
    for (const auto& p : op.params) call.args.push_back(read_param(form, p));
    return call;
}

}  // namespace keeper::core
