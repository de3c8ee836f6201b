// view_page_scripts.hpp — the parts of the view page's script, one concept each, joined in this
// order inside one function by view_page::js(): the shared helpers, the roster's graph, the
// timeline, a task's transcript panel, then the page's main loop (view_page.cpp).
//
// Invariant: every part builds the page with DOM nodes (createElement, createElementNS for SVG)
// and puts each text on screen with textContent — never innerHTML, never an inline style or
// script (the page's CSP allows neither); a part names nothing outside the page's own origin.
// Rule (docs/spec/choices.md §Observability): a small self-contained page — no CDN, nothing
// fetched from outside.
#pragma once

namespace mur::view_page::scripts {

extern const char common[];     // el, svg, secs, short, status, usage words (view_page_common_js.cpp)
extern const char graph[];      // drawGraph(state) (view_page_graph_js.cpp)
extern const char timeline[];   // drawTimeline(state) (view_page_timeline_js.cpp)
extern const char transcript[]; // showTask(task), the transcript panel (view_page_transcript_js.cpp)

} // namespace mur::view_page::scripts
