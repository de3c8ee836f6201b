// host_reach.cpp — see host_reach.hpp.
#include "launcher/run/host_reach.hpp"

#include "capsule/murmur_home.hpp"
#include "launcher/run/host_agent.hpp"
#include "messages/wire/register_messages.hpp"
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
  const TlsIdentity me = launcher_identity();
  if (const std::string why = tcp_reaches(host, bound); !why.empty()) {
    out.refusal = Failure("E-HST-002", "host '" + host.name + "' (" + host.address + ") cannot be reached: " + why,
                          "start mur host --listen " + host.address + " on that machine, or correct hosts." + host.name +
                            ".address in roster.yaml");
    return out;
  }
  caf::actor_system_config cfg;
  speak_tls(cfg, me.certificate, me.key, key_file);
  caf::actor_system sys{cfg};
  auto door = caf::openssl::remote_actor<host_door>(sys, host.host, static_cast<std::uint16_t>(host.port));
  if (!door) {
    out.refusal = Failure("E-HST-003",
                          "host '" + host.name + "' (" + host.address + ") and this launcher did not agree on TLS (" +
                            sys.render(door.error()) + "): it does not trust this launcher's certificate, or it "
                            "presented another than " + key_file,
                          "add this launcher's certificate (" + me.certificate + ") to the host's --trust file, and "
                            "copy the host's (mur host --certificate, run there) to " + key_file);
    return out;
  }
  caf::scoped_actor self{sys};
  self->request(*door, bound, HostCheck{capsules})
    .receive([&](const HostReport& r) { out.report = r; },
             [&](const caf::error& e) {
               out.refusal = Failure("E-HST-002", "host '" + host.name + "' (" + host.address + ") did not answer: " +
                                                    sys.render(e),
                                     "check that mur host runs there and is not overloaded, then try again");
             });
  return out;
}

} // namespace mur
