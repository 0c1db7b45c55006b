#pragma once
// A minimal blocking HTTP/1.1 client for the end-to-end tests: one request per connection.
#include <map>
#include <string>

namespace keeper::test {

struct http_reply {
    int status = 0;
    std::map<std::string, std::string> headers;  // names lower case
    std::string body;

    std::string header(const std::string& name) const {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string{} : it->second;
    }
};

http_reply http_request(int port, const std::string& method, const std::string& target,
                        const std::map<std::string, std::string>& headers = {}, const std::string& body = {});

inline http_reply http_get(int port, const std::string& target) { return http_request(port, "GET", target); }

}  // namespace keeper::test
