#include "core/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace wordsens {
namespace {

// Characters that print as nothing or change how the rest of the line is shown: the C1
// controls, the soft hyphen, the zero-width and direction marks, the line and paragraph
// separators, the bidirectional embeddings, overrides and isolates, the invisible operators and
// the byte-order mark (zero-width no-break space).
bool invisible(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9f) || code == 0xad || (code >= 0x200b && code <= 0x200f) ||
         (code >= 0x2028 && code <= 0x202e) || (code >= 0x2060 && code <= 0x2064) ||
         (code >= 0x2066 && code <= 0x2069) || code == 0xfeff;
}

// The length of the valid UTF-8 sequence at the start of `text` and its code point; 0 when the
// bytes there are not one (a stray continuation byte, a truncated or overlong sequence, a
// surrogate, a code point above U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::uint32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, code = lead & 0x1fU, minimum = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, code = lead & 0x0fU, minimum = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, code = lead & 0x07U, minimum = 0x10000;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0U) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3fU);
  }
  if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, format, value);
  out += text;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i++];
    } else if (byte == '\n') {
      out += "\\n", ++i;
    } else if (byte == '\r') {
      out += "\\r", ++i;
    } else if (byte == '\t') {
      out += "\\t", ++i;
    } else if (byte < 0x80) {  // the other control bytes and DEL
      append_escape(out, "\\x%02x", byte), ++i;
    } else {
      std::uint32_t code = 0;
      const std::size_t length = utf8_sequence(text.substr(i), code);
      if (length == 0) {
        append_escape(out, "\\x%02x", byte), ++i;
      } else if (invisible(code)) {
        append_escape(out, "\\u%04x", code), i += length;
      } else {
        out.append(text.substr(i, length)), i += length;
      }
    }
  }
  return out;
}

}  // namespace wordsens
