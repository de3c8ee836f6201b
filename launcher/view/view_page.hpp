// view_page.hpp — the page `mur view` serves: one HTML document, its stylesheet and its script,
// compiled into the binary (launcher/view/view_page.cpp).
//
// Invariant: the page names nothing outside its own origin (no CDN, no font, no image from
// elsewhere): it loads /view.css and /view.js, and its script opens only /events, GETs only
// /transcript and POSTs only /answer (both with the per-server key the URL's fragment carries). It builds the
// page from the state with DOM text nodes (textContent), never as HTML, so no text of a trace can
// become markup. Served with `Content-Security-Policy: default-src 'self'` (view_server.cpp),
// which is why nothing is inline.
// Rule (docs/spec/choices.md §Observability): a small self-contained page — no CDN, nothing
// fetched from outside.
#pragma once

#include <string>

namespace mur::view_page {

std::string html(); // the page; its key for answers comes in the URL's fragment (ViewServer::page_url)
const char* css();
std::string js(); // its parts joined (launcher/view/view_page_scripts.hpp)

} // namespace mur::view_page
