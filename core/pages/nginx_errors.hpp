#pragma once
// nginx/keeper-errors.conf, generated from core's fault texts (core/api/fault_texts.hpp) and the
// transports' fault writers (keeperctl nginx-errors): what nginx answers in keeper's place is
// what keeper itself would answer, word for word. A test keeps the committed file equal to this.
#include <string>

namespace keeper::core {

std::string write_nginx_errors();

}  // namespace keeper::core
