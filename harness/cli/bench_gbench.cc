// bench_gbench.cc — the C++ adapter behind bench.h: the only C++ in idbench.
#include <benchmark/benchmark.h>

#include "bench.h"

namespace {
benchmark::State &S(idb_bench_state *st) { return *reinterpret_cast<benchmark::State *>(st); }
}  // namespace

extern "C" void idb_bench_register(const idb_bench_def *def)
{
    idb_bench_def d = *def;
    auto *b = benchmark::RegisterBenchmark(def->name, [d](benchmark::State &state) {
        d.run(reinterpret_cast<idb_bench_state *>(&state), d.user);
        state.SetItemsProcessed(state.iterations());
    });
    b->UseRealTime();
    for (int t = 1; t <= d.max_threads; t = d.threads_pow2 ? t * 2 : t + 1) b->Threads(t);
}

extern "C" int idb_bench_keep_running_batch(idb_bench_state *st, int64_t n)
{
    return S(st).KeepRunningBatch(static_cast<benchmark::IterationCount>(n));
}

extern "C" int idb_bench_thread_index(const idb_bench_state *st)
{
    return reinterpret_cast<const benchmark::State *>(st)->thread_index();
}

extern "C" int idb_bench_threads(const idb_bench_state *st)
{
    return reinterpret_cast<const benchmark::State *>(st)->threads();
}

extern "C" void idb_bench_counter(idb_bench_state *st, const char *name, double value)
{
    S(st).counters[name] = benchmark::Counter(value);
}

extern "C" void idb_bench_skip_with_error(idb_bench_state *st, const char *msg)
{
    S(st).SkipWithError(msg);
}

extern "C" int idb_bench_run(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (argc > 1) return -1;
    size_t n = benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return static_cast<int>(n);
}
