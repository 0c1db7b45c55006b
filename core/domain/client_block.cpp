#include "core/domain/client_block.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstring>

namespace keeper::core {

std::string client_block(std::string_view remote_addr) {
    const std::string addr{remote_addr};
    char text[INET6_ADDRSTRLEN] = {};
    in_addr v4{};
    if (inet_pton(AF_INET, addr.c_str(), &v4) == 1) return inet_ntop(AF_INET, &v4, text, sizeof text);
    in6_addr v6{};
    if (inet_pton(AF_INET6, addr.c_str(), &v6) != 1) return {};
    if (IN6_IS_ADDR_V4MAPPED(&v6)) {
        std::memcpy(&v4, v6.s6_addr + 12, sizeof v4);
        return inet_ntop(AF_INET, &v4, text, sizeof text);
    }
    std::fill(v6.s6_addr + 8, v6.s6_addr + 16, 0);
    return std::string{inet_ntop(AF_INET6, &v6, text, sizeof text)} + "/64";
}

}  // namespace keeper::core
