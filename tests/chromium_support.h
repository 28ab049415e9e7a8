#pragma once
// Shared by the tests of contest's HTML pages (the report's, the history's
// trend page): a page as headless Chromium renders it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "contest/sys/text.h"
#include "test_helpers.h"

namespace contest::test {

struct Rendered {
    std::string dom;
    std::vector<std::string> console;  // what the page said on its console, one line each
};

// `page` as headless Chromium renders it: the DOM after loading, and every
// console message (script errors and Content-Security-Policy violations
// are logged there).
inline Rendered render_in_chromium(const std::filesystem::path& page, const ScratchDir& dir) {
    const std::filesystem::path out = dir / "chromium";
    std::filesystem::create_directories(out);
    const Outcome o =
        finish_contest(start_command({"chromium", "--headless=new", "--disable-gpu", "--no-sandbox",
                                      "--no-first-run", "--enable-logging=stderr", "--v=0",
                                      "--user-data-dir=" + (dir / "profile").string(), "--dump-dom",
                                      "file://" + page.string()},
                                     out),
                       out);
    leftover_processes();  // its helpers, which we adopted, reaped
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    Rendered r{o.out, {}};
    for (const auto& line : split_lines(o.err))
        if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
    return r;
}

// Chromium's console reaches render_in_chromium (else "no console error"
// would prove nothing): a page whose script logs one is seen saying it.
inline void require_console_seen(const ScratchDir& dir) {
    std::ofstream(dir / "probe.html")
        << "<!DOCTYPE "
           "html><html><body><script>console.error('contest-probe')</script></body></html>";
    const Rendered probe = render_in_chromium(dir / "probe.html", dir);
    REQUIRE(probe.console.size() == 1);
    CHECK(probe.console.front().find("contest-probe") != std::string::npos);
}

}  // namespace contest::test
