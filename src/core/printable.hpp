#pragma once
// Text from the user (a configuration line, a file name, an option value) is echoed in one-line
// messages. Raw, a newline in it splits the message, and a control byte, an escape sequence or an
// invisible character reaches the terminal as it is (an ESC byte can recolour or move the
// cursor; a byte-order mark shows as nothing). printable() writes such characters as visible
// escapes and leaves every other character, UTF-8 included, unchanged.
#include <string>
#include <string_view>

namespace wordsens {

/// `text` with \n, \r and \t written as those two-character escapes, every other control byte
/// (0x00-0x1f, DEL 0x7f) and every byte that is not part of valid UTF-8 as \xNN, and the C1
/// controls and the invisible format characters (byte-order mark, zero-width and
/// direction-changing characters, line and paragraph separators) as \uNNNN. The result is one
/// line that shows every character of `text`.
[[nodiscard]] std::string printable(std::string_view text);

}  // namespace wordsens
