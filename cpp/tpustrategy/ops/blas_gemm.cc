#include "tpustrategy/ops/blas_gemm.h"

#ifdef TPUSTRATEGY_HAVE_OPENBLAS
#include <cblas.h>
#include <dlfcn.h>

#include <limits>
#include <mutex>
#endif

namespace tpustrategy::detail {

#ifdef TPUSTRATEGY_HAVE_OPENBLAS
namespace {

using Sgemm = decltype(&cblas_sgemm);
using Dgemm = decltype(&cblas_dgemm);
using SetNumThreads = decltype(&openblas_set_num_threads);

// OpenBLAS, opened on first use (loading it costs more than the rest of `import tpustrategy`); all
// null when it cannot be opened, and matmul then runs on Eigen.
struct OpenBlas {
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
};

const OpenBlas& openblas() {
  static const OpenBlas blas = [] {
    OpenBlas b;
    void* lib = nullptr;
    for (const char* name : {TPUSTRATEGY_OPENBLAS_LIBRARY, "libopenblas.so.0"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (lib == nullptr) return b;
    auto set_threads = reinterpret_cast<SetNumThreads>(dlsym(lib, "openblas_set_num_threads"));
    b.sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<Dgemm>(dlsym(lib, "cblas_dgemm"));
    if (set_threads == nullptr || b.sgemm == nullptr || b.dgemm == nullptr) return OpenBlas{};
    // matmul splits rows over the worker pool itself; OpenBLAS threads on top would oversubscribe.
    set_threads(1);
    return b;
  }();
  return blas;
}

// cblas takes int dimensions: larger ones stay on Eigen.
bool fits_blasint(std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t kMax = std::numeric_limits<blasint>::max();
  return m <= kMax && n <= kMax && k <= kMax;
}

// Leading dimensions and row-block offset of op(A) for row-major storage.
struct GemmLayout {
  blasint lda, ldb;
  std::int64_t a_offset;
};

GemmLayout layout(std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb, std::int64_t r0) {
  return {static_cast<blasint>(ta ? m : k), static_cast<blasint>(tb ? k : n), ta ? r0 : r0 * k};
}

template <typename T, typename Fn>
bool call_gemm(Fn gemm, const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb,
               std::int64_t r0, std::int64_t rows) {
  if (gemm == nullptr || !fits_blasint(m, n, k)) return false;
  const GemmLayout l = layout(m, n, k, ta, tb, r0);
  gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<blasint>(rows),
       static_cast<blasint>(n), static_cast<blasint>(k), T(1), a + l.a_offset, l.lda, b, l.ldb, T(0), c + r0 * n,
       static_cast<blasint>(n));
  return true;
}

}  // namespace

bool have_blas_gemm() { return openblas().sgemm != nullptr; }

bool blas_gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k, bool ta,
               bool tb, std::int64_t r0, std::int64_t rows) {
  return call_gemm(openblas().sgemm, a, b, c, m, n, k, ta, tb, r0, rows);
}

bool blas_gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k, bool ta,
               bool tb, std::int64_t r0, std::int64_t rows) {
  return call_gemm(openblas().dgemm, a, b, c, m, n, k, ta, tb, r0, rows);
}

#else

bool have_blas_gemm() { return false; }
bool blas_gemm(const float*, const float*, float*, std::int64_t, std::int64_t, std::int64_t, bool, bool, std::int64_t,
               std::int64_t) {
  return false;
}
bool blas_gemm(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t, bool, bool,
               std::int64_t, std::int64_t) {
  return false;
}

#endif

}  // namespace tpustrategy::detail
