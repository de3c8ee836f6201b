// host_reach.cpp — see host_reach.hpp.
#include "launcher/run/host_reach.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/murmur_home.hpp"
#include "launcher/run/host_agent.hpp"
#include "messages/wire/register_messages.hpp"
#include "messages/vocabulary/ids.hpp"
#include "os/tls_identity.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

Failure members_on_hosts_not_built(const std::vector<std::string>& remote) {
  std::string list;
  for (const auto& r : remote) list += (list.empty() ? "" : ", ") + r;
  return Failure("E-HST-005",
                 "starting members on another host is not built yet (" + list +
                   "): mur reaches and checks each host, but runs every member on this machine",
                 "remove host: from those members to run them here (docs/hosts.md says what is built)");
}

std::vector<std::string> members_on_hosts(const Admission& a) {
  std::vector<std::string> remote;
  for (const auto& m : a.members)
    if (!m.declared.host.empty()) remote.push_back(m.declared.name + " on " + m.declared.host);
  return remote;
}

std::string launcher_certificate() { return launcher_identity().certificate; }

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
