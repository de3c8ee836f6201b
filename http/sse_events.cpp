#include "http/sse_events.hpp"

namespace mur {

void SseEvents::feed(const char* bytes, std::size_t len, const std::function<void(const std::string&)>& on_data) {
  for (std::size_t i = 0; i < len; ++i)
    if (bytes[i] != '\r') pending_.push_back(bytes[i]);
  std::size_t end;
  while ((end = pending_.find("\n\n")) != std::string::npos) {
    std::string block = pending_.substr(0, end);
    pending_.erase(0, end + 2);
    std::string data;
    std::size_t pos = 0;
    while (pos <= block.size()) {
      std::size_t nl = block.find('\n', pos);
      std::string line = block.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      if (line.rfind("data:", 0) == 0) {
        std::string v = line.substr(5);
        if (!v.empty() && v[0] == ' ') v.erase(0, 1);
        data += (data.empty() ? "" : "\n") + v;
      }
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    if (!data.empty() && on_data) on_data(data);
  }
}

} // namespace mur
