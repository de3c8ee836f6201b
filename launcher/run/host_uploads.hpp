// host_uploads.hpp — a host agent's side of `mur install --host`: the capsule folders launchers
// send it, piece by piece, each installed into this machine's global store once whole.
//
// Invariant: a piece is written only beneath its upload's own fresh directory (a relative path
// of plain components: no "", ".", ".." or absolute path; a file never written twice; pieces of
// a file in order, at the offset it has reached), within install's own bounds (100 000 files,
// 1 GiB); at most four uploads at once. Any refusal drops its upload (its directory removed) and
// says E-HST-009 and why. The last piece installs what arrived exactly as `mur install -g` does
// from a folder (its E-MAN/E-INS refusals passed on) and removes the upload. What an earlier
// agent left behind is removed when the next one starts.
// Rule: `mur install --host NAME DIR` puts a capsule on a host (docs/hosts.md §Installing on a host).
#pragma once

#include "messages/wire/host_messages.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace mur {

class HostUploads {
public:
  HostUploads(std::string uploads_dir, std::string store);
  HostInstalled take(const HostUpload& piece);

private:
  struct Upload {
    std::string dir;
    std::uint64_t bytes = 0;
    std::size_t files = 0;
    std::string file;            // the file being written
    std::uint64_t file_size = 0; // what it holds so far
  };
  HostInstalled refuse(const std::string& id, const std::string& why);

  std::string uploads_dir_, store_;
  std::map<std::string, Upload> uploads_;
};

} // namespace mur
