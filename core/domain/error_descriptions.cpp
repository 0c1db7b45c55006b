#include "core/domain/error_descriptions.hpp"

#include <array>
#include <string_view>

namespace keeper::core {
namespace {

struct description {
    std::string_view english;
    std::string_view russian;
};

// Indexed by result code; keep in step with result_code.hpp.
constexpr std::array<description, 13> descriptions{{
    {"Success.", "Операция выполнена успешно."},
    {"Invalid argument: a value is empty, too long, out of range or of the wrong format.",
     "Неверный аргумент: значение пустое, слишком длинное, вне допустимого диапазона или в неверном формате."},
    {"Session not found or not authenticated.", "Сессия не найдена или не аутентифицирована."},
    {"Session expired.", "Срок действия сессии истёк."},
    {"Authentication failed.", "Ошибка аутентификации."},
    {"Object not found.", "Объект не найден."},
    {"Wrong protection or confirmation code.", "Неверный код протекции или подтверждения."},
    {"Too many wrong codes: the object is locked.", "Слишком много неверных кодов: объект заблокирован."},
    {"The object was already completed by a different request.", "Объект уже завершён другим запросом."},
    {"Amount limit exceeded.", "Превышен лимит суммы."},
    {"Unknown or disabled application.", "Неизвестное или отключённое приложение."},
    {"Too many failed authentication attempts; try again later.",
     "Слишком много неудачных попыток аутентификации; повторите позже."},
    {"The transaction or task has expired.", "Срок действия операции или задания истёк."},
}};

}  // namespace

std::string describe_error(int code, int culture) {
    const bool russian = culture == culture_russian;
    if (code < 0 || code >= static_cast<int>(descriptions.size())) {
        return (russian ? "Неизвестный код ошибки " : "Unknown error code ") + std::to_string(code);
    }
    const auto& d = descriptions[static_cast<std::size_t>(code)];
    return std::string{russian ? d.russian : d.english};
}

}  // namespace keeper::core
