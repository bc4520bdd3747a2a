#include "state/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <random>
#include <optional>

namespace webindex::state {
namespace fs = std::filesystem;

namespace {
constexpr char kGenerationFile[] = "GENERATION";
constexpr char kGenerationPrefix[] = "gen-";
constexpr char kInstanceFile[] = "INSTANCE";

Status Errno(const std::string& what) { return Status::IoError(what + ": " + std::strerror(errno)); }

Status FsyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open " + path);
  const int rc = ::fsync(fd);
  ::close(fd);
  return rc == 0 ? Status::Ok() : Errno("cannot fsync " + path);
}

bool ParseGeneration(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 12) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return v > 0;
}
}  // namespace

Result<DataDir> DataDir::Open(const std::string& path, bool create) {
  DataDir dir(path);
  std::error_code ec;
  const fs::path root(path);
  if (fs::exists(root / "CURRENT", ec)) {
    return Status::InvalidArgument(
        "data dir " + path + " holds a single database without a GENERATION file; move its files into " + path +
        "/gen-1 and write 1 into " + path + "/GENERATION");
  }
  const bool exists = fs::exists(root, ec);
  std::vector<uint64_t> gens;
  if (exists) {
    ASSIGN_OR_RETURN(gens, dir.List());
  }
  auto listed = [&] {
    std::string out;
    for (uint64_t g : gens) out += (out.empty() ? "" : ", ") + dir.PathOf(g);
    return out.empty() ? std::string("none") : out;
  };
  if (fs::exists(root / kGenerationFile, ec)) {
    ASSIGN_OR_RETURN(uint64_t current, dir.Current());
    if (std::find(gens.begin(), gens.end(), current) == gens.end()) {
      return Status::Corruption(path + "/GENERATION names generation " + std::to_string(current) + ", but " +
                                dir.PathOf(current) + " is missing (generations present: " + listed() +
                                "). Refusing to guess: restore it, or write the number of the generation to use "
                                "into GENERATION, or rebuild from the input topic with `webindex run --reset`");
    }
    return dir;
  }
  // No GENERATION file: only an unfinished creation (an empty gen-1) may continue.
  const bool unfinished = gens.size() == 1 && gens[0] == 1 && fs::is_empty(dir.PathOf(1), ec);
  if (!gens.empty() && !unfinished) {
    return Status::Corruption(path + " holds generations (" + listed() +
                              ") but no GENERATION file naming the current one. Refusing to guess: write the "
                              "number of the generation to use into " + path +
                              "/GENERATION, or rebuild from the input topic with `webindex run --reset`");
  }
  if (exists && !unfinished) {
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (name != "run.lock" && name != "replay.lock" && name != std::string(kGenerationFile) + ".tmp" &&
          !name.starts_with(kInstanceFile)) {
        return Status::InvalidArgument(path + " is not empty and holds no webindex data (found " + name +
                                       "); give a new or empty directory as --data-dir");
      }
    }
  }
  if (!create) return Status::NotFound("no webindex data in " + path + " (no GENERATION file); check --data-dir");
  // gen-1 before GENERATION: a GENERATION file always names a generation that exists.
  fs::create_directories(dir.PathOf(1), ec);
  if (ec) return Status::IoError("cannot create data dir " + path + ": " + ec.message());
  RETURN_IF_ERROR(FsyncPath(path, O_RDONLY | O_DIRECTORY));
  // The id before any database, whichever generation a command makes first (InstanceId).
  RETURN_IF_ERROR(dir.InstanceId().status());
  RETURN_IF_ERROR(dir.SetCurrent(1));
  return dir;
}

Status DataDir::Reset(const std::string& path) {
  const fs::path root(path);
  std::error_code ec;
  if (!fs::exists(root, ec)) return Status::Ok();
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kGenerationPrefix) || name.starts_with(kGenerationFile)) doomed.push_back(entry.path());
  }
  if (ec) return Status::IoError("cannot list " + path + ": " + ec.message());
  // GENERATION first: a reset cut short leaves generations without it, which Open refuses.
  std::sort(doomed.begin(), doomed.end(), [](const fs::path& a, const fs::path& b) {
    return (a.filename() == kGenerationFile) > (b.filename() == kGenerationFile);
  });
  for (const auto& p : doomed) {
    fs::remove_all(p, ec);
    if (ec) return Status::IoError("cannot remove " + p.string() + ": " + ec.message());
  }
  return Status::Ok();
}

Result<std::string> DataDir::InstanceId() const {
  const std::string file = (fs::path(path_) / kInstanceFile).string();
  auto read = [&]() -> std::optional<std::string> {
    std::ifstream in(file);
    std::string id;
    if (in >> id && id.size() == 16 && id.find_first_not_of("0123456789abcdef") == std::string::npos) return id;
    return std::nullopt;
  };
  if (auto id = read()) return *id;
  std::error_code ec;
  if (fs::exists(file, ec)) return Status::Corruption(file + " does not hold a 16-digit hex id; remove it to make a new one");
  // Made before the first database: one missing beside a database was deleted. A new id would
  // make this data dir's own records on the topics look like another processor's.
  auto gens = List();
  if (!gens.ok()) return gens.status();
  for (uint64_t g : *gens) {
    if (!fs::exists(fs::path(PathOf(g)) / "CURRENT", ec)) continue;
    return Status::Corruption(
        file + " is missing, but " + PathOf(g) +
        " holds a database: the file names this data dir in every record it wrote to Kafka, and a new id would "
        "make those look like another processor's. Restore it (one line: the 16 hex digits of the `inst` field of "
        "this data dir's records on webindex.exports), or rebuild with `webindex run --reset`");
  }
  std::random_device rd;
  const uint64_t v = (uint64_t{rd()} << 32) | rd();
  char id[17];
  std::snprintf(id, sizeof(id), "%016llx", static_cast<unsigned long long>(v));
  // Written aside, then linked into place: of two processes creating it at once, one id wins.
  const std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << id << '\n';
    if (!out.flush()) return Errno("cannot write " + tmp);
  }
  RETURN_IF_ERROR(FsyncPath(tmp, O_RDONLY));
  const int linked = ::link(tmp.c_str(), file.c_str());
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked != 0 && link_errno != EEXIST) {
    errno = link_errno;
    return Errno("cannot create " + file);
  }
  RETURN_IF_ERROR(FsyncPath(path_, O_RDONLY | O_DIRECTORY));
  if (auto got = read()) return *got;
  return Status::Corruption(file + " cannot be read back");
}

Result<uint64_t> DataDir::Current() const {
  const std::string file = (fs::path(path_) / kGenerationFile).string();
  std::ifstream in(file);
  if (!in) return Status::IoError("cannot read " + file);
  std::string text;
  in >> text;
  uint64_t gen = 0;
  if (!ParseGeneration(text, &gen)) return Status::Corruption(file + " does not hold a generation number");
  return gen;
}

std::string DataDir::PathOf(uint64_t generation) const {
  return (fs::path(path_) / (kGenerationPrefix + std::to_string(generation))).string();
}

Result<std::vector<uint64_t>> DataDir::List() const {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path_, ec)) {
    const std::string name = entry.path().filename().string();
    uint64_t gen = 0;
    if (entry.is_directory() && name.starts_with(kGenerationPrefix) &&
        ParseGeneration(name.substr(sizeof(kGenerationPrefix) - 1), &gen)) {
      out.push_back(gen);
    }
  }
  if (ec) return Status::IoError("cannot list " + path_ + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Status DataDir::SetCurrent(uint64_t generation) {
  const std::string file = (fs::path(path_) / kGenerationFile).string();
  const std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << generation << '\n';
    out.flush();
    if (!out) return Status::IoError("cannot write " + tmp);
  }
  RETURN_IF_ERROR(FsyncPath(tmp, O_RDONLY));
  if (::rename(tmp.c_str(), file.c_str()) != 0) return Errno("cannot rename " + tmp + " to " + file);
  return FsyncPath(path_, O_RDONLY | O_DIRECTORY);
}

Status DataDir::Remove(uint64_t generation) {
  ASSIGN_OR_RETURN(uint64_t current, Current());
  if (generation == current) return Status::InvalidArgument("generation " + std::to_string(generation) + " is current");
  std::error_code ec;
  fs::remove_all(PathOf(generation), ec);
  if (ec) return Status::IoError("cannot remove " + PathOf(generation) + ": " + ec.message());
  return Status::Ok();
}

Result<int> DataDir::RemoveOlder() {
  ASSIGN_OR_RETURN(uint64_t current, Current());
  ASSIGN_OR_RETURN(auto all, List());
  int removed = 0;
  for (uint64_t gen : all) {
    if (gen >= current) continue;
    RETURN_IF_ERROR(Remove(gen));
    ++removed;
  }
  return removed;
}

Result<std::unique_ptr<FileLock>> FileLock::TryAcquire(const std::string& path, std::string_view role) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot open lock file " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return std::unique_ptr<FileLock>();
    errno = err;
    return Errno("cannot lock " + path);
  }
  if (!role.empty()) {
    const std::string holder = std::to_string(::getpid()) + " " + std::string(role) + "\n";
    // Best effort: the lock is the flock; the text only names its holder in messages.
    if (::ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t n = ::pwrite(fd, holder.data(), holder.size(), 0);
    }
  }
  return std::unique_ptr<FileLock>(new FileLock(fd));
}

std::string FileLock::Holder(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

FileLock::~FileLock() { ::close(fd_); }

Result<std::unique_ptr<Store>> OpenCurrent(const std::string& path, const StoreOptions& options) {
  ASSIGN_OR_RETURN(DataDir dir, DataDir::Open(path, /*create=*/!options.read_only));
  ASSIGN_OR_RETURN(uint64_t gen, dir.Current());
  return Store::Open(dir.PathOf(gen), options);
}

}  // namespace webindex::state
