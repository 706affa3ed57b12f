# acctd-bench (docs/performance.md): acctd's ingestion rate, rules fetch
# latency and memory. Included from tools/perf/CMakeLists.txt.
include_guard(GLOBAL)
add_executable(acctd-bench ${CMAKE_CURRENT_LIST_DIR}/acctd-bench.c)
target_link_libraries(acctd-bench PRIVATE acct_proto m)
