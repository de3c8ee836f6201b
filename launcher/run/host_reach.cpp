// host_reach.cpp — see host_reach.hpp.
#include "launcher/run/host_reach.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/murmur_home.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "actors/host_route.hpp"
#include "actors/spawn_refusal.hpp"
#include "launcher/run/host_agent.hpp"
#include "messages/wire/register_messages.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/tls_identity.hpp"
#include "os/x509_mint.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace mur {
namespace {

// "" when a TCP connection to host:port opens within `bound`; else why not.
std::string tcp_reaches(const RosterHost& h, std::chrono::milliseconds bound) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(h.host.c_str(), h.port_text.c_str(), &hints, &found); rc != 0)
    return std::string("its name does not resolve (") + ::gai_strerror(rc) + ")";
  std::string why = "no address to try";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int err = 0;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        const int n = ::poll(&p, 1, static_cast<int>(bound.count()));
        socklen_t len = sizeof err;
        if (n <= 0) err = ETIMEDOUT;
        else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
    }
    ::close(fd);
    if (err == 0) {
      ::freeaddrinfo(found);
      return {};
    }
    why = std::strerror(err);
  }
  ::freeaddrinfo(found);
  return why;
}

TlsIdentity launcher_identity() { return ensure_tls_identity(murmur_home() + "/launcher", "mur-launcher"); }

// One connection to a host's agent: TCP first (bounded), then CAF's middleman over TLS with
// this machine's launcher identity, trusting only `key_file`. `refusal` when it could not open.
class HostLink {
public:
  HostLink(const RosterHost& host, const std::string& key_file, std::chrono::milliseconds bound) : host_(host) {
    const TlsIdentity me = launcher_identity();
    if (const std::string why = tcp_reaches(host, bound); !why.empty()) {
      refusal = Failure("E-HST-002", "host '" + host.name + "' (" + host.address + ") cannot be reached: " + why,
                        "start mur host --listen " + host.address + " on that machine, or correct hosts." + host.name +
                          ".address in roster.yaml");
      return;
    }
    speak_tls(cfg_, me.certificate, me.key, key_file);
    sys_ = std::make_unique<caf::actor_system>(cfg_);
    auto door = caf::openssl::remote_actor<host_door>(*sys_, host.host, static_cast<std::uint16_t>(host.port));
    if (!door) {
      refusal = Failure("E-HST-003",
                        "host '" + host.name + "' (" + host.address + ") and this launcher did not agree on TLS (" +
                          sys_->render(door.error()) + "): it does not trust this launcher's certificate, or it "
                          "presented another than " + key_file,
                        "add this launcher's certificate (" + me.certificate + ") to the host's --trust file, and "
                          "copy the host's (mur host --certificate, run there) to " + key_file);
      return;
    }
    door_ = *door;
  }

  // `message` answered within `bound` as `Reply`, or nothing with `refusal` set (E-HST-002).
  template <class Reply, class Message>
  std::optional<Reply> ask(const Message& message, std::chrono::milliseconds bound) {
    std::optional<Reply> got;
    caf::scoped_actor self{*sys_};
    self->request(door_, bound, message)
      .receive([&](const Reply& r) { got = r; },
               [&](const caf::error& e) {
                 refusal = Failure("E-HST-002", "host '" + host_.name + "' (" + host_.address + ") did not answer: " +
                                                  sys_->render(e),
                                   "check that mur host runs there and is not overloaded, then try again");
               });
    return got;
  }

  std::optional<Failure> refusal;

private:
  RosterHost host_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  host_door door_;
};

} // namespace

std::map<std::string, std::string> member_hosts(const Admission& a) {
  std::map<std::string, std::string> placed;
  for (const auto& m : a.members)
    if (!m.declared.host.empty()) placed.emplace(m.declared.name, m.declared.host);
  return placed;
}

void check_hosts(const Admission& a, const std::function<void(const std::string& line, bool reached)>& line) {
  for (const auto& h : a.roster.hosts) {
    std::vector<HostCapsule> asked;
    std::vector<std::string> who;
    for (const auto& m : a.members)
      if (m.declared.host == h.name) {
        asked.push_back({m.declared.capsule, m.declared.version, m.capsule.stored.sha256});
        who.push_back(m.declared.name);
      }
    if (asked.empty()) continue;
    const HostReached got = reach_host(h, host_key_path(a.roster, h), asked, std::chrono::seconds(5));
    if (got.refusal) {
      line(h.name + " (" + h.address + "): \xE2\x9C\x97 " + got.refusal->code(), false);
      throw *got.refusal;
    }
    line(h.name + " (" + h.address + "): reached, mur host " + got.report.host_name + " (mur " + got.report.mur_version + ")",
         true);
    for (std::size_t i = 0; i < got.report.capsules.size() && i < who.size(); ++i) {
      const auto& c = got.report.capsules[i];
      if (!c.installed)
        throw Failure("E-HST-004",
                      "member '" + who[i] + "' (" + c.name + "@" + c.version + ") on host '" + h.name + "': " + c.why,
                      "install it there from the same folder: mur install --host " + h.name +
                        " <capsule folder> (with --force if another copy is there)");
      line("  " + who[i] + ": " + c.name + "@" + c.version + " installed there", false);
    }
  }
}

void speak_tls_to_hosts(caf::actor_system_config& cfg, const Admission& a, const std::string& trust_file) {
  const TlsIdentity me = launcher_identity();
  const auto placed = member_hosts(a);
  std::ofstream trust(trust_file, std::ios::trunc);
  for (const auto& h : a.roster.hosts)
    for (const auto& [member, host] : placed)
      if (host == h.name) {
        trust << certificate_pem(host_key_path(a.roster, h));
        break;
      }
  trust.close();
  cfg.load<caf::io::middleman>();
  cfg.load<caf::openssl::manager>();
  cfg.openssl_certificate = me.certificate;
  cfg.openssl_key = me.key;
  cfg.openssl_cafile = trust_file;
}

OpenedHosts open_hosts(caf::actor_system& sys, const Admission& a, const std::string& formation_id, const caf::actor& route,
                       std::chrono::milliseconds bound) {
  OpenedHosts opened;
  std::map<std::string, std::vector<HostLaunch>> launches;
  for (const auto& m : a.members)
    if (!m.declared.host.empty())
      launches[m.declared.host].push_back(
        HostLaunch{m.declared.name, m.declared.capsule, m.declared.version, m.capsule.stored.sha256});
  for (const auto& h : a.roster.hosts) {
    if (!launches.count(h.name)) continue;
    if (const std::string why = tcp_reaches(h, bound); !why.empty())
      throw Failure("E-HST-002", "host '" + h.name + "' (" + h.address + ") cannot be reached: " + why,
                    "start mur host --listen " + h.address + " on that machine, or correct hosts." + h.name +
                      ".address in roster.yaml");
    auto door = caf::openssl::remote_actor<host_door>(sys, h.host, static_cast<std::uint16_t>(h.port));
    if (!door)
      throw Failure("E-HST-003", "host '" + h.name + "' (" + h.address + ") and this launcher did not agree on TLS (" +
                                   sys.render(door.error()) + ")",
                    "check the keys with mur doctor, which names what each side must hold");
    caf::scoped_actor self{sys};
    std::string why;
    self->request(*door, bound, HostOpen{formation_id, launches[h.name], route})
      .receive([&](const caf::actor& formation) {
                 opened.formations.emplace(h.name, formation);
                 opened.agents.emplace(h.name, caf::actor_cast<caf::actor>(*door));
                 // Beaten from now on: the next host's opening may take seconds.
                 self->send(caf::actor_cast<host_route_actor>(route), caf::put_atom_v, h.name, formation);
               },
               [&](const caf::error& e) { why = spawn_refusal_reason(e).value_or(sys.render(e)); });
    if (!why.empty())
      throw Failure("E-HST-011", "host '" + h.name + "' (" + h.address + ") did not open the formation: " + why,
                    "check the host with mur doctor; mur host's own output there says more");
  }
  return opened;
}

std::string launcher_certificate() { return launcher_identity().certificate; }

std::vector<std::string> bring_back_traces(caf::actor_system& sys, const Admission& a, const OpenedHosts& hosts,
                                           const std::string& formation_id, std::chrono::milliseconds bound) {
  std::vector<std::string> notes;
  const auto placed = member_hosts(a);
  caf::scoped_actor self{sys};
  for (const auto& [host, agent] : hosts.agents) {
    self->request(caf::actor_cast<host_door>(agent), bound, HostTraces{formation_id})
      .receive(
        [&](const std::vector<HostTrace>& traces) {
          for (const auto& t : traces) {
            const auto where = placed.find(t.member);
            if (where == placed.end() || where->second != host || !ids::is_valid(t.session_id, ids::session)) continue;
            const std::string dir = formation_dir(formation_id) + "/" + t.member + "/.murmur/" + t.session_id;
            const std::string file = dir + "/trace.jsonl";
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            // A trace only grows: the same size is the same file. A new one replaces the old
            // whole (renamed into place), so a reader following it never sees it shrink.
            const auto had = std::filesystem::file_size(file, ec);
            if (!ec && had == t.text.size()) continue;
            std::ofstream(file + ".part", std::ios::binary | std::ios::trunc) << t.text;
            std::filesystem::rename(file + ".part", file, ec);
          }
        },
        [&](const caf::error& e) {
          notes.push_back("the traces of the members on host '" + host + "' stay there (" + sys.render(e) + ")");
        });
  }
  return notes;
}

DoorCertificates issue_door_certificates(const Admission& a) {
  DoorCertificates out;
  try {
    PemPair authority = mint_certificate(MintRequest{"mur formation door authority", 10L * 365, nullptr, true, ""});
    out.authority = authority.certificate;
    for (const auto& m : a.members) {
      if (m.declared.host.empty()) continue;
      for (const auto& h : a.roster.hosts)
        if (h.name == m.declared.host) {
          PemPair door = mint_certificate(MintRequest{"mur door " + m.declared.name, 10L * 365, &authority, false, h.host});
          out.members.emplace(m.declared.name, DoorTls{authority.certificate, std::move(door.certificate), std::move(door.key)});
        }
    }
    std::fill(authority.key.begin(), authority.key.end(), '\0');
  } catch (const std::runtime_error& e) {
    throw Failure("E-HST-006", std::string("the formation's door authority could not be made: ") + e.what(),
                  "check that OpenSSL works on this machine (mur doctor)");
  }
  return out;
}

HostReached reach_host(const RosterHost& host, const std::string& key_file, const std::vector<HostCapsule>& capsules,
                       std::chrono::milliseconds bound) {
  HostReached out;
  HostLink link(host, key_file, bound);
  if (!link.refusal)
    if (auto r = link.ask<HostReport>(HostCheck{capsules}, bound)) out.report = std::move(*r);
  out.refusal = link.refusal;
  return out;
}

HostInstall install_on_host(const RosterHost& host, const std::string& key_file, const std::string& dir, bool force,
                            std::chrono::milliseconds bound) {
  HostInstall out;
  const std::vector<CapsuleFile> files = capsule_folder_files(dir); // refused here, as mur install would
  HostLink link(host, key_file, bound);
  if (link.refusal) {
    out.refusal = link.refusal;
    return out;
  }
  const std::string id = ids::mint("upl_");
  // Sends one piece; false once the host refused (`out.refusal` then says why).
  auto send = [&](const HostUpload& piece) {
    auto r = link.ask<HostInstalled>(piece, bound);
    if (!r) {
      out.refusal = link.refusal;
      return false;
    }
    out.installed = *r;
    if (!r->ok) out.refusal = Failure(r->code, r->message, r->fix);
    return r->ok;
  };
  std::vector<char> buf(host_upload_piece);
  for (const auto& f : files) {
    std::ifstream in(f.source, std::ios::binary);
    if (!in) throw Failure("E-INS-001", dir + ": " + f.rel + " cannot be read", "make every file in the capsule folder readable");
    std::uint64_t offset = 0;
    do {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      const auto got = static_cast<std::size_t>(in.gcount());
      if (!send(HostUpload{id, f.rel, offset, std::string(buf.data(), got), f.executable, false, false})) return out;
      offset += got;
    } while (in && offset < f.size);
  }
  send(HostUpload{id, "", 0, "", false, true, force});
  return out;
}

} // namespace mur
