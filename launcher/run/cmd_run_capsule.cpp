#include "launcher/run/cmd_run_capsule.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"
#include "launcher/admission/template_check.hpp"
#include "messages/vocabulary/failure.hpp"

#include <unistd.h>

namespace mur {

int cmd_run_capsule(const RunCapsuleOptions& o) {
  if (!o.manifest_dir.empty()) { // an uninstalled folder: its templates are checked here, as install would
    Manifest m = load_manifest_dir(o.manifest_dir);
    check_templates(m, o.manifest_dir + "/murmur.yaml");
    return run_capsule(m, o);
  }
  if (o.capsule.empty() || o.capsule_version.empty())
    throw Failure("E-RUN-008", "mur run --capsule needs both the name and --capsule-version",
                  "pass --capsule NAME --capsule-version V (see mur list)");
  std::string root = o.store_root;
  if (root.empty()) {
    char buf[4096];
    if (::getcwd(buf, sizeof buf) == nullptr)
      throw Failure("E-RUN-007", "the current directory cannot be read", "cd into an existing directory");
    root = buf;
  }
  auto r = resolve_capsule(StoreRoots::for_project(root), o.capsule, o.capsule_version);
  if (auto* miss = std::get_if<ResolveMiss>(&r))
    throw Failure("E-RUN-008", o.capsule + "@" + o.capsule_version + ": " + miss->why, miss->fix);
  const auto& found = std::get<ResolvedCapsule>(r);
  if (!o.capsule_sha256.empty() && o.capsule_sha256 != found.stored.sha256)
    throw Failure("E-RUN-047",
                  "the installed " + o.capsule + "@" + o.capsule_version +
                    " is not the capsule the roster pinned (its sha256 differs)",
                  "reinstall the capsule the roster names, then run mur doctor");
  return run_capsule(found.manifest, o);
}

} // namespace mur
