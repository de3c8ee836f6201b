#include "messages/vocabulary/model_endpoint.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace mur {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

const char* const fix_form = "write it like http://127.0.0.1:11434/v1 or https://api.openai.com/v1";

} // namespace

std::string ModelEndpoint::base() const {
  return scheme + "://" + host + (port ? ":" + std::to_string(port) : std::string()) + path;
}

std::string ModelEndpoint::chat_completions_url() const { return base() + "/chat/completions"; }

bool is_loopback_host(const std::string& host_in) {
  std::string host = lower(host_in);
  if (!host.empty() && host.back() == '.') host.pop_back();
  if (host == "localhost") return true;
  if (host == "::1" || host == "[::1]") return true;
  static const std::regex quad(R"(^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$)");
  std::smatch m;
  if (!std::regex_match(host, m, quad)) return false;
  for (int i = 1; i <= 3; ++i)
    if (std::stoi(m[i].str()) > 255) return false;
  return true;
}

std::optional<std::string> env_reference_name(const std::string& text) {
  static const std::regex ref(R"(^\$\{([A-Z_][A-Z0-9_]*)\}$)");
  std::smatch m;
  if (!std::regex_match(text, m, ref)) return std::nullopt;
  return m[1].str();
}

std::variant<ModelEndpoint, EndpointProblem> parse_model_endpoint(const std::string& url, bool allow_insecure_http) {
  ModelEndpoint e;
  const auto sep = url.find("://");
  if (sep == std::string::npos)
    return EndpointProblem{"must be an http:// or https:// base URL", fix_form};
  e.scheme = lower(url.substr(0, sep));
  if (e.scheme != "http" && e.scheme != "https")
    return EndpointProblem{"must be an http:// or https:// base URL, not " + e.scheme + "://", fix_form};
  for (char c : url)
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
      return EndpointProblem{"holds a space or a control character", fix_form};
  if (url.find('?') != std::string::npos)
    return EndpointProblem{"has a query ('?…'); the base URL takes none", "remove everything from '?' on"};
  if (url.find('#') != std::string::npos)
    return EndpointProblem{"has a fragment ('#…'); the base URL takes none", "remove everything from '#' on"};
  const std::string rest = url.substr(sep + 3);
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  e.path = slash == std::string::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string::npos)
    return EndpointProblem{"holds user info ('…@'); a key goes in api_key, never in the URL",
                           "remove the part before '@' and write api_key: ${ENV_NAME}"};
  static const std::regex host_port(
    R"(^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(:([0-9]{1,5}))?$)");
  std::smatch m;
  if (!std::regex_match(authority, m, host_port))
    return EndpointProblem{"has no valid host[:port] after " + e.scheme + "://", fix_form};
  e.host = m[1].str();
  if (m[6].matched) {
    e.port = std::stoi(m[6].str());
    if (e.port < 1 || e.port > 65535) return EndpointProblem{"has a port outside 1..65535", fix_form};
  }
  while (!e.path.empty() && e.path.back() == '/') e.path.pop_back();
  if (e.path.size() >= 17 && e.path.substr(e.path.size() - 17) == "/chat/completions")
    return EndpointProblem{"ends with /chat/completions; the endpoint is the base URL before it",
                           "remove /chat/completions (mur appends it)"};
  e.loopback = is_loopback_host(e.host);
  if (e.scheme == "http" && !e.loopback) {
    if (!allow_insecure_http)
      return EndpointProblem{"uses http:// with the host " + e.host +
                               ", which is not loopback; plain HTTP is allowed only for 127.0.0.0/8, ::1 and localhost",
                             "use https:// for a server on another machine, or, on a network you trust, add "
                             "allow_insecure_http: true beside it (prompts, answers and any key then cross it unencrypted)"};
    e.insecure = true;
  }
  return e;
}

const char* const insecure_http_fix = "serve it over https://, or keep it on a network only you use";

std::string insecure_http_message(const ModelEndpoint& e, const std::string& who, const std::string& what) {
  if (!e.insecure) return {};
  return who + ": " + what + " is plain http:// to " + e.host +
         ", which is not this machine (allow_insecure_http: true): prompts, answers, tool results and any key "
         "cross the network unencrypted";
}

std::optional<std::vector<EnvReference>> env_references(const std::string& text) {
  std::vector<EnvReference> out;
  for (std::size_t at = text.find("${"); at != std::string::npos; at = text.find("${", at + 2)) {
    const auto close = text.find('}', at);
    if (close == std::string::npos) return std::nullopt;
    auto name = env_reference_name(text.substr(at, close - at + 1));
    if (!name) return std::nullopt;
    out.push_back(EnvReference{at, close - at + 1, std::move(*name)});
  }
  return out;
}

} // namespace mur
