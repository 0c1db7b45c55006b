#pragma once
// A small indenting XML writer for generated documents (WSDL, disco): attribute values and text
// are always escaped, and every element opened is closed.
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keeper::core {

class xml_writer {
public:
    using attributes = std::initializer_list<std::pair<std::string_view, std::string_view>>;

    xml_writer();  // starts with the utf-8 XML declaration

    xml_writer& open(std::string_view name, attributes attrs = {});
    xml_writer& empty(std::string_view name, attributes attrs = {});
    xml_writer& text_element(std::string_view name, std::string_view text, attributes attrs = {});
    xml_writer& close();

    std::string finish();  // closes what is open and returns the document

private:
    void start_tag(std::string_view name, attributes attrs);

    std::string m_out;
    std::vector<std::string> m_open;
};

}  // namespace keeper::core
