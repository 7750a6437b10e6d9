// A minimal PNG reader for the SVG picture test: 8-bit RGB or RGBA, not interlaced
// (what rsvg-convert writes), inflated with zlib and unfiltered per the PNG spec
// (None, Sub, Up, Average, Paeth). Anything else is an error, never a guess.
#ifndef PERFGATE_TESTS_UNIT_REPORT_PNG_IMAGE_H_
#define PERFGATE_TESTS_UNIT_REPORT_PNG_IMAGE_H_

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::report::testdata {

struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

struct PngImage {
  int width = 0;
  int height = 0;
  int channels = 0;             // 3 (RGB) or 4 (RGBA)
  std::vector<uint8_t> pixels;  // unfiltered rows, channels bytes a pixel

  Rgb At(int x, int y) const {
    const size_t i = (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) *
                     static_cast<size_t>(channels);
    return {pixels[i], pixels[i + 1], pixels[i + 2]};
  }
};

inline uint32_t ReadBe32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) | static_cast<uint8_t>(s[at + 3]);
}

inline int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// The decoded image, or nullopt with `error` saying why.
inline std::optional<PngImage> DecodePng(const std::string& file, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<PngImage> {
    *error = std::move(why);
    return std::nullopt;
  };
  static const std::string kSignature = "\x89PNG\r\n\x1a\n";
  if (file.compare(0, kSignature.size(), kSignature) != 0) return fail("not a PNG");
  PngImage img;
  std::string idat;
  for (size_t at = kSignature.size(); at + 12 <= file.size();) {
    const uint32_t len = ReadBe32(file, at);
    const std::string type = file.substr(at + 4, 4);
    if (at + 12 + len > file.size()) return fail("truncated chunk " + type);
    const std::string data = file.substr(at + 8, len);
    if (type == "IHDR") {
      img.width = static_cast<int>(ReadBe32(data, 0));
      img.height = static_cast<int>(ReadBe32(data, 4));
      const int depth = static_cast<uint8_t>(data[8]), colour = static_cast<uint8_t>(data[9]);
      if (depth != 8 || (colour != 2 && colour != 6) || data[12] != 0) {
        return fail("unsupported PNG (depth " + std::to_string(depth) + ", colour type " + std::to_string(colour) +
                    ", or interlaced)");
      }
      img.channels = colour == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat += data;
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  if (img.channels == 0) return fail("no IHDR");
  const size_t stride = static_cast<size_t>(img.width) * static_cast<size_t>(img.channels);
  std::vector<uint8_t> raw((stride + 1) * static_cast<size_t>(img.height));
  uLongf raw_len = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) !=
          Z_OK ||
      raw_len != raw.size()) {
    return fail("bad IDAT stream");
  }
  img.pixels.assign(stride * static_cast<size_t>(img.height), 0);
  const size_t bpp = static_cast<size_t>(img.channels);
  for (size_t y = 0; y < static_cast<size_t>(img.height); ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img.pixels[y * stride];
    const uint8_t* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? out[i - bpp] : 0, b = up ? up[i] : 0, c = (up && i >= bpp) ? up[i - bpp] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: predictor = Paeth(a, b, c); break;
        default: return fail("bad filter type " + std::to_string(filter));
      }
      out[i] = static_cast<uint8_t>(in[i] + predictor);
    }
  }
  return img;
}

}  // namespace perfgate::report::testdata

#endif  // PERFGATE_TESTS_UNIT_REPORT_PNG_IMAGE_H_
