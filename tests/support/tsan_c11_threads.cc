// C11 <threads.h> on top of pthreads, linked only into ThreadSanitizer builds
// (WEBINDEX_SANITIZE_THREAD, preset "tsan"): into `webindex`, `unit_tests` and
// `integration_tests`.
//
// Why it exists: Debian 12's librdkafka (2.0.2) starts its threads with C11 thrd_create and
// locks with mtx_*, cnd_* and call_once. glibc 2.36 implements these by calling its internal
// pthread functions directly, not through the PLT, so the ThreadSanitizer runtimes of GCC 12
// and clang 14, which intercept pthread_create, pthread_mutex_lock and so on, never see those
// threads nor those locks: TSan crashes in its allocator on the first allocation of a thread it
// does not know, and would report false races on data guarded by librdkafka's mutexes.
//
// The executable defines these symbols, so the dynamic linker binds librdkafka's references
// (thrd_create@GLIBC_2.34, ...) to the definitions here rather than to glibc's: an unversioned
// definition in the executable satisfies a versioned reference, and GNU ld puts a symbol
// defined in the executable into its dynamic symbol table when a shared library on the link
// line references it (check with `nm -D --defined-only build-tsan/webindex | grep thrd_`).
// Each function forwards to its pthread equivalent, which TSan intercepts. glibc's mtx_t,
// cnd_t and once_flag have the layout of pthread_mutex_t, pthread_cond_t and pthread_once_t
// (glibc's own implementation casts them the same way), and the return codes are mapped as
// glibc maps them. tss_* is not covered: librdkafka does not use it.

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

static_assert(sizeof(thrd_t) == sizeof(pthread_t));
static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) && alignof(mtx_t) == alignof(pthread_mutex_t));
static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t) && alignof(cnd_t) == alignof(pthread_cond_t));
static_assert(sizeof(once_flag) == sizeof(pthread_once_t));

namespace {

// glibc's thrd_err_map.
int MapError(int err) {
  switch (err) {
    case 0:
      return thrd_success;
    case ENOMEM:
      return thrd_nomem;
    case ETIMEDOUT:
      return thrd_timedout;
    case EBUSY:
      return thrd_busy;
    default:
      return thrd_error;
  }
}

pthread_mutex_t* AsPthread(mtx_t* m) { return reinterpret_cast<pthread_mutex_t*>(m); }
pthread_cond_t* AsPthread(cnd_t* c) { return reinterpret_cast<pthread_cond_t*>(c); }

// A C11 start routine returns int, a pthread one void*: the thread runs this trampoline.
struct Start {
  thrd_start_t func;
  void* arg;
};

void* RunStart(void* p) {
  Start start = *static_cast<Start*>(p);
  free(p);
  // As glibc's start_thread for C11 threads; thrd_join converts back.
  return reinterpret_cast<void*>(static_cast<intptr_t>(start.func(start.arg)));
}

}  // namespace

extern "C" {

int thrd_create(thrd_t* thr, thrd_start_t func, void* arg) {
  auto* start = static_cast<Start*>(malloc(sizeof(Start)));
  if (start == nullptr) return thrd_nomem;
  start->func = func;
  start->arg = arg;
  int err = pthread_create(thr, nullptr, RunStart, start);
  if (err != 0) {
    free(start);
    return err == EAGAIN ? thrd_nomem : MapError(err);
  }
  return thrd_success;
}

int thrd_join(thrd_t thr, int* res) {
  void* result = nullptr;
  int err = pthread_join(thr, &result);
  if (err == 0 && res != nullptr) *res = static_cast<int>(reinterpret_cast<intptr_t>(result));
  return err == 0 ? thrd_success : thrd_error;
}

int thrd_detach(thrd_t thr) { return pthread_detach(thr) == 0 ? thrd_success : thrd_error; }

thrd_t thrd_current(void) { return pthread_self(); }

void thrd_exit(int res) { pthread_exit(reinterpret_cast<void*>(static_cast<intptr_t>(res))); }

int mtx_init(mtx_t* mutex, int type) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  // As glibc: mtx_plain and mtx_timed are both a normal mutex.
  pthread_mutexattr_settype(&attr, (type & mtx_recursive) ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
  int err = pthread_mutex_init(AsPthread(mutex), &attr);
  pthread_mutexattr_destroy(&attr);
  return MapError(err);
}

int mtx_lock(mtx_t* mutex) { return MapError(pthread_mutex_lock(AsPthread(mutex))); }

int mtx_trylock(mtx_t* mutex) { return MapError(pthread_mutex_trylock(AsPthread(mutex))); }

int mtx_timedlock(mtx_t* __restrict mutex, const struct timespec* __restrict time_point) {
  return MapError(pthread_mutex_timedlock(AsPthread(mutex), time_point));
}

int mtx_unlock(mtx_t* mutex) { return MapError(pthread_mutex_unlock(AsPthread(mutex))); }

void mtx_destroy(mtx_t* mutex) { pthread_mutex_destroy(AsPthread(mutex)); }

int cnd_init(cnd_t* cond) { return MapError(pthread_cond_init(AsPthread(cond), nullptr)); }

int cnd_signal(cnd_t* cond) { return MapError(pthread_cond_signal(AsPthread(cond))); }

int cnd_broadcast(cnd_t* cond) { return MapError(pthread_cond_broadcast(AsPthread(cond))); }

int cnd_wait(cnd_t* cond, mtx_t* mutex) { return MapError(pthread_cond_wait(AsPthread(cond), AsPthread(mutex))); }

int cnd_timedwait(cnd_t* __restrict cond, mtx_t* __restrict mutex, const struct timespec* __restrict time_point) {
  return MapError(pthread_cond_timedwait(AsPthread(cond), AsPthread(mutex), time_point));
}

void cnd_destroy(cnd_t* cond) { pthread_cond_destroy(AsPthread(cond)); }

void call_once(once_flag* flag, void (*func)(void)) {
  pthread_once(reinterpret_cast<pthread_once_t*>(flag), func);
}

}  // extern "C"
