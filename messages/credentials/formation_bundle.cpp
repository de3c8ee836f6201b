#include "messages/credentials/formation_bundle.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "messages/credentials/formation_channel.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/strict_json.hpp"

namespace mur {

namespace {

[[noreturn]] void refuse(const std::string& reason) {
  throw ChannelLineRefused("the formation channel's first line was refused: " + reason);
}

bool has_exactly(const nlohmann::json& obj, std::initializer_list<const char*> required,
                 std::initializer_list<const char*> optional = {}) {
  std::size_t present = 0;
  for (const char* k : required) {
    if (!obj.contains(k)) return false;
    ++present;
  }
  for (const char* k : optional)
    if (obj.contains(k)) ++present;
  return obj.size() == present;
}

constexpr Spend spends[] = {Spend::tokens, Spend::model_requests, Spend::tool_calls, Spend::calls};

SpendLimits parse_limits(const nlohmann::json& l) {
  const char* shape = "limits is not an object of max_tokens, max_model_requests, max_tool_calls, max_calls "
                      "(0 to 10^12) and max_wall_secs (1 to 604800), at least one";
  if (!l.is_object() || l.empty()) refuse(shape);
  SpendLimits out;
  for (auto it = l.begin(); it != l.end(); ++it) {
    const auto& v = it.value();
    if (!v.is_number_integer()) refuse(shape);
    const std::int64_t n = v.get<std::int64_t>();
    bool known = false;
    for (Spend s : spends)
      if (it.key() == limit_name(s)) {
        if (n < 0 || n > max_limit_value) refuse(shape);
        limit_of(out.budget, s) = n;
        known = true;
      }
    if (it.key() == "max_wall_secs") {
      if (n < 1 || n > max_wall_secs_limit) refuse(shape);
      out.max_wall_secs = n;
      known = true;
    }
    if (!known) refuse(shape);
  }
  return out;
}

const std::string* string_at(const nlohmann::json& obj, const char* key) {
  const auto& v = obj.at(key);
  return v.is_string() ? &v.get_ref<const std::string&>() : nullptr;
}

bool pem_of(const std::string* text, const std::string& kind) {
  const std::string begin = "-----BEGIN " + kind + "-----", end = "-----END " + kind + "-----";
  return text && text->rfind(begin, 0) == 0 && text->find(end) != std::string::npos;
}

DoorTls parse_tls(const nlohmann::json& t) {
  if (!t.is_object() || !has_exactly(t, {"authority"}, {"certificate", "key"}) || t.size() == 2)
    refuse("tls does not hold exactly authority, and certificate with key or neither");
  DoorTls out;
  if (!pem_of(string_at(t, "authority"), "CERTIFICATE")) refuse("tls.authority is not a PEM certificate");
  out.authority = *string_at(t, "authority");
  if (t.contains("certificate")) {
    if (!pem_of(string_at(t, "certificate"), "CERTIFICATE")) refuse("tls.certificate is not a PEM certificate");
    if (!pem_of(string_at(t, "key"), "PRIVATE KEY")) refuse("tls.key is not a PEM private key");
    out.certificate = *string_at(t, "certificate");
    out.key = *string_at(t, "key");
  }
  return out;
}

} // namespace

std::string render_bundle(const FormationBundle& bundle) {
  nlohmann::ordered_json line;
  line["formation_id"] = bundle.formation_id;
  line["member"] = bundle.member;
  if (bundle.launcher) {
    nlohmann::ordered_json launcher;
    launcher["pid"] = bundle.launcher->pid;
    launcher["process_start"] = bundle.launcher->process_start;
    line["launcher"] = std::move(launcher);
  }
  line["verify_key"] = b64url::encode(bundle.verify_key.data(), bundle.verify_key.size());
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  for (const FormationCall& call : bundle.calls) {
    nlohmann::ordered_json entry;
    entry["name"] = call.name;
    entry["token"] = call.token.expose();
    calls.push_back(std::move(entry));
  }
  line["calls"] = std::move(calls);
  if (bundle.chain_rule.allow_cycles || bundle.chain_rule.max_depth != default_max_depth) {
    nlohmann::ordered_json chain;
    chain["allow_cycles"] = bundle.chain_rule.allow_cycles;
    chain["max_depth"] = bundle.chain_rule.max_depth;
    line["chain"] = std::move(chain);
  }
  if (!bundle.limits.bounds_nothing()) {
    nlohmann::ordered_json limits;
    for (Spend s : spends)
      if (limit_of(bundle.limits.budget, s) != no_limit) limits[limit_name(s)] = limit_of(bundle.limits.budget, s);
    if (bundle.limits.max_wall_secs > 0) limits["max_wall_secs"] = bundle.limits.max_wall_secs;
    line["limits"] = std::move(limits);
  }
  if (!bundle.tls.authority.empty()) {
    nlohmann::ordered_json tls;
    tls["authority"] = bundle.tls.authority;
    if (!bundle.tls.certificate.empty()) {
      tls["certificate"] = bundle.tls.certificate;
      tls["key"] = bundle.tls.key;
    }
    line["tls"] = std::move(tls);
  }
  std::string text = line.dump();
  // The JSON tree held token copies; the string returned is the caller's to write and drop.
  return text;
}

FormationBundle parse_bundle(std::string_view line,
                             std::optional<std::string_view> expected_formation_id) {
  if (auto problem = channel_line_problem(line)) refuse(*problem);
  std::optional<nlohmann::json> parsed = parse_strict_json(line);
  if (!parsed) refuse("it is not JSON, or repeats a key");
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object() ||
      !has_exactly(doc, {"formation_id", "member", "verify_key", "calls"}, {"launcher", "chain", "limits", "tls"}))
    refuse("it does not hold exactly formation_id, member, verify_key, calls and an optional "
           "launcher, chain, limits and tls");

  FormationBundle bundle;
  const std::string* id = string_at(doc, "formation_id");
  if (!id || !ids::is_valid(*id, ids::formation)) refuse("formation_id is not frm_ + 32 hex");
  if (expected_formation_id && !same_text(*id, *expected_formation_id))
    refuse("it is for another formation than MURMUR_FORMATION_ID");
  bundle.formation_id = *id;
  const std::string* member = string_at(doc, "member");
  if (!member || !is_member_name(*member)) refuse("member is not a member name");
  bundle.member = *member;

  if (doc.contains("launcher")) {
    const auto& l = doc.at("launcher");
    if (!l.is_object() || !has_exactly(l, {"pid", "process_start"}))
      refuse("launcher does not hold exactly pid and process_start");
    const auto& pid = l.at("pid");
    if (!pid.is_number_integer() || pid.get<std::int64_t>() < 1 ||
        pid.get<std::int64_t>() > 2147483647)
      refuse("launcher.pid is not a number from 1 to 2147483647");
    const std::string* start = string_at(l, "process_start");
    if (!start || start->empty()) refuse("launcher.process_start is not a non-empty string");
    bundle.launcher = LauncherIdentity{pid.get<std::int64_t>(), *start};
  }

  if (doc.contains("chain")) {
    const auto& c = doc.at("chain");
    if (!c.is_object() || !has_exactly(c, {"allow_cycles", "max_depth"}) || !c.at("allow_cycles").is_boolean())
      refuse("chain does not hold exactly allow_cycles (a boolean) and max_depth");
    const auto& depth = c.at("max_depth");
    if (!depth.is_number_integer() || depth.get<std::int64_t>() < 1 || depth.get<std::int64_t>() > max_chain_length)
      refuse("chain.max_depth is not a number from 1 to 64");
    bundle.chain_rule = ChainRule{c.at("allow_cycles").get<bool>(), static_cast<int>(depth.get<std::int64_t>())};
  }

  if (doc.contains("limits")) bundle.limits = parse_limits(doc.at("limits"));
  if (doc.contains("tls")) bundle.tls = parse_tls(doc.at("tls"));

  const std::string* key = string_at(doc, "verify_key");
  std::optional<std::string> key_bytes = key ? b64url::decode(*key) : std::nullopt;
  if (!key_bytes || key_bytes->size() != bundle.verify_key.size())
    refuse("verify_key is not 32 bytes of unpadded base64url");
  std::copy(key_bytes->begin(), key_bytes->end(), bundle.verify_key.begin());

  const auto& calls = doc.at("calls");
  if (!calls.is_array()) refuse("calls is not a list");
  std::set<std::string> names;
  std::size_t index = 0;
  for (const auto& call : calls) {
    ++index;
    const std::string where = "calls entry " + std::to_string(index);
    if (!call.is_object() || !has_exactly(call, {"name", "token"}))
      refuse(where + " does not hold exactly name and token");
    const std::string* name = string_at(call, "name");
    if (!name || !is_member_name(*name)) refuse(where + " does not name a member");
    if (!names.insert(*name).second) refuse(where + " names a callee listed before");
    const std::string* token = string_at(call, "token");
    std::optional<FormationClaims> claims =
        token ? open_formation_token(*token, bundle.verify_key) : std::nullopt;
    if (!claims || !same_text(claims->formation, bundle.formation_id) ||
        !same_text(claims->from, bundle.member) || !same_text(claims->to, *name))
      refuse(where + " holds a token that does not verify for this member and callee");
    bundle.calls.push_back({*name, FormationToken::adopt(*token)});
  }
  return bundle;
}

} // namespace mur
