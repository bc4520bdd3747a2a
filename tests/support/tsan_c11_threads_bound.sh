#!/bin/sh
# Checks that tsan_c11_threads.cc is in use in a ThreadSanitizer build: the dynamic linker binds
# librdkafka's reference to thrd_create to the definition in EXECUTABLE, not to glibc's.
# Usage: tsan_c11_threads_bound.sh EXECUTABLE ARGS...   (ARGS: a command that exits at once)
exe=$1
shift
out=$(LD_BIND_NOW=1 LD_DEBUG=bindings "$exe" "$@" 2>&1 >/dev/null)
line=$(printf '%s\n' "$out" | grep "binding file .*librdkafka\.so.* normal symbol .thrd_create'")
printf '%s\n' "$line"
case $line in
  *" to $exe "*) exit 0 ;;
  *) echo "thrd_create from librdkafka is not bound to $exe" >&2; exit 1 ;;
esac
