// trace_growth.cpp — see trace_growth.hpp.
#include "launcher/trace_growth.hpp"

#include "messages/trace_line.hpp"

#include <fstream>
#include <iterator>

namespace mur {

std::string first_trace_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || in.eof()) return "";
  return line;
}

std::optional<nlohmann::json> first_trace_event(const std::string& path) {
  const std::string line = first_trace_line(path);
  if (line.empty()) return std::nullopt;
  return read_trace_line(line);
}

std::vector<nlohmann::json> read_new_events(const std::string& path, std::uint64_t& offset, int* unreadable) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(offset));
  std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceLines lines = read_trace_lines(rest);
  offset += rest.size() - lines.tail;
  if (unreadable) *unreadable += lines.unreadable;
  return std::move(lines.events);
}

} // namespace mur
