#include "contest/sys/words.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n';
}

// Inside double quotes a backslash only escapes these (POSIX 2.2.3).
bool escapable_in_double_quotes(char c) {
    return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n';
}

// What shell_quoted leaves as it is: letters, digits and punctuation no
// shell gives a meaning inside a word.
bool needs_quotes(std::string_view word) {
    if (word.empty()) return true;
    return std::any_of(word.begin(), word.end(), [](char c) {
        return !(std::isalnum(static_cast<unsigned char>(c)) ||
                 std::string_view("_./,=:+@%^-").find(c) != std::string_view::npos);
    });
}

}  // namespace

std::string shell_quoted(std::string_view word) {
    if (!needs_quotes(word)) return std::string(word);
    if (word.empty()) return "\"\"";
    std::string out;
    bool in_double = false;
    const auto double_quotes = [&](bool open) {
        if (in_double != open) out += '"';
        in_double = open;
    };
    std::size_t i = 0;
    while (i < word.size()) {
        const char c = word[i];
        const std::size_t n = c == '\n' ? 1 : printable_char_length(word.substr(i));
        if (c == '!') {
            double_quotes(false);
            out += "'!'";
        } else if (n == 0) {
            // A command substitution inside the double quotes: its output
            // stays one word, and its own single quotes are its own.
            double_quotes(true);
            char octal[8];
            std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned char>(c));
            out.append("$(printf '").append(octal).append("')");
        } else {
            double_quotes(true);
            if (std::string_view("\\$`\"").find(c) != std::string_view::npos) out += '\\';
            out.append(word.substr(i, n));
            i += n;
            continue;
        }
        ++i;
    }
    double_quotes(false);
    return out;
}

std::vector<std::string> split_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;  // a quoted empty string is a word, so emptiness is not enough
    size_t i = 0;
    while (i < text.size()) {
        char c = text[i];
        if (is_blank(c)) {
            if (in_word) words.push_back(std::move(word));
            word.clear();
            in_word = false;
            ++i;
        } else if (c == '\\') {
            if (i + 1 >= text.size())
                throw UsageError("trailing backslash in '" + printable(text) + "'");
            if (text[i + 1] != '\n') {
                word += text[i + 1];
                in_word = true;
            }
            i += 2;
        } else if (c == '\'') {
            size_t close = text.find('\'', i + 1);
            if (close == std::string_view::npos)
                throw UsageError("unbalanced single quote in '" + printable(text) + "'");
            word.append(text.substr(i + 1, close - i - 1));
            in_word = true;
            i = close + 1;
        } else if (c == '"') {
            ++i;
            bool closed = false;
            while (i < text.size()) {
                char d = text[i];
                if (d == '"') {
                    closed = true;
                    ++i;
                    break;
                }
                if (d == '\\' && i + 1 < text.size() && escapable_in_double_quotes(text[i + 1])) {
                    if (text[i + 1] != '\n') word += text[i + 1];
                    i += 2;
                    continue;
                }
                word += d;
                ++i;
            }
            if (!closed) throw UsageError("unbalanced double quote in '" + printable(text) + "'");
            in_word = true;
        } else {
            word += c;
            in_word = true;
            ++i;
        }
    }
    if (in_word) words.push_back(std::move(word));
    return words;
}

std::string join_words(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty()) out += ' ';
        bool plain = !w.empty();
        for (char c : w)
            if (is_blank(c) || c == '\'' || c == '"' || c == '\\') plain = false;
        if (plain) {
            out += w;
            continue;
        }
        // Single quotes keep everything but a single quote, which is closed,
        // escaped and reopened: it's -> 'it'\''s'.
        out += '\'';
        for (char c : w) {
            if (c == '\'')
                out += "'\\''";
            else
                out += c;
        }
        out += '\'';
    }
    return out;
}

}  // namespace contest
