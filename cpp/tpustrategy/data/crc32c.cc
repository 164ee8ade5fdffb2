// CRC32C (Castagnoli): SSE4.2 instructions when available, else slicing-by-8 tables.
#include <array>
#include <cstring>

#include "tpustrategy/data/tfrecord.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <nmmintrin.h>
#define TPUSTRATEGY_CRC32C_X86 1
#endif

namespace tpustrategy::data {

namespace {

constexpr std::uint32_t kCastagnoliReflected = 0x82F63B78u;
constexpr std::uint32_t kMaskDelta = 0xa282ead8u;

// tables[k][b]: the CRC of byte b followed by k zero bytes; slicing-by-8 folds 8 bytes per step.
constexpr std::array<std::array<std::uint32_t, 256>, 8> make_tables() {
  std::array<std::array<std::uint32_t, 256>, 8> tables{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kCastagnoliReflected : 0u);
    tables[0][b] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      const std::uint32_t prev = tables[k - 1][b];
      tables[k][b] = (prev >> 8) ^ tables[0][prev & 0xffu];
    }
  }
  return tables;
}

constexpr auto kTables = make_tables();

std::uint32_t load_le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

#ifdef TPUSTRATEGY_CRC32C_X86
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::string_view data, std::uint32_t crc) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  std::uint64_t state = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);  // x86 is little endian, as the CRC expects
    state = _mm_crc32_u64(state, word);
  }
  auto state32 = static_cast<std::uint32_t>(state);
  for (; n > 0; --n, ++p) state32 = _mm_crc32_u8(state32, *p);
  return ~state32;
}

bool detect_sse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

std::uint32_t crc32c_portable(std::string_view data, std::uint32_t crc) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  std::uint32_t state = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    const std::uint32_t low = load_le32(p) ^ state;
    const std::uint32_t high = load_le32(p + 4);
    state = kTables[7][low & 0xff] ^ kTables[6][(low >> 8) & 0xff] ^ kTables[5][(low >> 16) & 0xff] ^
            kTables[4][low >> 24] ^ kTables[3][high & 0xff] ^ kTables[2][(high >> 8) & 0xff] ^
            kTables[1][(high >> 16) & 0xff] ^ kTables[0][high >> 24];
  }
  for (; n > 0; --n, ++p) state = (state >> 8) ^ kTables[0][(state ^ *p) & 0xffu];
  return ~state;
}

bool crc32c_uses_hardware() {
#ifdef TPUSTRATEGY_CRC32C_X86
  static const bool has_sse42 = detect_sse42();
  return has_sse42;
#else
  return false;
#endif
}

std::uint32_t crc32c(std::string_view data, std::uint32_t crc) {
#ifdef TPUSTRATEGY_CRC32C_X86
  if (crc32c_uses_hardware()) return crc32c_sse42(data, crc);
#endif
  return crc32c_portable(data, crc);
}

std::uint32_t mask_crc(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

std::uint32_t unmask_crc(std::uint32_t masked) {
  const std::uint32_t rotated = masked - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace tpustrategy::data
