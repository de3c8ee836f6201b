// The channel's first line and its address lines: round trips, every refusal, no echo.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/credentials/formation_bundle.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "token_forge.hpp"

using namespace mur;
using test::kFormation;

namespace {

FormationBundle bundle_for(const FormationAuthority& a, const std::string& member,
                           const std::vector<std::string>& callees, bool launcher = true) {
  FormationBundle b;
  b.formation_id = a.formation_id();
  b.member = member;
  if (launcher) b.launcher = LauncherIdentity{4242, "987654"};
  b.verify_key = a.verify_key();
  for (const auto& c : callees) b.calls.push_back({c, a.mint(member, c)});
  return b;
}

const std::string kFieldNames =
    "{\"formation_id\":\"frm_\",\"member\":\"\",\"launcher\":{\"pid\":,\"process_start\":\"\"},"
    "\"verify_key\":\"\",\"calls\":[{\"name\":\"\",\"token\":\"mft1.\"}]}";

// Parsing `line` is refused, and the reason quotes no token and no stretch of the line.
void expect_refused_quietly(const std::string& line, std::optional<std::string> expected_id = {}) {
  std::string reason;
  try {
    if (expected_id) parse_bundle(line, *expected_id);
    else parse_bundle(line);
  } catch (const ChannelLineRefused& e) {
    reason = e.what();
  }
  INFO("line: " << line.substr(0, 200));
  REQUIRE_FALSE(reason.empty());
  // No 12-character window of the line (tokens, key, id, pid, urls) appears in the reason.
  for (std::size_t i = 0; i + 12 <= line.size(); ++i) {
    const std::string window = line.substr(i, 12);
    if (kFieldNames.find(window) != std::string::npos) continue; // a reason may name a field
    INFO("window: " << window);
    REQUIRE(reason.find(window) == std::string::npos);
  }
}

} // namespace

// Why parse_address_line refuses `line` ("" when it takes it).
static std::string address_line_refusal(const std::string& line) {
  try {
    parse_address_line(line);
  } catch (const ChannelLineRefused& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a bundle renders in the fixed field order and round-trips", "[credentials]") {
  FormationAuthority a(kFormation);
  FormationBundle b = bundle_for(a, "coder", {"reviewer", "tester"});
  const std::string line = render_bundle(b);
  const std::string prefix = "{\"formation_id\":\"" + kFormation +
                             "\",\"member\":\"coder\",\"launcher\":{\"pid\":4242,\"process_start\":\"987654\"},"
                             "\"verify_key\":\"" + b64url::encode(a.verify_key().data(), 32) +
                             "\",\"calls\":[{\"name\":\"reviewer\",\"token\":\"mft1.";
  CHECK(line.rfind(prefix, 0) == 0);
  CHECK(line.find('\n') == std::string::npos);

  FormationBundle back = parse_bundle(line, kFormation);
  CHECK(back.formation_id == kFormation);
  CHECK(back.member == "coder");
  REQUIRE(back.launcher);
  CHECK(back.launcher->pid == 4242);
  CHECK(back.launcher->process_start == "987654");
  CHECK(back.verify_key == a.verify_key());
  REQUIRE(back.calls.size() == 2);
  CHECK(back.calls[0].name == "reviewer");
  CHECK(back.calls[0].token.expose() == b.calls[0].token.expose());
  CHECK(render_bundle(back) == line);

  FormationBundle bare = bundle_for(a, "reviewer", {}, /*launcher=*/false);
  const std::string bare_line = render_bundle(bare);
  CHECK(bare_line == "{\"formation_id\":\"" + kFormation + "\",\"member\":\"reviewer\",\"verify_key\":\"" +
                         b64url::encode(a.verify_key().data(), 32) + "\",\"calls\":[]}");
  CHECK(parse_bundle(bare_line).calls.empty());
}

TEST_CASE("bad bundles are refused without quoting the line", "[credentials]") {
  FormationAuthority a(kFormation), other(kFormation);
  FormationAuthority foreign(test::kOtherFormation);
  const FormationBundle good = bundle_for(a, "coder", {"reviewer", "tester"});
  const nlohmann::json j = nlohmann::json::parse(render_bundle(good));
  auto edited = [&](auto&& edit) {
    nlohmann::ordered_json o = nlohmann::ordered_json::parse(render_bundle(good));
    edit(o);
    return o.dump();
  };
  const std::string tok_rev = good.calls[0].token.expose();
  const std::string tok_test = good.calls[1].token.expose();

  std::vector<std::string> bad = {
      edited([](auto& o) { o["formation_id"] = "frm_XYZ"; }),
      edited([](auto& o) { o["member"] = "Coder"; }),
      edited([](auto& o) { o.erase("member"); }),
      edited([](auto& o) { o.erase("calls"); }),
      edited([](auto& o) { o.erase("verify_key"); }),
      edited([](auto& o) { o["extra"] = 1; }),
      edited([](auto& o) { o["launcher"]["pid"] = 0; }),
      edited([](auto& o) { o["launcher"]["pid"] = 2147483648LL; }),
      edited([](auto& o) { o["launcher"]["pid"] = "4242"; }),
      edited([](auto& o) { o["launcher"]["process_start"] = ""; }),
      edited([](auto& o) { o["launcher"]["x"] = 1; }),
      edited([](auto& o) { o["verify_key"] = std::string(o["verify_key"]) + "="; }),
      edited([](auto& o) { o["verify_key"] = std::string(o["verify_key"]).substr(0, 42); }),
      edited([&](auto& o) { o["verify_key"] = b64url::encode(other.verify_key().data(), 32); }),
      edited([](auto& o) { o["calls"] = nlohmann::ordered_json::object(); }),
      edited([](auto& o) { o["calls"][0]["name"] = "tester"; }),                  // token for reviewer
      edited([&](auto& o) { o["calls"][1] = o["calls"][0]; }),                    // repeated callee
      edited([](auto& o) { o["calls"][0]["extra"] = true; }),
      edited([](auto& o) { o["calls"][0].erase("token"); }),
      edited([&](auto& o) { o["calls"][0]["token"] = tok_rev + "x"; }),
      edited([&](auto& o) { o["calls"][0]["token"] = other.mint("coder", "reviewer").expose(); }),
      edited([&](auto& o) { o["calls"][0]["token"] = a.mint("tester", "reviewer").expose(); }),  // from another member
      edited([&](auto& o) { o["calls"][0]["token"] = foreign.mint("coder", "reviewer").expose(); }),
      edited([](auto& o) { o["member"] = "tester"; }),                            // tokens not from tester
      render_bundle(good).substr(0, 300),                                          // truncated
      render_bundle(good) + "x",
      "[" + render_bundle(good) + "]",
      "{\"formation_id\":\"" + kFormation + "\"," + render_bundle(good).substr(1),  // repeated key
      "{\"formation_id\":\"" + kFormation + "\",\"member\":\"co\xff\"}",
  };
  for (const auto& line : bad) expect_refused_quietly(line);
  // Another formation than MURMUR_FORMATION_ID.
  expect_refused_quietly(render_bundle(good), test::kOtherFormation);
  // Over 1 MiB (all JSON, all valid otherwise).
  std::string huge = render_bundle(good);
  huge.insert(1, "\"pad\":\"" + std::string(FORMATION_CHANNEL_LINE_MAX, 'a') + "\",");
  expect_refused_quietly(huge);
  (void)j;
  (void)tok_test;
}

TEST_CASE("address lines round-trip and bad ones are refused without echo", "[credentials]") {
  const std::vector<MemberAddress> addrs = {{"coder", "http://127.0.0.1:41873"},
                                            {"reviewer", "http://[::1]:8080"},
                                            {"tester", "http://localhost:1"},
                                            {"remote", "https://10.0.0.2:4100"}}; // a door on another host
  const std::string line = render_address_line(addrs);
  CHECK(line == "{\"addresses\":[{\"name\":\"coder\",\"url\":\"http://127.0.0.1:41873\"},"
                "{\"name\":\"reviewer\",\"url\":\"http://[::1]:8080\"},"
                "{\"name\":\"tester\",\"url\":\"http://localhost:1\"},"
                "{\"name\":\"remote\",\"url\":\"https://10.0.0.2:4100\"}]}");
  auto back = parse_address_line(line);
  REQUIRE(back.size() == 4);
  CHECK(back[1].name == "reviewer");
  CHECK(back[1].url == "http://[::1]:8080");
  CHECK(parse_address_line("{\"addresses\":[]}").empty());

  for (const char* url : {"ftp://127.0.0.1:80", "https://127.0.0.1", "HTTPS://h:80", "http://127.0.0.1", "http://127.0.0.1:0",
                          "http://127.0.0.1:65536", "http://127.0.0.1:99999", "http://127.0.0.1:80/",
                          "http://127.0.0.1:80/x", "http://u@host:80", "http://:80", "http://ho_st:80",
                          "http://127.0.0.1:08080", "http://[::1:80", "http://[]:80",
                          "http://[zz]:80", "HTTP://h:80", "http://h:80?q", "http://h: 80", "http://h:-1"}) {
    INFO(url);
    CHECK_FALSE(is_door_url(url));
    const std::string bad = render_address_line({{"coder", url}});
    const std::string reason = address_line_refusal(bad);
    REQUIRE_FALSE(reason.empty());
    CHECK(reason.find(url) == std::string::npos);
    CHECK(reason.find("coder") == std::string::npos);
  }
  for (std::string bad : {std::string("{\"addresses\":[{\"name\":\"coder\",\"url\":\"http://h:1\"},"
                                      "{\"name\":\"coder\",\"url\":\"http://h:2\"}]}"),
                          std::string("{\"addresses\":[{\"name\":\"Coder\",\"url\":\"http://h:1\"}]}"),
                          std::string("{\"addresses\":[{\"name\":\"coder\"}]}"),
                          std::string("{\"addresses\":[{\"name\":\"coder\",\"url\":\"http://h:1\",\"x\":1}]}"),
                          std::string("{\"addresses\":[{\"name\":\"coder\",\"name\":\"x\",\"url\":\"http://h:1\"}]}"),
                          std::string("{\"addresses\":{}}"), std::string("{\"addresses\":[],\"x\":1}"),
                          std::string("{\"addresses\":[],\"addresses\":[]}"), std::string("{}"),
                          std::string("not json"), std::string("{\"addresses\":[\"\xe0\x80\xaf\"]}"),
                          "{\"addresses\":[],\"p\":\"" + std::string(FORMATION_CHANNEL_LINE_MAX, 'b') + "\"}"}) {
    INFO(bad.substr(0, 100));
    const std::string reason = address_line_refusal(bad);
    REQUIRE_FALSE(reason.empty());
    CHECK(reason.find("http://h") == std::string::npos);
    CHECK(reason.find("bbbbbbbb") == std::string::npos);
    CHECK(reason.find("not json") == std::string::npos);
  }
}

TEST_CASE("a bundle's tls carries the door authority, and a door's certificate with its key or neither", "[credentials]") {
  FormationAuthority a(kFormation);
  const std::string cert = "-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n";
  const std::string key = "-----BEGIN PRIVATE KEY-----\nREVG\n-----END PRIVATE KEY-----\n";
  FormationBundle b = bundle_for(a, "coder", {"reviewer"});
  CHECK(render_bundle(b).find("\"tls\"") == std::string::npos); // one machine: no tls at all
  b.tls.authority = cert;
  FormationBundle back = parse_bundle(render_bundle(b), kFormation);
  CHECK(back.tls.authority == cert);
  CHECK(back.tls.certificate.empty());
  b.tls.certificate = cert;
  b.tls.key = key;
  const std::string line = render_bundle(b);
  CHECK(line.substr(line.find("\"tls\"")).rfind("\"tls\":{\"authority\":", 0) == 0); // last, in its fixed order
  back = parse_bundle(line, kFormation);
  CHECK(back.tls.certificate == cert);
  CHECK(back.tls.key == key);
  auto edited = [&](auto&& edit) {
    nlohmann::ordered_json o = nlohmann::ordered_json::parse(line);
    edit(o);
    return o.dump();
  };
  for (const std::string& bad : {edited([](auto& o) { o["tls"].erase("key"); }),
                                 edited([](auto& o) { o["tls"].erase("certificate"); }),
                                 edited([](auto& o) { o["tls"].erase("authority"); }),
                                 edited([&](auto& o) { o["tls"]["key"] = cert; }),
                                 edited([&](auto& o) { o["tls"]["authority"] = key; }),
                                 edited([](auto& o) { o["tls"]["extra"] = "x"; }),
                                 edited([](auto& o) { o["tls"] = "x"; })})
    expect_refused_quietly(bad, kFormation);
}
