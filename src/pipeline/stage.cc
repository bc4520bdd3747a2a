#include "pipeline/stage.h"

namespace webindex::pipeline {

void BatchContext::DeadLetter(const InRecord& in, const std::string& dead_letter_topic, std::string_view reason) {
  OutRecord r;
  r.topic = dead_letter_topic;
  r.partition = -1;  // dead letters are not deduplicated downstream: any partition will do
  r.key.assign(in.key);
  r.value.assign(in.value);
  r.headers = {{"reason", std::string(reason)},
               {"source.topic", std::string(in.topic)},
               {"source.partition", std::to_string(in.partition)},
               {"source.offset", std::to_string(in.offset)},
               {"generation", std::to_string(generation_)}};
  Emit(std::move(r));
}

}  // namespace webindex::pipeline
