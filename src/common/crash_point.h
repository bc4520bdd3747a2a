// Crash points: named instants where the crash tests kill the process. CrashPoint(name) sends
// the process SIGKILL — no destructors, no flushes, as `kill -9` from outside would — when the
// environment variable WEBINDEX_CRASH_AT names that point; otherwise it does nothing. They
// mark the instants between two durable steps that a random kill would rarely hit.
#pragma once

#include <string_view>

namespace webindex {

void CrashPoint(std::string_view name);

//! Pause points: PausePoint(name) stops the whole process with SIGSTOP, as a long stall would
//! (threads, heartbeats and all), the first time it is reached while WEBINDEX_PAUSE_AT names it;
//! SIGCONT resumes it. With WEBINDEX_PAUSE_IF naming a file, only once that file exists. For the
//! tests of a member that wakes up after its group moved on.
void PausePoint(std::string_view name);

}  // namespace webindex
