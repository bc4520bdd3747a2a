// `webindex run` on a real, small file system (a tmpfs) that fills up: it must stop with one
// clear error and a non-zero exit code (no abort, no signal), and a restart once there is
// space again must resume to the batch table. Needs the right to mount a tmpfs (root, as in
// CI); skipped otherwise — tests/integration/storage_fault_test.cc covers the same in-process.
#include <gtest/gtest.h>

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch_model.h"
#include "cli_cluster.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DiskFullCliTest, FullDiskStopsCleanlyAndARestartWithSpaceResumes) {
  // Eight partitions: the ~105,000 uri deltas (~160 bytes each) of these events must fit in the
  // embedded broker's ~5 MiB per partition even when the uri stage reads none of them before
  // the page stage is done (with two, a lagging uri stage lost deltas to retention).
  CliCluster cluster(WEBINDEX_BINARY, "webindex-diskfull", 8);
  ASSERT_TRUE(cluster.ok()) << ReadAll(cluster.log());
  const std::string data = cluster.data_dir();
  std::filesystem::create_directories(data);
  if (::mount("tmpfs", data.c_str(), "tmpfs", 0, "size=2m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs at " << data << ": " << std::strerror(errno);
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{data};

  // About 10 MB of events with many distinct links: far more state than the tmpfs holds
  // (sanitizer builds, 5 times slower here, a fifth of them: still more than it holds).
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  constexpr int kEvents = 5000;
#else
  constexpr int kEvents = 1000;
#endif
  BatchModel model;
  std::vector<GeneratedEvent> events;
  for (int i = 0; i < kEvents; ++i) {
    std::string links;
    for (int l = 0; l < 20; ++l) {
      links += std::string(l ? "," : "") + "{\"url\": \"http://target" + std::to_string((i * 7 + l) % 9973) +
               ".com/page" + std::to_string(l) + "\", \"anchorText\": \"anchor text number " +
               std::to_string(i * 20 + l) + "\"}";
    }
    const std::string url = "http://source" + std::to_string(i % 1000) + ".org/p" + std::to_string(i);
    GeneratedEvent ev{url, "{\"url\": \"" + url + "\", \"title\": \"page " + std::to_string(i) +
                               "\", \"outboundLinks\": [" + links + "]}", i % 2};
    model.Apply(ev.value);
    events.push_back(std::move(ev));
  }
  ASSERT_TRUE(cluster.Produce(events));

  const size_t before = cluster.LogSize();
  const int code = cluster.StartRun(/*exit_when_idle=*/true)->Wait();
  EXPECT_EQ(code, 1) << "expected a clean failure (exit 1), not success or a signal (128+n)";
  const std::string log = ReadAll(cluster.log()).substr(before);
  EXPECT_NE(log.find("no space left on the disk of " + data), std::string::npos) << log;
  EXPECT_NE(log.find("free at least"), std::string::npos) << log;
  EXPECT_NE(log.find("warning only"), std::string::npos) << "no low-space warning at start:\n" << log;

  ASSERT_EQ(::mount("tmpfs", data.c_str(), "tmpfs", MS_REMOUNT, "size=256m"), 0) << std::strerror(errno);
  EXPECT_EQ(cluster.StartRun(/*exit_when_idle=*/true)->Wait(), 0) << ReadAll(cluster.log()).substr(before);
  EXPECT_EQ(cluster.Dump(), model.TableLines());
  EXPECT_EQ(cluster.Run({"verify", "--data-dir", data}), 0);
}

}  // namespace
}  // namespace webindex::testing
