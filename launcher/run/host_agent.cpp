// host_agent.cpp — see host_agent.hpp.
#include "launcher/run/host_agent.hpp"

#include "capsule/capsule_names.hpp"
#include "capsule/capsule_store.hpp"
#include "launcher/run/host_uploads.hpp"

#include "messages/wire/register_messages.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <filesystem>
#include <memory>
#include <variant>

namespace mur {

HostCapsuleState check_installed(const std::string& store, const HostCapsule& asked) {
  HostCapsuleState s{asked.name, asked.version, false, ""};
  // A name or version that is not one never reaches the file system (no path of the host's is probed).
  if (auto p = names::capsule_name_problem(asked.name)) return s.why = "'" + asked.name + "' " + *p, s;
  if (auto p = names::version_problem(asked.version)) return s.why = "version '" + asked.version + "': " + *p, s;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(store + "/" + asked.name + "/" + asked.version, ec))) {
    s.why = "not installed there at this version (its global store: " + store + ")";
    return s;
  }
  const auto found = resolve_capsule(StoreRoots{store, store}, asked.name, asked.version);
  if (const auto* miss = std::get_if<ResolveMiss>(&found)) {
    s.why = miss->why;
    return s;
  }
  const auto& got = std::get<ResolvedCapsule>(found).stored;
  if (!asked.sha256.empty() && got.sha256 != asked.sha256) {
    s.why = "it is installed there with other bytes (sha256 " + got.sha256.substr(0, 12) + "…, the launcher's " +
            asked.sha256.substr(0, 12) + "…)";
    return s;
  }
  s.installed = true;
  return s;
}

void speak_tls(caf::actor_system_config& cfg, const std::string& certificate, const std::string& key,
               const std::string& trusted) {
  register_message_types(cfg);
  cfg.load<caf::io::middleman>();
  cfg.load<caf::openssl::manager>();
  cfg.set("scheduler.max-threads", 1);
  cfg.openssl_certificate = certificate;
  cfg.openssl_key = key;
  cfg.openssl_cafile = trusted;
}

namespace {

struct AgentState {
  HostAgentSetup setup;
  std::unique_ptr<HostUploads> uploads;
  static inline const char* name = "mur.host_agent";
};

} // namespace

host_door spawn_host_agent(caf::actor_system& sys, HostAgentSetup setup) {
  return sys.spawn([setup = std::move(setup)](host_door::stateful_pointer<AgentState> self) -> host_door::behavior_type {
    self->state.setup = setup;
    self->state.uploads = std::make_unique<HostUploads>(setup.uploads, setup.store);
    return {
      [self](const HostCheck& check) {
        const auto& st = self->state.setup;
        HostReport r{st.name, st.mur_version, {}};
        for (const auto& c : check.capsules) r.capsules.push_back(check_installed(st.store, c));
        return r;
      },
      [self](const HostUpload& piece) { return self->state.uploads->take(piece); },
    };
  });
}

} // namespace mur
