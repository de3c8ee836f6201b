// door_http.cpp — see door_http.hpp.
#include "door_http.hpp"

#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"


namespace mur::test {

DoorHttpReply door_http(const std::string& url, const std::string& method, const std::string& body, const std::string& token) {
  mur::CurlPool pool;
  mur::HttpCall c;
  c.url = url;
  c.method = method;
  c.body = body;
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
  if (!token.empty()) c.headers.push_back("Authorization: Bearer " + token);
  const mur::HttpOutcome got = mur::call_and_wait(pool, std::move(c));
  return DoorHttpReply{got.status, nlohmann::json::parse(got.body, nullptr, false)};
}

DoorHttpReply door_rpc(const std::string& url, const mur::DoorRequest& req, const std::string& token) {
  return door_http(url + "/", "POST", mur::a2a::request_json("t-1", req).dump(), token);
}

} // namespace mur::test
