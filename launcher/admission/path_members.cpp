#include "launcher/admission/path_members.hpp"

#include "capsule/manifest.hpp"
#include "launcher/admission/template_check.hpp"
#include "messages/vocabulary/failure.hpp"

namespace mur {

std::string path_member_folder(const Roster& roster, const RosterMember& m) {
  if (!m.path.empty() && m.path.front() == '/') return m.path;
  return (roster.project_dir.empty() ? std::string(".") : roster.project_dir) + "/" + m.path;
}

PathInstall install_path_member(const Roster& roster, const RosterMember& m, const StoreRoots& stores) {
  const std::string folder = path_member_folder(roster, m);
  try {
    check_templates(load_manifest_dir(folder), folder + "/murmur.yaml"); // before anything is stored, as mur install
    return PathInstall{m.name, m.path, install_capsule(folder, stores.project, StoreScope::project, true)};
  } catch (const Failure& f) {
    throw Failure(f.code(), roster.file + ": member '" + m.name + "' (path " + m.path + "): " + f.message(), f.fix());
  }
}

std::string install_line(const PathInstall& p) {
  const auto kind = p.outcome.kind;
  if (kind == InstallOutcome::Kind::unchanged) return {};
  const auto& c = p.outcome.capsule;
  return "installed " + c.name + "@" + c.version + " from " + p.path + " for member " + p.member + " (" +
         (kind == InstallOutcome::Kind::replaced ? "changed" : "new") + ")";
}

} // namespace mur
