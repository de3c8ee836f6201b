#include "launcher/run/member_console.hpp"

#include "messages/vocabulary/terminal_text.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

namespace mur {

void MemberConsole::relay(const std::string& member, const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::cerr << "[" << member << "] " << terminal_safe(line) << "\n" << std::flush;
}

void MemberConsole::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  std::cerr << "[mur run] " << terminal_safe(text) << "\n" << std::flush;
}

void MemberConsole::out(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::cout << line << "\n" << std::flush;
}

void MemberConsole::entry_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_) held_.push_back(line);
  else emit_entry(line);
}

void MemberConsole::open_entry(const std::string& first) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_) return;
  open_ = true;
  if (!first.empty()) std::cout << first << "\n";
  for (const auto& l : held_) emit_entry(l);
  held_.clear();
  std::cout << std::flush;
}

void MemberConsole::emit_entry(const std::string& line) {
  const bool readiness = !saw_ready_;
  saw_ready_ = true;
  auto j = nlohmann::json::parse(line, nullptr, false);
  const bool answer = j.is_object() && j.contains("task_id") && j.contains("state");
  if (answer && j["state"].is_string()) answer_state_ = j["state"].get<std::string>();
  if (json_) {
    std::cout << line << "\n" << std::flush;
    return;
  }
  if (readiness) return; // the reporter has said it in words
  if (!answer) {
    std::cout << terminal_safe_for(1, line) << "\n" << std::flush;
    return;
  }
  const std::string text = j.value("answer", "");
  if (answer_state_ == "completed") std::cout << terminal_safe_for(1, text) << "\n" << std::flush;
  else std::cerr << "[mur run] the task ended " << answer_state_ << (text.empty() ? "" : ": " + terminal_safe(text)) << "\n" << std::flush;
}

bool MemberConsole::answered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !answer_state_.empty();
}

std::string MemberConsole::answer_state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return answer_state_;
}

} // namespace mur
