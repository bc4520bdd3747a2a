// std::string's member functions, compiled with ThreadSanitizer into the executables of the
// ThreadSanitizer build only (WEBINDEX_SANITIZE_THREAD, preset "tsan"), next to
// tsan_c11_threads.cc.
//
// Why it exists: Debian's RocksDB and spdlog are not built with TSan and call std::string's
// members (append, resize, _M_replace_aux, ...) in libstdc++.so. Those run uninstrumented, and
// their memcpy/memset reach TSan with libstdc++ as the only caller it knows, so a race between
// two of RocksDB's own threads (e.g. successive write-group leaders reusing RocksDB's merged
// WriteBatch, handed over with atomics TSan does not see) is reported without any RocksDB frame
// and tests/tsan.supp cannot tell it from a race in webindex. With every member defined here,
// the executable exports them and the dynamic linker binds those libraries' calls to these
// instrumented copies (as it does for libstdc++'s own versioned symbols, which an unversioned
// definition in the executable satisfies), so the report carries the calling library's frame
// (librocksdb.so, libspdlog.so), which tests/tsan.supp matches.
//
// Same source, same layout: these are the member functions libstdc++ itself instantiates, built
// from the same headers.

#include <string>

template class std::__cxx11::basic_string<char>;
