#include "core/wire/xml_writer.hpp"

#include "core/api/text_util.hpp"

namespace keeper::core {

xml_writer::xml_writer() : m_out(R"(<?xml version="1.0" encoding="utf-8"?>)") {}

void xml_writer::start_tag(std::string_view name, attributes attrs) {
    m_out += "\n" + std::string(m_open.size() * 2, ' ') + "<" + std::string{name};
    for (const auto& [key, value] : attrs) m_out += " " + std::string{key} + "=\"" + xml_escape_attribute(value) + "\"";
}

xml_writer& xml_writer::open(std::string_view name, attributes attrs) {
    start_tag(name, attrs);
    m_out += ">";
    m_open.emplace_back(name);
    return *this;
}

xml_writer& xml_writer::empty(std::string_view name, attributes attrs) {
    start_tag(name, attrs);
    m_out += " />";
    return *this;
}

xml_writer& xml_writer::text_element(std::string_view name, std::string_view text, attributes attrs) {
    start_tag(name, attrs);
    m_out += ">" + xml_escape_text(text) + "</" + std::string{name} + ">";
    return *this;
}

xml_writer& xml_writer::close() {
    const auto name = m_open.back();
    m_open.pop_back();
    m_out += "\n" + std::string(m_open.size() * 2, ' ') + "</" + name + ">";
    return *this;
}

std::string xml_writer::finish() {
    while (!m_open.empty()) close();
    return m_out;
}

}  // namespace keeper::core
