#include "state/bulk_load.h"

#include <utility>

namespace webindex::state {

BulkLoad::BulkLoad(Store& store, Family family, uint64_t file_bytes)
    : store_(store), family_(family), max_file_bytes_(file_bytes) {}

Status BulkLoad::Put(std::string_view key, std::string_view value) {
  if (taken_) return Status::InvalidArgument("bulk load: a row after its files were taken");
  if (!current_) {
    // SortedFile checks the order within a file; the first key of a file is checked here.
    if (!files_.empty() && key <= last_of_closed_) {
      return Status::InvalidArgument("bulk load: a key that is not greater than the one before it");
    }
    ASSIGN_OR_RETURN(current_, store_.NewSortedFile(family_));
  }
  RETURN_IF_ERROR(current_->Put(key, value));
  ++rows_;
  current_bytes_ += key.size() + value.size();
  if (current_bytes_ >= max_file_bytes_) {
    last_of_closed_.assign(key);
    current_bytes_ = 0;
    files_.push_back(std::move(current_));
  }
  return Status::Ok();
}

std::vector<std::unique_ptr<SortedFile>> BulkLoad::TakeFiles() {
  taken_ = true;
  if (current_) files_.push_back(std::move(current_));
  return std::move(files_);
}

Status BulkLoad::Ingest() { return store_.Ingest(TakeFiles()); }

}  // namespace webindex::state
