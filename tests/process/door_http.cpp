// door_http.cpp — see door_http.hpp.
#include "door_http.hpp"

#include "http/curl_pool.hpp"

#include <condition_variable>
#include <mutex>

namespace mur::test {

DoorHttpReply door_http(const std::string& url, const std::string& method, const std::string& body, const std::string& token) {
  mur::CurlPool pool;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  DoorHttpReply out;
  mur::HttpCall c;
  c.url = url;
  c.method = method;
  c.body = body;
  c.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
  if (!token.empty()) c.headers.push_back("Authorization: Bearer " + token);
  c.on_done = [&](long status, std::string text, std::string) {
    std::lock_guard<std::mutex> lock(mu);
    out.status = status;
    out.body = nlohmann::json::parse(text, nullptr, false);
    done = true;
    cv.notify_all();
  };
  pool.submit(std::move(c));
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return out;
}

} // namespace mur::test
