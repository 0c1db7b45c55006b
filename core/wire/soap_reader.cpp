#include "core/wire/soap_reader.hpp"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <memory>
#include <stdexcept>
#include <utility>

#include "core/api/fault.hpp"

namespace keeper::core {
namespace {

struct doc_deleter {
    void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct ctxt_deleter {
    void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};
using doc_ptr = std::unique_ptr<xmlDoc, doc_deleter>;
using ctxt_ptr = std::unique_ptr<xmlParserCtxt, ctxt_deleter>;

// Set by refuse_doctype during this thread's current parse.
thread_local bool saw_doctype = false;

// Called by libxml2 the moment it reads "<!DOCTYPE": stop before any declaration inside it is
// processed, so no entity is ever defined, let alone expanded.
void refuse_doctype(void* user, const xmlChar*, const xmlChar*, const xmlChar*) {
    saw_doctype = true;
    xmlStopParser(static_cast<xmlParserCtxt*>(user));
}

// Each thread parses with one push parser context of its own, reset for every request. A fresh
// context per request would create a dictionary whose reference count libxml2 guards with one
// process-wide mutex (three locks a request, and a futex storm with many threads); with a kept
// context and XML_PARSE_NODICT, documents do not share the dictionary and no global lock is taken.
// The dictionary still learns every element name the thread sees, so a context is replaced once
// it holds more than dictionary_limit names (a client sending random names cannot grow it).
// A push context because the whole body is in hand: the pull parser (xmlCtxtReadMemory) asks its
// input to grow at every few tokens, a third of the parse's instructions on a small envelope.
class thread_parser {
public:
    xmlParserCtxt* get() {
        if (m_ctxt && xmlDictSize(m_ctxt->dict) > dictionary_limit) m_ctxt.reset();
        if (!m_ctxt) {
            m_ctxt.reset(xmlCreatePushParserCtxt(nullptr, nullptr, nullptr, 0, nullptr));
            if (!m_ctxt) throw std::runtime_error("libxml2: cannot allocate a parser context");
            m_ctxt->sax->internalSubset = refuse_doctype;
        }
        return m_ctxt.get();
    }

private:
    static constexpr int dictionary_limit = 4096;
    ctxt_ptr m_ctxt;
};

xmlParserInputPtr refuse_external_entity(const char*, const char*, xmlParserCtxtPtr) { return nullptr; }

void ignore_errors(void*, const char*, ...) {}

std::string_view as_view(const xmlChar* s) {
    return s ? std::string_view{reinterpret_cast<const char*>(s)} : std::string_view{};
}

std::string_view ns_of(const xmlNode* n) { return n->ns ? as_view(n->ns->href) : std::string_view{}; }

bool is(const xmlNode* n, std::string_view ns, std::string_view name) {
    return n->type == XML_ELEMENT_NODE && ns_of(n) == ns && as_view(n->name) == name;
}

const xmlNode* first_element(const xmlNode* n) {
    for (; n; n = n->next) {
        if (n->type == XML_ELEMENT_NODE) return n;
    }
    return nullptr;
}

std::string text_of(const xmlNode* n) {
    xmlChar* content = xmlNodeGetContent(n);
    std::string out{as_view(content)};
    xmlFree(content);
    return out;
}

std::optional<std::string> attribute(const xmlNode* n, std::string_view ns, const char* name) {
    xmlChar* v = xmlGetNsProp(n, reinterpret_cast<const xmlChar*>(name),
                              reinterpret_cast<const xmlChar*>(std::string{ns}.c_str()));
    if (!v) return std::nullopt;
    std::string out{as_view(v)};
    xmlFree(v);
    return out;
}

bool is_true(const std::optional<std::string>& v) { return v && (*v == "1" || *v == "true"); }

doc_ptr parse(std::string_view body) {
    if (body.empty()) throw fault(fault_kind::malformed, "The request body is empty.");
    init_xml_guards();
    thread_local thread_parser parser;
    auto* ctxt = parser.get();
    saw_doctype = false;
    // NONET: no network. No NOENT / DTDLOAD / XINCLUDE: entities stay unexpanded, nothing loaded.
    // NODICT: see thread_parser.
    const int options =
        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_NODICT;
    // The body as the one chunk (its first bytes tell the encoding), then the end of input.
    xmlCtxtResetPush(ctxt, body.data(), static_cast<int>(body.size()), nullptr, nullptr);
    xmlCtxtUseOptions(ctxt, options);
    xmlParseChunk(ctxt, nullptr, 0, 1);
    doc_ptr doc{std::exchange(ctxt->myDoc, nullptr)};
    if (saw_doctype || (doc && (doc->intSubset || doc->extSubset))) {
        throw fault(fault_kind::malformed, "DOCTYPE is not allowed in a SOAP message.");
    }
    if (!doc || !ctxt->wellFormed) {
        const xmlError* err = xmlCtxtGetLastError(ctxt);
        const int line = err ? err->line : 0;
        throw fault(fault_kind::malformed, "The request is not well-formed XML (line " + std::to_string(line) + ").");
    }
    return doc;
}

void check_headers(const xmlNode* header, std::string_view env_ns) {
    for (auto* block = first_element(header->children); block; block = first_element(block->next)) {
        if (is_true(attribute(block, env_ns, "mustUnderstand"))) {
            throw fault(fault_kind::must_understand,
                        "SOAP header " + std::string{as_view(block->name)} + " was not understood.");
        }
    }
}

soap_request read_body(const xmlNode* body) {
    const auto* wrapper = first_element(body->children);
    if (!wrapper) throw fault(fault_kind::client, "The SOAP Body has no operation element.");
    soap_request out{std::string{ns_of(wrapper)}, std::string{as_view(wrapper->name)}, {}};
    for (auto* c = first_element(wrapper->children); c; c = first_element(c->next)) {
        out.children.push_back(
            {std::string{ns_of(c)}, std::string{as_view(c->name)}, text_of(c), is_true(attribute(c, xsi_ns, "nil"))});
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
    const auto doc = parse(body);
    const xmlNode* root = xmlDocGetRootElement(doc.get());
    const auto env_ns = envelope_ns(expected);
    if (!root || !is(root, env_ns, "Envelope")) {
        throw fault(fault_kind::version_mismatch,
                    "The root element must be Envelope in namespace " + std::string{env_ns} + ".");
    }
    const xmlNode* child = first_element(root->children);
    if (child && is(child, env_ns, "Header")) {
        check_headers(child, env_ns);
        child = first_element(child->next);
    }
    if (!child || !is(child, env_ns, "Body")) throw fault(fault_kind::client, "The SOAP Envelope has no Body.");
    return read_body(child);
}

}  // namespace keeper::core
