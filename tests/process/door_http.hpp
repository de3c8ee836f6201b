// door_http.hpp — one HTTP call to a door from a process test, waited for: the status and the
// body read as JSON (discarded when it is not JSON).
//
// Invariant: the call goes through mur's own curl pool (a real libcurl request on loopback);
// it sends A2A-Version 1.0 and JSON, and the Bearer only when a token is given. The pool's own
// bounds end a call that gets no answer, so the wait ends.
#pragma once

#include "messages/wire/door_request.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace mur::test {

struct DoorHttpReply {
  long status = 0;
  nlohmann::json body;
};

DoorHttpReply door_http(const std::string& url, const std::string& method, const std::string& body, const std::string& token);

// `req` POSTed to the door at `url` (its base, without the trailing /) as A2A JSON-RPC, request id "t-1".
DoorHttpReply door_rpc(const std::string& url, const mur::DoorRequest& req, const std::string& token);

} // namespace mur::test
