#include "common/status.h"

namespace webindex {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: name = "Invalid argument"; break;
    case Code::kNotFound: name = "Not found"; break;
    case Code::kIoError: name = "IO error"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kUnavailable: name = "Unavailable"; break;
    case Code::kAborted: name = "Aborted"; break;
    case Code::kInternal: name = "Internal error"; break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace webindex
