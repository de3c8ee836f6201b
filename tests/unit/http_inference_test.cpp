// The `inference` keys of transport: http (capsule/http_inference.hpp), the endpoint rules
// (messages/vocabulary/model_endpoint.hpp) and what doctor warns about a model (launcher/admission/inference_warnings.hpp).
#include "capsule/manifest.hpp"
#include "launcher/admission/inference_warnings.hpp"
#include "launcher/cli/doctor.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/model_endpoint.hpp"
#include "manifest_refusal.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using mur::Manifest;
using mur::parse_manifest;
using mur::test::manifest_refused_each;

namespace {

const std::string head = "name: worker\nversion: 1.0.0\n";

std::string http(const std::string& extra, const std::string& endpoint = "http://127.0.0.1:11434/v1") {
  return head + "inference:\n  transport: http\n  endpoint: '" + endpoint + "'\n  model: llama3.2\n" + extra;
}
// An http manifest with `extra` lines under inference.
std::string with_http(const std::string& extra) { return http(extra); }
// An http manifest whose endpoint is `endpoint`.
std::string at_endpoint(const std::string& endpoint) { return http("", endpoint); }

mur::Failure refusal(const std::string& text) { return mur::test::manifest_refusal(text); }
void refused(const std::string& text, const std::string& code, const std::string& fragment) {
  mur::test::manifest_refused(text, code, fragment);
}

} // namespace

TEST_CASE("http inference: every key parses, with its defaults", "[manifest][models]") {
  Manifest d = parse_manifest(http(""), "murmur.yaml");
  CHECK(d.inference.transport == mur::Transport::http);
  CHECK(d.inference.model == "llama3.2");
  CHECK(d.inference.api_key_env.empty());
  CHECK(d.inference.stream);
  CHECK(d.inference.request_timeout_secs == 300);
  CHECK_FALSE(d.inference.max_tokens);
  CHECK_FALSE(d.inference.temperature);
  CHECK(d.inference.params.empty());

  Manifest m = parse_manifest(http("  api_key: ${OPENAI_API_KEY}\n  system_prompt: Be brief.\n  max_tokens: 512\n"
                                   "  temperature: 0.2\n  stream: false\n  request_timeout_secs: 60\n  max_turns: 4\n"
                                   "  params: {top_p: 0.9, seed: 7, stop: [\"\\n\\n\", END], logit_bias: {'50256': -100},"
                                   " quoted: '12', flag: true, none: null}\n",
                                   "https://api.openai.com/v1/"),
                              "murmur.yaml");
  const auto& inf = m.inference;
  CHECK(inf.endpoint == "https://api.openai.com/v1/");
  CHECK(inf.api_key_env == "OPENAI_API_KEY");
  CHECK(inf.system_prompt == "Be brief.");
  CHECK(inf.max_tokens == std::optional<int>(512));
  CHECK(inf.temperature == std::optional<double>(0.2));
  CHECK_FALSE(inf.stream);
  CHECK(inf.request_timeout_secs == 60);
  CHECK(inf.max_turns == 4);
  std::map<std::string, nlohmann::json> params;
  for (const auto& [k, v] : inf.params) params[k] = nlohmann::json::parse(v);
  CHECK(params.at("top_p") == nlohmann::json(0.9));
  CHECK(params.at("seed") == nlohmann::json(7));
  CHECK(params.at("stop") == nlohmann::json::array({"\n\n", "END"}));
  CHECK(params.at("logit_bias") == nlohmann::json{{"50256", -100}});
  CHECK(params.at("quoted") == nlohmann::json("12")); // quoted stays a string
  CHECK(params.at("flag") == nlohmann::json(true));
  CHECK(params.at("none").is_null());
  REQUIRE(inf.params.size() == 7);
  CHECK(inf.params[0].first == "top_p"); // file order
}

TEST_CASE("http inference: the endpoint rules", "[manifest][models]") {
  for (const char* ok : {"http://127.0.0.1:11434/v1", "http://127.9.9.9/v1", "http://localhost:8080", "http://LOCALHOST/v1",
                         "http://[::1]:8000/v1", "https://api.openai.com/v1", "https://10.0.0.5:8443/v1"})
    CHECK_NOTHROW(parse_manifest(http("  api_key: ${K}\n", ok), "murmur.yaml"));
  manifest_refused_each("E-MAN-002", at_endpoint, {
    {"http://example.com/v1", "inference.endpoint: uses http:// with the host example.com"},
    {"http://10.0.0.5:8000/v1", "which is not loopback"},
    {"http://127.0.0.1.nip.io/v1", "which is not loopback"},
    {"ftp://127.0.0.1/v1", "inference.endpoint: must be an http:// or https://"},
    {"127.0.0.1:11434/v1", "inference.endpoint: must be an http:// or https://"},
    {"https://user:pw@api.example.com/v1", "holds user info"},
    {"https://api.example.com/v1?key=abc", "has a query"},
    {"https://api.example.com/v1#top", "has a fragment"},
    {"https://api.example.com:99999/v1", "port outside"},
    {"https:///v1", "no valid host"},
    {"http://127.0.0.1:11434/v1/chat/completions", "ends with /chat/completions"},
  });
  // A member's virtual address is never a model server, in any letter case.
  refused(http("  api_key: ${K}\n", "https://coder.formation.invalid/v1"), "E-MAN-002",
          "coder.formation.invalid, a formation's virtual address, which only call-member reaches");
  refused(http("  api_key: ${K}\n", "https://Coder.Formation.Invalid./v1"), "E-MAN-002", "virtual address");
  // The user-info refusal never repeats what stood before '@'.
  CHECK(refusal(http("", "https://sk-secret@api.example.com/v1")).message().find("sk-secret") == std::string::npos);
}

TEST_CASE("http inference: keys only as ${ENV}, required off loopback", "[manifest][models]") {
  const std::string literal = "sk-proj-ThisIsALiteralKey123";
  auto f = refusal(http("  api_key: " + literal + "\n"));
  CHECK(f.code() == "E-MAN-002");
  CHECK(f.message().find("inference.api_key: holds a literal key") != std::string::npos);
  CHECK(f.fix().find("${") != std::string::npos);
  CHECK(f.message().find(literal) == std::string::npos);
  CHECK(f.fix().find(literal) == std::string::npos);
  manifest_refused_each("E-MAN-002", with_http, {
    {"  api_key: '${lower}'\n", "inference.api_key: looks like an environment reference"},
    {"  api_key: 'prefix-${KEY}'\n", "inference.api_key: holds a literal key"},
  });
  refused(http("", "https://api.openai.com/v1"), "E-MAN-002", "has no api_key");
  CHECK(parse_manifest(http(""), "m").inference.api_key_env.empty()); // loopback: optional
}

TEST_CASE("http inference: value refusals name their key path", "[manifest][models]") {
  refused(head + "inference: {transport: http, endpoint: 'http://localhost/v1'}\n", "E-MAN-002", "inference.model: is required");
  manifest_refused_each("E-MAN-002", with_http, {
    {"  max_tokens: 0\n", "inference.max_tokens: must be between 1"},
    {"  temperature: 2.5\n", "inference.temperature: must be between 0"},
    {"  temperature: '0.5'\n", "inference.temperature: must be a number"},
    {"  temperature: warm\n", "inference.temperature: must be a number"},
    {"  stream: 'yes'\n", "inference.stream: must be true or false"},
    {"  request_timeout_secs: 0\n", "inference.request_timeout_secs: must be between 1"},
    {"  request_timeout_secs: 86401\n", "inference.request_timeout_secs"},
    {"  params: [top_p]\n", "inference.params: must be a mapping"},
    {"  topp: 0.9\n", "inference.topp: is not a known key"},
  });
  refused(http("  system_prompt: a\n  system_prompt_file: b.md\n"), "E-MAN-003",
          "inference.system_prompt_file: is set together with inference.system_prompt");
}

TEST_CASE("http inference: params never override what mur sets", "[manifest][models]") {
  for (const char* field : {"model", "messages", "tools", "tool_choice", "stream", "stream_options"})
    refused(http(std::string("  params: {") + field + ": x}\n"), "E-MAN-002",
            std::string("inference.params.") + field + ": is a request field mur sets itself");
  refused(http("  params: {max_tokens: 9}\n"), "E-MAN-003", "inference.params.max_tokens: duplicates inference.max_tokens");
  refused(http("  params: {temperature: 1}\n"), "E-MAN-003", "inference.params.temperature: duplicates");
}

TEST_CASE("http-only keys are refused under other transports", "[manifest][models]") {
  for (const char* k : {"temperature: 1", "stream: true", "request_timeout_secs: 5", "params: {a: 1}"}) {
    refused(head + "inference: {transport: script, " + k + "}\n", "E-MAN-003", "does not apply to transport: script");
    refused(head + "inference: {transport: process, command: [x], " + k + "}\n", "E-MAN-003",
            "does not apply to transport: process");
  }
}

TEST_CASE("model endpoints: loopback hosts and the chat completions URL", "[models]") {
  CHECK(mur::is_loopback_host("localhost"));
  CHECK(mur::is_loopback_host("localhost."));
  CHECK(mur::is_loopback_host("127.0.0.1"));
  CHECK(mur::is_loopback_host("127.255.0.3"));
  CHECK(mur::is_loopback_host("[::1]"));
  CHECK_FALSE(mur::is_loopback_host("127.0.0.256"));
  CHECK_FALSE(mur::is_loopback_host("128.0.0.1"));
  CHECK_FALSE(mur::is_loopback_host("localhost.example.com"));
  CHECK_FALSE(mur::is_loopback_host("0.0.0.0"));
  auto e = std::get<mur::ModelEndpoint>(mur::parse_model_endpoint("http://127.0.0.1:11434/v1/"));
  CHECK(e.chat_completions_url() == "http://127.0.0.1:11434/v1/chat/completions");
  CHECK(e.loopback);
  auto bare = std::get<mur::ModelEndpoint>(mur::parse_model_endpoint("https://models.example.com"));
  CHECK(bare.chat_completions_url() == "https://models.example.com/chat/completions");
  CHECK_FALSE(bare.loopback);
  CHECK(mur::env_reference_name("${OPENAI_API_KEY}") == std::optional<std::string>("OPENAI_API_KEY"));
  CHECK_FALSE(mur::env_reference_name("$OPENAI_API_KEY"));
  CHECK_FALSE(mur::env_reference_name("${1KEY}"));
  // within a text (a tool server's header value): each reference with its place, or none at all
  auto refs = mur::env_references("Bearer ${KEY} for ${TEAM_2}");
  REQUIRE(refs);
  REQUIRE(refs->size() == 2);
  CHECK((*refs)[0].name == "KEY");
  CHECK((*refs)[0].at == 7);
  CHECK((*refs)[0].length == 6);
  CHECK((*refs)[1].name == "TEAM_2");
  CHECK(mur::env_references("plain")->empty());
  CHECK_FALSE(mur::env_references("${OK} ${bad}"));
  CHECK_FALSE(mur::env_references("${OPEN"));
}

TEST_CASE("doctor's model warnings: W-MOD-001 for an unset key, never its value", "[doctor][models]") {
  std::map<std::string, std::string> env{{"SET_KEY", "v"}, {"EMPTY_KEY", ""}};
  mur::EnvLookup lookup = [&](const std::string& n) -> std::optional<std::string> {
    auto it = env.find(n);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  auto codes = [](const std::vector<mur::Warning>& ws) {
    std::vector<std::string> c;
    for (const auto& w : ws) {
      CHECK(w.fix.size() > 10);
      c.push_back(w.code);
    }
    return c;
  };
  Manifest script = parse_manifest(head, "m");
  CHECK(mur::inference_warnings(script, "capsule worker@1.0.0", lookup).empty());

  Manifest set = parse_manifest(http("  api_key: ${SET_KEY}\n"), "m");
  CHECK(mur::inference_warnings(set, "x", lookup).empty());

  Manifest unset = parse_manifest(http("  api_key: ${MISSING_KEY}\n"), "m");
  auto ws = mur::inference_warnings(unset, "member 'coder' (coder@1.0.0)", lookup);
  REQUIRE(codes(ws) == std::vector<std::string>{"W-MOD-001"});
  CHECK(ws[0].message.find("member 'coder' (coder@1.0.0): inference.api_key reads ${MISSING_KEY}") == 0);
  CHECK(ws[0].fix.find("MISSING_KEY") != std::string::npos);

  Manifest empty = parse_manifest(http("  api_key: ${EMPTY_KEY}\n"), "m");
  CHECK(codes(mur::inference_warnings(empty, "x", lookup)) == std::vector<std::string>{"W-MOD-001"});

  env["SECRET_VALUE_KEY"] = "sk-do-not-print";
  Manifest p = parse_manifest(head + "inference: {transport: process, command: [agent]}\n", "m");
  for (const auto& w : mur::inference_warnings(p, "x", lookup)) CHECK(w.message.find("sk-") == std::string::npos);
  CHECK(mur::inference_warnings(p, "x", lookup).empty());

  // a tool server's ${NAME}s: W-TOOL-001 for each unset one, of env and of headers alike
  Manifest tools = parse_manifest(head + "tools:\n"
                                         "  - {name: files, command: [srv], env: {A: '${SET_KEY}', B: '${NO_FILES_TOKEN}', C: plain}}\n"
                                         "  - {name: web, url: 'http://127.0.0.1:1/mcp', headers: {Authorization: 'Bearer ${NO_WEB_KEY}', "
                                         "X-Key: '${SECRET_VALUE_KEY}'}}\n",
                                  "m");
  auto tw = mur::inference_warnings(tools, "capsule t@1", lookup);
  REQUIRE(codes(tw) == std::vector<std::string>{"W-TOOL-001", "W-TOOL-001"});
  CHECK(tw[0].message.find("capsule t@1: tools[0].env.B reads ${NO_FILES_TOKEN}, which is not set") == 0);
  CHECK(tw[1].message.find("capsule t@1: tools[1].headers.Authorization reads ${NO_WEB_KEY}, which is not set") == 0);
  for (const auto& w : tw) CHECK(w.message.find("sk-") == std::string::npos);
}

TEST_CASE("http inference: plain http off this machine only with allow_insecure_http, and doctor says W-NET-001",
          "[manifest][models][doctor]") {
  Manifest lan = parse_manifest(http("  api_key: ${SET_KEY}\n  allow_insecure_http: true\n", "http://192.168.1.20:11434/v1"), "m");
  CHECK(lan.inference.model_endpoint.insecure);
  CHECK(lan.inference.model_endpoint.chat_completions_url() == "http://192.168.1.20:11434/v1/chat/completions");
  CHECK_FALSE(parse_manifest(http("  allow_insecure_http: true\n"), "m").inference.model_endpoint.insecure); // loopback
  CHECK_FALSE(parse_manifest(http("  api_key: ${K}\n  allow_insecure_http: true\n", "https://api.example.com/v1"), "m")
                .inference.model_endpoint.insecure);
  manifest_refused_each("E-MAN-002", with_http, {
    {"  allow_insecure_http: 1\n", "inference.allow_insecure_http: must be true or false"},
  });
  const auto off = refusal(http("  api_key: ${K}\n  allow_insecure_http: false\n", "http://192.168.1.20/v1"));
  CHECK(off.message().find("which is not loopback") != std::string::npos);
  CHECK(off.fix().find("allow_insecure_http: true beside it") != std::string::npos);
  refused(head + "inference: {transport: script, allow_insecure_http: true}\n", "E-MAN-003",
          "inference.allow_insecure_http: does not apply to transport: script");

  Manifest tools = parse_manifest(head + "tools:\n  - {name: lan, url: 'http://10.1.2.3:8811/mcp', allow_insecure_http: true}\n"
                                         "  - {name: near, url: 'http://127.0.0.1:8811/mcp', allow_insecure_http: true}\n", "m");
  CHECK(tools.tools[0].endpoint.insecure);
  CHECK_FALSE(tools.tools[1].endpoint.insecure);
  const mur::EnvLookup lookup = [](const std::string&) { return std::optional<std::string>("set"); };
  auto ws = mur::inference_warnings(lan, "member 'coder' (coder@1.0.0)", lookup);
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].code == "W-NET-001");
  CHECK(ws[0].message == "member 'coder' (coder@1.0.0): inference.endpoint is plain http:// to 192.168.1.20, which is not "
                         "this machine (allow_insecure_http: true): prompts, answers, tool results and any key cross the "
                         "network unencrypted");
  CHECK(!ws[0].fix.empty());
  auto tw = mur::inference_warnings(tools, "capsule t@1", lookup);
  REQUIRE(tw.size() == 1);
  CHECK(tw[0].message.rfind("capsule t@1: tools[0].url is plain http:// to 10.1.2.3,", 0) == 0);
}

TEST_CASE("mur doctor passes an http capsule, warning W-MOD-001 with its Fix when its key variable is unset",
          "[doctor][models]") {
  char tmpl[] = "/tmp/mur-doctor-models-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  {
    std::ofstream f(dir + "/murmur.yaml");
    f << http("  api_key: ${MUR_TEST_SURELY_UNSET_KEY_11}\n");
  }
  ::unsetenv("MUR_TEST_SURELY_UNSET_KEY_11");
  std::ostringstream out;
  const int code = mur::run_doctor(dir, out, false, false); // no probe: no model server here
  INFO(out.str());
  CHECK(code == 0);
  CHECK(out.str().find("E-RUN-050") == std::string::npos);
  CHECK(out.str().find("W-MOD-001") != std::string::npos);
  CHECK(out.str().find("Fix: set MUR_TEST_SURELY_UNSET_KEY_11") != std::string::npos);
  {
    std::ofstream f(dir + "/murmur.yaml");
    f << http("  api_key: ${MUR_TEST_SURELY_UNSET_KEY_11}\n", "https://api.example.com/v1");
  }
  std::ostringstream remote;
  mur::run_doctor(dir, remote, false, false);
  INFO(remote.str());
  CHECK(remote.str().find("will refuse to start (E-MOD-003)") != std::string::npos);
  ::unlink((dir + "/murmur.yaml").c_str());
  ::rmdir(dir.c_str());
}
