// The store's errors in the user's words, whichever of RocksDB's paths meets the failure first.
#include "state/store_errors.h"

#include <gtest/gtest.h>

namespace webindex::state {
namespace {

// A full disk met by a background flush before any commit: the error kept (which stops the
// processor and fails /healthz) must read as the one a commit meets, not as RocksDB's text.
TEST(BackgroundErrorsTest, AFullDiskMetByAFlushSaysWhatACommitWouldSay) {
  BackgroundErrors errors("/data/gen-1", 64u << 20);
  rocksdb::Status no_space(rocksdb::Status::NoSpace("While appending to file: 000012.sst"),
                           rocksdb::Status::Severity::kHardError);
  errors.OnBackgroundError(rocksdb::BackgroundErrorReason::kFlush, &no_space);
  const Status st = errors.First();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("no space left on the disk of /data/gen-1"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("free at least 64.0 MiB"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("a memtable flush"), std::string::npos) << st.ToString();
}

TEST(BackgroundErrorsTest, DamageSaysHowToCheckRestoreOrRebuildAndRecoveryClearsIt) {
  BackgroundErrors errors("/data/gen-1", 0);
  rocksdb::Status soft(rocksdb::Status::IOError("retried"), rocksdb::Status::Severity::kSoftError);
  errors.OnBackgroundError(rocksdb::BackgroundErrorReason::kCompaction, &soft);
  EXPECT_TRUE(errors.First().ok()) << "a soft error, which RocksDB retries, stops nothing";
  rocksdb::Status damage(rocksdb::Status::Corruption("block checksum mismatch"),
                         rocksdb::Status::Severity::kUnrecoverableError);
  errors.OnBackgroundError(rocksdb::BackgroundErrorReason::kCompaction, &damage);
  const Status st = errors.First();
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("a compaction of the database in /data/gen-1 failed"), std::string::npos);
  EXPECT_NE(st.message().find("webindex verify"), std::string::npos) << st.ToString();
  rocksdb::BackgroundErrorRecoveryInfo recovered;
  recovered.old_bg_error = damage;
  errors.OnErrorRecoveryEnd(recovered);
  EXPECT_TRUE(errors.First().ok());
}

}  // namespace
}  // namespace webindex::state
