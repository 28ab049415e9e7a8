#pragma once
// Shell-like word splitting for the commands a user gives as one string
// (--workload-cmd, --latency-exec-cmd, --load-cmd). The words become an argv
// that is executed directly: there is no shell, so no expansion of any kind.
#include <string>
#include <string_view>
#include <vector>

namespace contest {

// Splits text into words the way a POSIX shell splits a simple command:
//   - blanks (space, tab, newline) separate words;
//   - 'single quotes' keep everything literally;
//   - "double quotes" keep everything except that a backslash escapes
//     $ ` " \ and newline;
//   - outside quotes a backslash keeps the next character literally, and a
//     backslash-newline joins two lines;
//   - quoted empty strings ('' or "") are words of their own.
// $, `, *, ~, ;, | and the like are ordinary characters. Throws UsageError for
// an unbalanced quote or a trailing backslash.
std::vector<std::string> split_words(std::string_view text);

// The inverse, for messages and result files: words quoted so that
// split_words gives them back.
std::string join_words(const std::vector<std::string>& words);

// One word as a POSIX shell reads it back, for a command a person pastes
// (a mail's, a suggestion printed on a terminal), whatever the word holds: as
// it is when it needs no quotes, else in double quotes, where only \ $ ` "
// are escaped (and a backslash-newline is dropped: post_command_lines breaks
// a long word there). What double quotes cannot hold is outside them: a '!'
// as '!' (bash's history expansion works inside double quotes), and a control
// character other than a newline, or a byte of no valid UTF-8 character, as
// $(printf '\ooo') inside the double quotes, so nothing a terminal obeys as
// an escape is printed.
std::string shell_quoted(std::string_view word);

}  // namespace contest
