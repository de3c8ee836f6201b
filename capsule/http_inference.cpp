#include "capsule/http_inference.hpp"

#include "messages/vocabulary/chat_fields.hpp"
#include "messages/credentials/virtual_address.hpp"
#include "messages/vocabulary/model_endpoint.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace mur {
namespace {

using yaml::Value;

constexpr int max_params_depth = 16;

// A YAML value as the JSON it stands for: quoted scalars are strings; plain scalars are null,
// booleans, integers or decimals when they look like one, else strings.
nlohmann::json to_json_value(const Value& v, int depth) {
  if (depth > max_params_depth) v.fail("nests deeper than 16 levels", "flatten the value");
  const YAML::Node& n = v.node();
  if (!n.IsDefined() || n.IsNull()) return nullptr;
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& item : v.items()) a.push_back(to_json_value(item, depth + 1));
    return a;
  }
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, item] : v.entries()) o[k] = to_json_value(item, depth + 1);
    return o;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() != "?") return s; // quoted or a block scalar: a string
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex integer(R"(^[-+]?[0-9]{1,18}$)");
  static const std::regex decimal(R"(^[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?$)");
  if (std::regex_match(s, integer)) return std::stoll(s);
  if (std::regex_match(s, decimal)) {
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return s;
}

double plain_number(const Value& v, double min, double max) {
  const std::string range = " between " + nlohmann::json(min).dump() + " and " + nlohmann::json(max).dump();
  static const std::regex decimal(R"(^[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?$)");
  if (!v.is_scalar() || v.node().Tag() != "?" || !std::regex_match(v.node().Scalar(), decimal))
    v.fail("must be a number (unquoted)" + range);
  const double d = std::strtod(v.node().Scalar().c_str(), nullptr);
  if (!std::isfinite(d) || d < min || d > max) v.fail("must be" + range);
  return d;
}

void parse_params(const Value& v, Inference& out) {
  if (!v.is_map()) v.fail("must be a mapping of request-body fields to values",
                          "write e.g. params: {top_p: 0.9, seed: 7}");
  for (const auto& [name, value] : v.entries()) {
    const auto& ours = chat_fields_set_by_mur();
    if (std::find(ours.begin(), ours.end(), name) != ours.end())
      value.fail("is a request field mur sets itself", "remove it from params");
    if (name == "max_tokens" || name == "temperature")
      value.fail_with("E-MAN-003", "duplicates inference." + name,
                      "set inference." + name + " and remove it from params");
    out.params.emplace_back(name, to_json_value(value, 0).dump());
  }
}

// inference.price: {input_per_mtok, output_per_mtok}, both plain numbers ≥ 0 (per million tokens).
TokenPrice parse_price(const Value& v) {
  const std::string example = "e.g. price: {input_per_mtok: 0.15, output_per_mtok: 0.6}";
  if (!v.is_map()) v.fail("must be a mapping of input_per_mtok and output_per_mtok", "write " + example);
  v.expect_map({"input_per_mtok", "output_per_mtok"});
  static const std::regex decimal(R"(^\+?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?$)");
  auto per_mtok = [&](const char* key) {
    Value n = v.require(key);
    if (!n.is_scalar() || n.node().Tag() != "?" || !std::regex_match(n.node().Scalar(), decimal))
      n.fail("must be a plain number of at least 0: what a million tokens cost",
             "write it unquoted, without a currency sign, " + example);
    const double d = std::strtod(n.node().Scalar().c_str(), nullptr);
    if (!std::isfinite(d) || d > max_price_per_mtok)
      n.fail("must be at most 1000000000 (per million tokens)", "write the price of a million tokens, " + example);
    return d;
  };
  TokenPrice p;
  p.input_per_mtok = per_mtok("input_per_mtok");
  p.output_per_mtok = per_mtok("output_per_mtok");
  return p;
}

} // namespace

nlohmann::json yaml_as_json(const yaml::Value& v) { return to_json_value(v, 0); }

const std::vector<const char*>& http_only_inference_keys() {
  static const std::vector<const char*> keys{"endpoint", "model", "api_key", "max_tokens", "temperature",
                                             "stream", "request_timeout_secs", "params", "allow_insecure_http",
                                             "price"};
  return keys;
}

void parse_http_inference(const Value& inf, Inference& out) {
  Value ep = inf.require("endpoint");
  out.endpoint = ep.string();
  const auto insecure = inf.get("allow_insecure_http");
  auto parsed = parse_model_endpoint(out.endpoint, insecure && insecure->boolean());
  if (auto* p = std::get_if<EndpointProblem>(&parsed)) ep.fail(p->problem, p->fix);
  const ModelEndpoint endpoint = std::get<ModelEndpoint>(parsed);
  // A member's virtual address is reached only through call-member, whose answers are fenced; a
  // model endpoint there would be sent (or looked up) as written.
  if (is_formation_host(endpoint.host))
    ep.fail("names " + endpoint.host + ", a formation's virtual address, which only call-member reaches",
            "point the endpoint at the model server; to hand another member work, call it with call-member");
  out.model_endpoint = endpoint;

  out.model = inf.require("model").string();

  if (auto k = inf.get("api_key")) {
    const std::string text = k->string();
    if (auto name = env_reference_name(text)) {
      out.api_key_env = *name;
    } else if (text.rfind("${", 0) == 0) {
      k->fail("looks like an environment reference but is not ${UPPER_SNAKE_NAME}",
              "write ${NAME} with capitals, digits and '_'");
    } else {
      // Never quote the text: it may be a real key.
      k->fail("holds a literal key; a key is never written into murmur.yaml",
              "put the key in an environment variable and write api_key: ${ENV_NAME}, e.g. ${OPENAI_API_KEY}");
    }
  } else if (!endpoint.loopback) {
    inf.fail("has no api_key, which an endpoint that is not loopback (" + endpoint.host + ") requires",
             "add api_key: ${ENV_NAME} and set that variable where mur runs");
  }

  auto sp = inf.get("system_prompt");
  auto spf = inf.get("system_prompt_file");
  if (sp && spf)
    spf->fail_with("E-MAN-003", "is set together with inference.system_prompt",
                   "keep either system_prompt or system_prompt_file");
  if (sp) out.system_prompt = sp->text();
  if (spf) {
    out.system_prompt_file = spf->string();
    const auto& f = out.system_prompt_file;
    if (f.front() == '/' || f == ".." || f.rfind("../", 0) == 0 ||
        f.find("/../") != std::string::npos || (f.size() >= 3 && f.substr(f.size() - 3) == "/.."))
      spf->fail("must be a path inside the capsule folder", "give a relative path with no '..'");
  }
  if (auto mt = inf.get("max_tokens")) out.max_tokens = static_cast<int>(mt->integer(1, 1'000'000));
  if (auto t = inf.get("temperature")) out.temperature = plain_number(*t, 0.0, 2.0);
  if (auto s = inf.get("stream")) out.stream = s->boolean();
  if (auto r = inf.get("request_timeout_secs"))
    out.request_timeout_secs = static_cast<int>(r->integer(1, 86'400));
  if (auto p = inf.get("params")) parse_params(*p, out);
  if (auto p = inf.get("price")) out.price = parse_price(*p);
}

} // namespace mur
