// The record codec itself (sys/json_record.h), on a record of the test's
// own: what a later contest added (absent while default), text that is not
// UTF-8 either refused or replaced, and a versioned file's schema. The
// journal's and the boot state's tests check it on their records.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"

using namespace contest;

namespace record_test {

struct Sample {
    std::string name;
    unsigned count = 0;
    // Added later: absent while default.
    bool flag = false;
    std::vector<std::string> words;
    std::string note;
};

template <typename V, RecordOf<Sample> R>
void fields(V& v, R& s) {
    v("name", s.name);
    v("count", s.count);
    v.absent_when_default("flag", s.flag);
    v.absent_when_default("words", s.words);
    v.absent_when_default("note", s.note);
}

// Why the reader refuses j, or "read".
std::string refusal(const nlohmann::json& j) {
    try {
        Sample s;
        RecordReader::read(j, "sample", s);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "read";
}

}  // namespace record_test

using record_test::Sample;

TEST_CASE("a record's field added later is absent while default, and default when absent",
          "[json-record]") {
    Sample plain{"a", 3, false, {}, ""};
    const nlohmann::json written = RecordWriter::json_of(plain, "sample");
    CHECK(written == nlohmann::json{{"name", "a"}, {"count", 3}});

    Sample full{"b", 4, true, {"x", "y"}, "why"};
    const nlohmann::json all = RecordWriter::json_of(full, "sample");
    CHECK(all ==
          nlohmann::json{
              {"name", "b"}, {"count", 4}, {"flag", true}, {"words", {"x", "y"}}, {"note", "why"}});

    // Read back: each present field as written; each absent one its
    // default, even over a record that held another value.
    Sample back{"", 0, true, {"stale"}, "stale"};
    RecordReader::read(written, "sample", back);
    CHECK(back.name == "a");
    CHECK_FALSE(back.flag);
    CHECK(back.words.empty());
    CHECK(back.note.empty());
    RecordReader::read(all, "sample", back);
    CHECK(back.flag);
    CHECK(back.words == std::vector<std::string>{"x", "y"});
    CHECK(back.note == "why");

    // Present with its default value: read (an earlier writer may have
    // written it), and written back absent.
    nlohmann::json explicit_default = written;
    explicit_default["flag"] = false;
    RecordReader::read(explicit_default, "sample", back);
    CHECK_FALSE(back.flag);
    CHECK(RecordWriter::json_of(back, "sample") == written);

    // Optional is not unchecked: a present value of the wrong type, and a
    // field no one names, are refused naming it; a field that is not
    // optional is still required.
    nlohmann::json bad = written;
    bad["flag"] = 1;
    CHECK(record_test::refusal(bad) == "sample: flag: not true or false");
    bad = written;
    bad["words"] = {"x", 2};
    CHECK(record_test::refusal(bad) == "sample: words[1]: not a string");
    bad = written;
    bad["planted"] = "";
    CHECK(record_test::refusal(bad) == "sample: planted: a field this contest does not know");
    bad = written;
    bad.erase("count");
    CHECK(record_test::refusal(bad) == "sample: count: missing");
}

TEST_CASE("a record's text that is not UTF-8 is refused naming its field, or replaced when asked",
          "[json-record]") {
    const Sample odd{"a\xff", 1, false, {"ok", "b\xc3"}, ""};
    try {
        RecordWriter::json_of(odd, "sample");
        FAIL("written");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()).starts_with("sample: name: 'a"));
        CHECK(std::string(e.what()).ends_with("' is not UTF-8"));
    }
    const nlohmann::json replaced = RecordWriter::json_of(odd, "sample", BadText::replaced);
    CHECK(replaced["name"] == "a\xEF\xBF\xBD");
    CHECK(replaced["words"][1] == "b\xEF\xBF\xBD");
    CHECK(replaced["words"][0] == "ok");
}

TEST_CASE("a versioned file's schema: this contest's taken out, any other refused in one line",
          "[json-record]") {
    auto refusal = [](nlohmann::json j) -> std::string {
        try {
            take_schema(j, 2, "file");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
            return e.what();
        }
        CHECK_FALSE(j.contains("schema"));
        return "taken";
    };
    CHECK(refusal({{"schema", 2}, {"x", 1}}) == "taken");
    CHECK(refusal({{"schema", 3}}).starts_with("file: schema: 3 is newer than this contest's 2"));
    CHECK(refusal({{"schema", 1}}).starts_with("file: schema: 1 is older than this contest's 2"));
    CHECK(refusal({{"x", 1}}) == "file: schema: missing");
    CHECK(refusal({{"schema", "2"}}) == "file: schema: not a whole number");
    CHECK(refusal({{"schema", 2.0}}) == "file: schema: not a whole number");
    CHECK(refusal({{"schema", 18446744073709551615ull}}) == "file: schema: not a whole number");
    CHECK(refusal({{"schema", -9223372036854775807ll}}) == "file: schema: not a whole number");
    CHECK(refusal(nlohmann::json::array()) == "file: not an object");
}

namespace record_test {

// A file that has always written every field, and a field it added later
// whose own default is no T{} (a figure not known yet: NaN).
struct Measured {
    std::string name;
    double figure = std::nan("");
};

template <typename V, RecordOf<Measured> R>
void fields(V& v, R& m) {
    v("name", m.name);
    v.kept_when_absent("figure", m.figure);
}

}  // namespace record_test

TEST_CASE("a record's field kept when absent: always written, the record's own value when absent",
          "[json-record]") {
    using record_test::Measured;
    const Measured known{"a", 0};
    // Written even at T{} (0 is a figure, not "absent").
    CHECK(RecordWriter::json_of(known, "measured") ==
          nlohmann::json{{"name", "a"}, {"figure", 0.0}});
    Measured back;
    RecordReader::read(nlohmann::json{{"name", "b"}, {"figure", 2.5}}, "measured", back);
    CHECK(back.figure == 2.5);
    // A file of the earlier shape: the record's own value kept, not T{}.
    Measured earlier;
    RecordReader::read(nlohmann::json{{"name", "c"}}, "measured", earlier);
    CHECK(earlier.name == "c");
    CHECK(std::isnan(earlier.figure));
    // Present, it is checked as any field.
    try {
        RecordReader::read(nlohmann::json{{"name", "d"}, {"figure", "x"}}, "measured", back);
        FAIL("read");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == "measured: figure: not a number");
    }
}
