#include "kafka/common.h"

namespace webindex::kafka {

bool IsRecordRejected(const Status& status) { return status.code() == Status::Code::kInvalidArgument; }

size_t RecordBytes(const OutRecord& record) {
  size_t n = record.key.size() + record.value.size();
  for (const auto& [name, value] : record.headers) n += name.size() + value.size();
  return n;
}

size_t RecordLimits::BudgetOf(const std::string& topic) const {
  auto it = budget.find(topic);
  return it != budget.end() ? it->second : static_cast<size_t>(kDefaultProducerMaxMessageBytes - kRecordFramingBytes);
}

}  // namespace webindex::kafka
