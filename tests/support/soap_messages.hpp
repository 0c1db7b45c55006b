#pragma once
// Builders for the requests the tests send, so each test states only what differs.
#include <string>
#include <utility>
#include <vector>

#include "core/api/http_message.hpp"

namespace keeper::test {

inline const std::string api_ns = "http://tempuri.org/";
inline const std::string soap11_ns = "http://schemas.xmlsoap.org/soap/envelope/";
inline const std::string soap12_ns = "http://www.w3.org/2003/05/soap-envelope";

using fields = std::vector<std::pair<std::string, std::string>>;

// <op xmlns="ns"><name>value</name>...</op>; values are written as given (escape them yourself).
inline std::string wrapper(const std::string& op, const fields& params, const std::string& ns = api_ns) {
    std::string out = "<" + op + " xmlns=\"" + ns + "\">";
    for (const auto& [name, value] : params) out += "<" + name + ">" + value + "</" + name + ">";
    return out + "</" + op + ">";
}

inline std::string envelope(const std::string& env_ns, const std::string& body, const std::string& header = {}) {
    return R"(<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap=")" + env_ns + R"(">)" +
           (header.empty() ? "" : "<soap:Header>" + header + "</soap:Header>") + "<soap:Body>" + body +
           "</soap:Body></soap:Envelope>";
}

inline std::string soap11(const std::string& op, const fields& params) {
    return envelope(soap11_ns, wrapper(op, params));
}
inline std::string soap12(const std::string& op, const fields& params) {
    return envelope(soap12_ns, wrapper(op, params));
}

inline std::string form(const fields& params) {
    std::string out;
    for (const auto& [name, value] : params) out += (out.empty() ? "" : "&") + name + "=" + value;
    return out;
}

// The exact success bodies of each transport (docs/api.md shows them).
inline std::string soap_success(const std::string& env_ns, const std::string& op, const std::string& result) {
    return R"(<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap=")" + env_ns +
           R"(" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><)" +
           op + R"(Response xmlns="http://tempuri.org/"><)" + op + "Result>" + result + "</" + op + "Result></" + op +
           "Response></soap:Body></soap:Envelope>";
}

inline std::string plain_success(const std::string& type, const std::string& result) {
    return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<" + type + " xmlns=\"http://tempuri.org/\">" + result +
           "</" + type + ">";
}

// A request as nginx passes one from a client on loopback, for core's pipeline without a socket:
// Host "h", request id "rid-1"; the caller sets whatever else it needs.
inline core::http_request request(std::string method, std::string path, std::string query = {},
                                  std::string content_type = {}, std::string body = {}) {
    core::http_request r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.content_type = std::move(content_type);
    r.body = std::move(body);
    r.host = "h";
    r.request_id = "rid-1";
    r.remote_addr = "127.0.0.1";
    return r;
}

}  // namespace keeper::test
