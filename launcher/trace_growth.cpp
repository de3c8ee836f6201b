// trace_growth.cpp — see trace_growth.hpp.
#include "launcher/trace_growth.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

namespace mur {

std::string first_trace_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || in.eof()) return "";
  return line;
}

std::vector<nlohmann::json> read_new_events(const std::string& path, std::uint64_t& offset) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto end = rest.rfind('\n');
  if (end == std::string::npos) return out;
  offset += end + 1;
  std::istringstream lines(rest.substr(0, end + 1));
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

} // namespace mur
