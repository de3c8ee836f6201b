#include "http/sse_events.hpp"

namespace mur {
namespace {

// The data payload of one event block (its lines without the blank line).
std::string data_of(const std::string& text, std::size_t from, std::size_t to) {
  std::string data;
  bool any = false;
  std::size_t pos = from;
  while (pos <= to) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos || nl > to) nl = to;
    if (nl - pos >= 5 && text.compare(pos, 5, "data:") == 0) {
      std::size_t v = pos + 5;
      if (v < nl && text[v] == ' ') ++v;
      if (any) data.push_back('\n');
      data.append(text, v, nl - v);
      any = true;
    }
    if (nl == to) break;
    pos = nl + 1;
  }
  return data;
}

} // namespace

bool SseEvents::feed(const char* bytes, std::size_t len, const std::function<void(const std::string&)>& on_data) {
  if (overflowed_) return false;
  for (std::size_t i = 0; i < len; ++i)
    if (bytes[i] != '\r') pending_.push_back(bytes[i]);
  std::size_t start = 0; // the first byte of the event being looked at
  for (;;) {
    const std::size_t from = scanned_ > start + 1 ? scanned_ - 1 : start; // a "\n\n" may straddle the last scan
    const std::size_t end = pending_.find("\n\n", from);
    if (end == std::string::npos) break;
    if (max_event_ != 0 && end - start > max_event_) {
      overflowed_ = true;
      break;
    }
    const std::string data = data_of(pending_, start, end);
    start = end + 2;
    scanned_ = start;
    if (!data.empty() && on_data) on_data(data);
  }
  if (!overflowed_) {
    pending_.erase(0, start);
    scanned_ = pending_.size();
    if (max_event_ != 0 && pending_.size() > max_event_) overflowed_ = true;
  }
  if (overflowed_) {
    pending_.clear();
    pending_.shrink_to_fit();
    scanned_ = 0;
    return false;
  }
  return true;
}

} // namespace mur
