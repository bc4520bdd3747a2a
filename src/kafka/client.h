// The Kafka module: the only code that includes librdkafka. Producer, Consumer, Admin and
// the embedded broker (librdkafka's mock cluster). Raw handles stop here.
#pragma once

#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/embedded_broker.h"
#include "kafka/producer.h"
