// trace_growth.cpp — see trace_growth.hpp.
#include "launcher/traces/trace_growth.hpp"

#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_fields.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/trace_line.hpp"

#include <filesystem>
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

void FormationSessionScan::scan(const std::function<void(const std::string&, const nlohmann::json*)>& on_session) {
  for (const auto& root : formation_roots(formation_id_, project_dir_)) {
    std::error_code ec;
    for (const auto& s : std::filesystem::directory_iterator(root, ec)) {
      const std::string dir = s.path().string();
      if (!ids::is_valid(s.path().filename().string(), ids::session) || others_.count(dir)) continue;
      if (found_.count(dir)) {
        on_session(dir, nullptr);
        continue;
      }
      const std::string line = first_trace_line(dir + "/trace.jsonl");
      if (line.empty()) continue; // not flushed yet: next scan
      auto j = read_trace_line(line);
      if (!j || trace_fields::str(*j, "formation_id") != formation_id_) {
        others_.insert(dir);
        continue;
      }
      found_.insert(dir);
      on_session(dir, &*j);
    }
  }
}

} // namespace mur
