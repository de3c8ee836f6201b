// tls_front.cpp — see tls_front.hpp.
#include "http/tls_front.hpp"

#include "messages/vocabulary/failure.hpp"

#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/ssl.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>

#include <array>
#include <atomic>
#include <thread>

namespace mur {

using tcp = asio::ip::tcp;

struct TlsFront::Impl : std::enable_shared_from_this<TlsFront::Impl> {
  TlsFrontSetup setup;
  asio::io_context io;
  asio::ssl::context tls{asio::ssl::context::tls_server};
  tcp::acceptor acceptor{io};
  tcp::endpoint door;
  std::atomic<std::size_t> open{0};
  std::thread thread;
  bool stopped = false;

  void accept();
};

namespace {

// One client: its TLS stream, the door's socket, a buffer each way.
struct Carry : std::enable_shared_from_this<Carry> {
  std::shared_ptr<TlsFront::Impl> front;
  asio::ssl::stream<tcp::socket> client;
  tcp::socket door;
  asio::steady_timer deadline;
  std::array<char, 16384> up{}, down{};
  bool closed = false;

  Carry(std::shared_ptr<TlsFront::Impl> f, tcp::socket s)
    : front(std::move(f)), client(std::move(s), front->tls), door(front->io), deadline(front->io) {}
  ~Carry() { --front->open; }

  void close() {
    if (closed) return;
    closed = true;
    asio::error_code ignored;
    deadline.cancel();
    client.lowest_layer().close(ignored);
    door.close(ignored);
  }

  void start() {
    auto self = shared_from_this();
    deadline.expires_after(front->setup.handshake_timeout);
    deadline.async_wait([self](const asio::error_code& ec) {
      if (!ec) self->close(); // no handshake in time
    });
    client.async_handshake(asio::ssl::stream_base::server, [self](const asio::error_code& ec) {
      if (ec) return self->close();
      self->deadline.cancel();
      self->door.async_connect(self->front->door, [self](const asio::error_code& ec) {
        if (ec) return self->close();
        carry(self, self->client, self->door, self->up);
        carry(self, self->door, self->client, self->down);
      });
    });
  }

  // One direction: what `from` sends is written to `to`, a read at a time, until either ends.
  template <class From, class To>
  static void carry(std::shared_ptr<Carry> self, From& from, To& to, std::array<char, 16384>& buf) {
    from.async_read_some(asio::buffer(buf), [self, &from, &to, &buf](const asio::error_code& ec, std::size_t n) {
      if (ec) return self->close();
      asio::async_write(to, asio::buffer(buf.data(), n), [self, &from, &to, &buf](const asio::error_code& ec, std::size_t) {
        if (ec) return self->close();
        carry(self, from, to, buf);
      });
    });
  }
};

} // namespace

void TlsFront::Impl::accept() {
  auto self = shared_from_this();
  acceptor.async_accept([self](const asio::error_code& ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
    if (!ec) {
      if (self->open.load() >= self->setup.max_connections) {
        asio::error_code ignored;
        s.close(ignored);
      } else {
        ++self->open;
        std::make_shared<Carry>(self, std::move(s))->start();
      }
    }
    self->accept();
  });
}

TlsFront::TlsFront(TlsFrontSetup setup) : impl_(std::make_shared<Impl>()) {
  impl_->setup = std::move(setup);
  auto& tls = impl_->tls;
  try {
    tls.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                    asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    tls.use_certificate_chain(asio::buffer(impl_->setup.certificate));
    tls.use_private_key(asio::buffer(impl_->setup.key), asio::ssl::context::pem);
  } catch (const std::exception& e) {
    throw Failure("E-RUN-047", std::string("the door's TLS certificate or key does not read: ") + e.what(),
                  "report this bug: the launcher issued them for this formation");
  }
  try {
    tcp::resolver resolver(impl_->io);
    const auto found = resolver.resolve(impl_->setup.address, "0");
    const tcp::endpoint at = *found.begin();
    impl_->acceptor.open(at.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(at);
    impl_->acceptor.listen();
  } catch (const std::exception& e) {
    throw Failure("E-RUN-047", "the door could not listen on " + impl_->setup.address + ": " + e.what(),
                  "start mur host --listen with an address of this machine");
  }
}

TlsFront::~TlsFront() { stop(); }

std::uint16_t TlsFront::port() const { return impl_->acceptor.local_endpoint().port(); }

void TlsFront::serve(std::uint16_t door_port) {
  impl_->door = tcp::endpoint(asio::ip::make_address("127.0.0.1"), door_port);
  impl_->accept();
  impl_->thread = std::thread([impl = impl_] { impl->io.run(); });
}

void TlsFront::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->io.stop(); // no handler runs after this: connections go with the process
  if (impl_->thread.joinable()) impl_->thread.join();
  asio::error_code ignored;
  impl_->acceptor.close(ignored); // the io thread is gone: nothing else touches it

}

} // namespace mur
