// libFuzzer: the shell-like word splitter on arbitrary text. Any text is
// either split or refused with a UsageError, and join_words quotes words so
// that splitting gives them back exactly; shell_quoted of any word prints
// nothing a terminal obeys.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> words;
    try {
        words = contest::split_words(text);
    } catch (const contest::UsageError& e) {
        // The message quotes the text: escaped, never raw to the terminal.
        if (!contest::is_printable(e.what())) std::abort();
        return 0;
    }
    if (contest::split_words(contest::join_words(words)) != words) std::abort();
    // A newline is kept as it is, inside quotes (the shell reads it back);
    // nothing else a terminal obeys.
    std::string quoted = contest::shell_quoted(text);
    std::erase(quoted, '\n');
    if (!contest::is_printable(quoted)) std::abort();
    return 0;
}
