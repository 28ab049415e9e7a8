// contest track's mail (contest/track/track_mail.h): its table's mark and
// verdict on the measure the track follows and confirmed, its figures of
// that measure each named, and its headers MIME-clean (a non-ASCII Subject
// as RFC 2047 encoded-words, the body's charset said), read back by
// Python's own mail parser.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/report/formats.h"
#include "contest/report/post_parts.h"
#include "contest/result/result_file.h"
#include "contest/sys/mail_header.h"
#include "contest/sys/text.h"
#include "contest/track/track_mail.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
namespace fs = std::filesystem;

namespace {

// A committed example's runs as one point's, each in the round of its
// index; `work` scales process_load's work, `time` each run's Time by a
// hair either way (the same Time, not the very same figures).
ResultFile point_file(const std::string& label, double work, double time, int part) {
    ResultFile f = read_result_file(fs::path(CONTEST_SOURCE_DIR) /
                                    "results/examples/6.18.44-fc-v657/2026-11-30T044314Z.json");
    f.label = label;
    f.path = "/track/changes/001/confirm/part-" + std::to_string(part) + "/" + label + ".json";
    for (auto& r : f.runs) {
        r.round = r.index;
        r.wall_s *= time * (r.index % 2 ? 1.002 : 0.998);
        if (r.load == "process_load") r.load_units *= work;
    }
    return f;
}

struct FakeTrack {
    TrackState state;
    TrackChange change;
    bisect::BisectState bisection;
    FakeTrack() {
        state.tree = "/srv/linux";
        state.branch = "master";
        state.from = std::string(40, 'a');
        state.every = "tag";
        state.measure = "loads:process_load";
        state.run_words = {"-w", "command", "--workload-cmd", "true", "process_load"};
        change.series = "m1/w1/process_load/load_units_per_s";
        change.before = std::string(40, 'a');
        change.after = std::string(40, 'b');
        change.change = -0.733;
        change.p = 1e-5;
        change.confirm_why =
            "the ends differ: bad - good = -8.3e+06 of process_load's work over 5 rounds, p = "
            "2.8e-05";
        bisection.good = change.before;
        bisection.bad = change.after;
        bisection.measure = state.measure;
        bisection.ends_state = EndsState::differ;
        bisection.ends_rounds = 5;
        bisection.shift = -8.1e6;
        bisection.first_bad = std::string(40, 'c');
        bisection.first_bad_subject = "pipe: König's ring, as tagged v6.1-größer";
        bisection.first_bad_author = "Jörg König <jk@example.org>";
        bisection.finished = true;
    }
    std::string mail() const {
        // Two parts, as the track passes them: every before's, then every
        // after's, each part's pair in its folder.
        return track_mail(state, change, bisection,
                          {point_file("before", 1, 1, 1), point_file("before", 1, 1, 2),
                           point_file("after", 0.25, 1, 1), point_file("after", 0.25, 1, 2)});
    }
};

// The headers, up to the first empty line.
std::string headers_of(const std::string& mail) {
    return mail.substr(0, mail.find("\n\n") + 1);
}

// What Python's mail parser reads of the mail: its Subject decoded, its
// body's charset, and whether the body holds `word` once decoded.
std::string python_reads(const fs::path& file, const std::string& word) {
    return test::shell_output(
        "python3 -c 'import email, sys\n"
        "from email.header import decode_header, make_header\n"
        "m = email.message_from_binary_file(open(sys.argv[1], \"rb\"))\n"
        "print(str(make_header(decode_header(m[\"Subject\"]))))\n"
        "print(m.get_content_charset())\n"
        "print(sys.argv[2] in m.get_payload(decode=True).decode(m.get_content_charset()))' '" +
        file.string() + "' '" + word + "'");
}

}  // namespace

TEST_CASE(
    "track mail: the table's mark and verdict are on the measure followed, its figures "
    "each named",
    "[track][track-mail]") {
    // process_load's work fell to a quarter; Time did not move.
    const FakeTrack t;
    const std::string mail = t.mail();
    INFO(mail);
    const std::string text = test::unwrapped(mail);
    // The verdict names the followed measure's change, by the confirmation's
    // test; Time's beside it, said to be Time's.
    CHECK_THAT(text, Catch::Contains("Verdict on loads:process_load, the measure followed: "
                                     "changed -75.0%, beyond noise by its own test"));
    CHECK_THAT(text, Catch::Contains("Time, beside it: "));
    CHECK(text.find("  Verdict: ") == std::string::npos);
    // Its row is marked.
    bool marked = false;
    for (const auto& line : split_lines(mail))
        if (line.ends_with(" process_load.loads")) marked = line.ends_with("* process_load.loads");
    CHECK(marked);
    // One figure of record, the confirmation's, in the lead (and the
    // Subject, below); the series' and the bisection's ends' each named.
    CHECK_THAT(text, Catch::Contains("noticed a -75.0% change of loads:process_load (its "
                                     "confirmation's figure)"));
    CHECK_THAT(text, Catch::Contains("- the confirmation's, the figure of record: -75.0%"));
    CHECK_THAT(text, Catch::Contains("each the mean of the 10 interleaved rounds"));
    CHECK_THAT(text, Catch::Contains("- the series': the series "
                                     "m1/w1/process_load/load_units_per_s moved -73.3%"));
    CHECK_THAT(text, Catch::Contains("- the bisection's ends' (its own measuring, below): bad - "
                                     "good = -8.1e+06 of process_load's work over 5 rounds"));
    for (const auto& line : split_lines(mail)) {
        INFO(line);
        CHECK(display_width(line) <= kPostColumns);
    }
}

TEST_CASE("track mail: MIME-clean, a non-ASCII Subject as encoded-words a mail reader decodes",
          "[track][track-mail]") {
    const FakeTrack t;
    const std::string mail = t.mail();
    INFO(mail);
    const std::string headers = headers_of(mail);
    CHECK_THAT(headers, Catch::Contains("\nMIME-Version: 1.0\n"));
    CHECK_THAT(headers, Catch::Contains("\nContent-Type: text/plain; charset=utf-8\n"));
    CHECK_THAT(headers, Catch::Contains("\nContent-Transfer-Encoding: 8bit\n"));
    for (const auto& line : split_lines(headers)) {
        INFO(line);
        CHECK(line.size() <= kMailHeaderColumns);
        for (char c : line) CHECK((c >= 0x20 && c < 0x7f));
    }
    test::ScratchDir dir("track-mail-mime");
    test::put_file(dir / "mail", mail);
    const std::string subject =
        "[contest] track: cccccccccccc pipe: König's ring, as tagged "
        "v6.1-größer: loads:process_load -75.0%";
    CHECK(python_reads(dir / "mail", "Jörg König") == subject + "\nutf-8\nTrue");
    // An ASCII Subject stays as it is.
    FakeTrack plain;
    plain.bisection.first_bad_subject = "pipe: a plain subject";
    CHECK(plain.mail().rfind("Subject: [contest] track: cccccccccccc pipe: a plain subject:", 0) ==
          0);
}

TEST_CASE("mail_header: encoded-words of whole characters, every line within 76 columns",
          "[track][track-mail]") {
    std::string value = "König";
    for (int i = 0; i < 40; ++i) value += " ✓ 𝄞 König";
    const std::string header = mail_header("Subject", value);
    INFO(header);
    const auto lines = split_lines(header);
    CHECK(lines.size() > 5);
    for (const auto& line : lines) {
        CHECK(line.size() <= kMailHeaderColumns);
        CHECK(line.find("=?UTF-8?B?") != std::string::npos);
    }
    test::ScratchDir dir("mail-header");
    test::put_file(dir / "mail", header + "\nbody\n");
    CHECK(test::shell_output("python3 -c 'import email, sys\n"
                             "from email.header import decode_header, make_header\n"
                             "m = email.message_from_binary_file(open(sys.argv[1], \"rb\"))\n"
                             "print(str(make_header(decode_header(m[\"Subject\"]))), end=\"\")' '" +
                             (dir / "mail").string() + "'") == value);
    CHECK(mail_header("Subject", "plain") == "Subject: plain\n");
}
