#include "core/wire/soap_reader.hpp"

#include <libxml/parser.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/api/fault.hpp"

namespace keeper::core {
namespace {

// What read_soap looks at in an envelope, collected as libxml2 reads it (SAX): the elements down
// to an operation's parameters (Envelope at depth 1, Body 2, the operation's wrapper 3, a
// parameter 4), in document order, each with its parent, the two attributes SOAP gives a meaning
// to, and at depth 4 its text with its descendants' (as xmlNodeGetContent would read it). No
// tree is built: building libxml2's tree and freeing it was a third of a small envelope's parse.
// Names point into the parser context's dictionary, which outlives the read.
struct element {
    std::string_view ns;
    std::string_view name;
    int parent = -1;
    bool must_understand = false;  // env:mustUnderstand="1" or "true"
    bool nil = false;              // xsi:nil="1" or "true"
    std::string text;
};

constexpr int parameter_depth = 4;

struct envelope_parts {
    std::string_view env_ns;
    std::vector<element> elements;
    std::vector<int> open;  // the recorded elements being read, innermost last
    int depth = 0;
    bool saw_doctype = false;
};

std::string_view as_view(const xmlChar* s) {
    return s ? std::string_view{reinterpret_cast<const char*>(s)} : std::string_view{};
}

bool is_true(std::string_view v) { return v == "1" || v == "true"; }

envelope_parts& parts_of(void* ctx) {
    return *static_cast<envelope_parts*>(static_cast<xmlParserCtxt*>(ctx)->_private);
}

// attributes: libxml2's five pointers an attribute (local name, prefix, namespace, value, end).
void on_start(void* ctx, const xmlChar* name, const xmlChar*, const xmlChar* ns, int, const xmlChar**,
              int attribute_count, int, const xmlChar** attributes) {
    auto& parts = parts_of(ctx);
    if (++parts.depth > parameter_depth) return;
    element e{as_view(ns), as_view(name), parts.open.empty() ? -1 : parts.open.back(), false, false, {}};
    for (int i = 0; i < attribute_count; ++i) {
        const xmlChar** a = attributes + 5 * i;
        const std::string_view value{reinterpret_cast<const char*>(a[3]), static_cast<std::size_t>(a[4] - a[3])};
        if (as_view(a[2]) == parts.env_ns && as_view(a[0]) == "mustUnderstand") e.must_understand = is_true(value);
        if (as_view(a[2]) == xsi_ns && as_view(a[0]) == "nil") e.nil = is_true(value);
    }
    parts.open.push_back(static_cast<int>(parts.elements.size()));
    parts.elements.push_back(std::move(e));
}

void on_end(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    auto& parts = parts_of(ctx);
    if (parts.depth-- <= parameter_depth) parts.open.pop_back();
}

void on_text(void* ctx, const xmlChar* text, int size) {
    auto& parts = parts_of(ctx);
    if (parts.depth >= parameter_depth) {
        parts.elements[static_cast<std::size_t>(parts.open.back())].text.append(reinterpret_cast<const char*>(text),
                                                                                static_cast<std::size_t>(size));
    }
}

// Called by libxml2 the moment it reads "<!DOCTYPE": stop before any declaration inside it is
// processed, so no entity is ever defined, let alone expanded.
void refuse_doctype(void* ctx, const xmlChar*, const xmlChar*, const xmlChar*) {
    parts_of(ctx).saw_doctype = true;
    xmlStopParser(static_cast<xmlParserCtxt*>(ctx));
}

struct ctxt_deleter {
    void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};
using ctxt_ptr = std::unique_ptr<xmlParserCtxt, ctxt_deleter>;

// Each thread parses with one push parser context of its own, reset for every request: a fresh
// context per request would create a dictionary, and libxml2 guards dictionaries' reference
// counts with one process-wide mutex (a futex storm with many threads). The dictionary learns
// every element name the thread sees, so a context is replaced once it holds more than
// dictionary_limit names (a client sending random names cannot grow it). A push context
// because the whole body is in hand: the pull parser (xmlCtxtReadMemory) asks its input to
// grow at every few tokens, a third of the parse's instructions on a small envelope.
class thread_parser {
public:
    xmlParserCtxt* get() {
        if (m_ctxt && xmlDictSize(m_ctxt->dict) > dictionary_limit) m_ctxt.reset();
        if (!m_ctxt) {
            xmlSAXHandler handler{};
            handler.initialized = XML_SAX2_MAGIC;
            handler.startElementNs = on_start;
            handler.endElementNs = on_end;
            handler.characters = on_text;
            handler.ignorableWhitespace = on_text;
            handler.cdataBlock = on_text;
            handler.internalSubset = refuse_doctype;
            m_ctxt.reset(xmlCreatePushParserCtxt(&handler, nullptr, nullptr, 0, nullptr));
            if (!m_ctxt) throw std::runtime_error("libxml2: cannot allocate a parser context");
        }
        return m_ctxt.get();
    }

private:
    static constexpr int dictionary_limit = 4096;
    ctxt_ptr m_ctxt;
};

xmlParserInputPtr refuse_external_entity(const char*, const char*, xmlParserCtxtPtr) { return nullptr; }

void ignore_errors(void*, const char*, ...) {}

envelope_parts parse(std::string_view body, soap_version expected) {
    if (body.empty()) throw fault(fault_kind::malformed, "The request body is empty.");
    init_xml_guards();
    thread_local thread_parser parser;
    auto* ctxt = parser.get();
    envelope_parts parts{envelope_ns(expected), {}, {}, 0, false};
    parts.elements.reserve(16);  // an envelope, its Body, an operation and its parameters, without regrowing
    parts.open.reserve(parameter_depth);
    // The body as the one chunk (its first bytes tell the encoding), then the end of input.
    // NONET: no network. No NOENT / DTDLOAD / XINCLUDE: entities stay unexpanded, nothing loaded.
    xmlCtxtResetPush(ctxt, body.data(), static_cast<int>(body.size()), nullptr, nullptr);
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
    ctxt->_private = &parts;
    xmlParseChunk(ctxt, nullptr, 0, 1);
    ctxt->_private = nullptr;
    if (parts.saw_doctype) throw fault(fault_kind::malformed, "DOCTYPE is not allowed in a SOAP message.");
    if (!ctxt->wellFormed || parts.elements.empty()) {
        const xmlError* err = xmlCtxtGetLastError(ctxt);
        const int line = err ? err->line : 0;
        throw fault(fault_kind::malformed, "The request is not well-formed XML (line " + std::to_string(line) + ").");
    }
    return parts;
}

// The first child element of elements[parent] after elements[after] (after == parent: the first
// child); nullptr when there is none. Elements are in document order, so a child follows its parent.
const element* next_child(const envelope_parts& parts, int parent, int after) {
    for (auto i = static_cast<std::size_t>(after) + 1; i < parts.elements.size(); ++i) {
        if (parts.elements[i].parent == parent) return &parts.elements[i];
    }
    return nullptr;
}

int index_of(const envelope_parts& parts, const element* e) { return static_cast<int>(e - parts.elements.data()); }

bool is(const element* e, std::string_view ns, std::string_view name) { return e->ns == ns && e->name == name; }

void check_headers(const envelope_parts& parts, const element* header) {
    const int h = index_of(parts, header);
    for (auto* block = next_child(parts, h, h); block; block = next_child(parts, h, index_of(parts, block))) {
        if (block->must_understand) {
            throw fault(fault_kind::must_understand,
                        "SOAP header " + std::string{block->name} + " was not understood.");
        }
    }
}

// Takes the parameters' text out of parts: each is read once, into the request.
soap_request read_body(envelope_parts& parts, const element* body) {
    const int b = index_of(parts, body);
    const auto* wrapper = next_child(parts, b, b);
    if (!wrapper) throw fault(fault_kind::client, "The SOAP Body has no operation element.");
    soap_request out{std::string{wrapper->ns}, std::string{wrapper->name}, {}};
    const int w = index_of(parts, wrapper);
    out.children.reserve(parts.elements.size() - static_cast<std::size_t>(w) - 1);
    for (auto* c = next_child(parts, w, w); c; c = next_child(parts, w, index_of(parts, c))) {
        auto& child = parts.elements[static_cast<std::size_t>(index_of(parts, c))];
        out.children.push_back({std::string{child.ns}, std::string{child.name}, std::move(child.text), child.nil});
    }
    return out;
}

}  // namespace

void init_xml_guards() {
    static const bool done = [] {
        xmlInitParser();
        xmlSetExternalEntityLoader(refuse_external_entity);
        xmlSetGenericErrorFunc(nullptr, ignore_errors);
        xmlThrDefSetGenericErrorFunc(nullptr, ignore_errors);  // for threads started later
        return true;
    }();
    (void)done;
}

soap_request read_soap(std::string_view body, soap_version expected) {
    auto parts = parse(body, expected);
    const auto env_ns = parts.env_ns;
    const element* root = parts.elements.data();
    if (!is(root, env_ns, "Envelope")) {
        throw fault(fault_kind::version_mismatch,
                    "The root element must be Envelope in namespace " + std::string{env_ns} + ".");
    }
    const element* child = next_child(parts, 0, 0);
    if (child && is(child, env_ns, "Header")) {
        check_headers(parts, child);
        child = next_child(parts, 0, index_of(parts, child));
    }
    if (!child || !is(child, env_ns, "Body")) throw fault(fault_kind::client, "The SOAP Envelope has no Body.");
    return read_body(parts, child);
}

}  // namespace keeper::core
