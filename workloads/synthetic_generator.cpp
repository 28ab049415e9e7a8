#include "workloads/synthetic_generator.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "contest/sys/errors.h"

namespace contest {
namespace {

// splitmix64: tiny, well mixed, and identical on every platform, which is
// what makes the generated project the same everywhere.
class Random {
  public:
    explicit Random(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    unsigned between(unsigned low, unsigned high) {  // inclusive
        return low + static_cast<unsigned>(next() % (high - low + 1));
    }

  private:
    std::uint64_t state_;
};

std::string replace_all(std::string text,
                        const std::vector<std::pair<std::string, std::string>>& subs) {
    for (const auto& [from, to] : subs) {
        for (size_t pos = text.find(from); pos != std::string::npos;
             pos = text.find(from, pos + to.size()))
            text.replace(pos, from.size(), to);
    }
    return text;
}

const char* const kTypesHeader = R"(#ifndef SYNTH_TYPES_H
#define SYNTH_TYPES_H

#include <stddef.h>
#include <stdint.h>

struct vec3 {
    double x, y, z;
};

struct mat4 {
    double m[4][4];
};

struct particle {
    struct vec3 pos, vel;
    double mass;
    uint32_t id;
};

#define SYNTH_TABLE_SLOTS 256u
struct table {
    uint32_t keys[SYNTH_TABLE_SLOTS];
    uint32_t values[SYNTH_TABLE_SLOTS];
    unsigned char occupied[SYNTH_TABLE_SLOTS];
    unsigned used;
};

#define SYNTH_RING_SIZE 64u
struct ring {
    uint32_t items[SYNTH_RING_SIZE];
    unsigned head, tail, count;
};

#endif
)";

const char* const kRandHeader = R"(#ifndef SYNTH_RAND_H
#define SYNTH_RAND_H

#include <stdint.h>
#include <string.h>

static inline uint32_t synth_xorshift32(uint32_t s)
{
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s ? s : 0x9e3779b9u;
}

static inline uint64_t synth_mix64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The bits of a double, so that results of any sign fold into a hash. */
static inline uint64_t synth_fold_double(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

#endif
)";

const char* const kVecmathHeader = R"(#ifndef SYNTH_VECMATH_H
#define SYNTH_VECMATH_H

#include "synth/rand.h"
#include "synth/types.h"

static inline struct vec3 vec3_make(double x, double y, double z)
{
    struct vec3 v = {x, y, z};
    return v;
}

static inline struct vec3 vec3_add(struct vec3 a, struct vec3 b)
{
    return vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline struct vec3 vec3_scale(struct vec3 a, double k)
{
    return vec3_make(a.x * k, a.y * k, a.z * k);
}

static inline double vec3_dot(struct vec3 a, struct vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline struct vec3 vec3_cross(struct vec3 a, struct vec3 b)
{
    return vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/* Newton's method rather than libm, so the project needs no -lm quirks. */
static inline double synth_sqrt(double v)
{
    double r = v > 1.0 ? v : 1.0;
    int i;
    if (v <= 0.0)
        return 0.0;
    for (i = 0; i < 24; ++i)
        r = 0.5 * (r + v / r);
    return r;
}

static inline double vec3_length(struct vec3 a)
{
    return synth_sqrt(vec3_dot(a, a));
}

static inline void mat4_fill(struct mat4 *a, uint32_t seed)
{
    int r, c;
    for (r = 0; r < 4; ++r)
        for (c = 0; c < 4; ++c) {
            seed = synth_xorshift32(seed);
            a->m[r][c] = (double)(seed & 1023u) / 512.0 - 1.0;
        }
}

static inline void mat4_mul(struct mat4 *out, const struct mat4 *a, const struct mat4 *b)
{
    int r, c, k;
    for (r = 0; r < 4; ++r)
        for (c = 0; c < 4; ++c) {
            double sum = 0.0;
            for (k = 0; k < 4; ++k)
                sum += a->m[r][k] * b->m[k][c];
            out->m[r][c] = sum;
        }
}

static inline double mat4_trace(const struct mat4 *a)
{
    return a->m[0][0] + a->m[1][1] + a->m[2][2] + a->m[3][3];
}

static inline void mat4_scale(struct mat4 *a, double k)
{
    int r, c;
    for (r = 0; r < 4; ++r)
        for (c = 0; c < 4; ++c)
            a->m[r][c] *= k;
}

#endif
)";

const char* const kContainersHeader = R"(#ifndef SYNTH_CONTAINERS_H
#define SYNTH_CONTAINERS_H

#include "synth/types.h"

static inline void table_init(struct table *t)
{
    unsigned i;
    for (i = 0; i < SYNTH_TABLE_SLOTS; ++i)
        t->occupied[i] = 0;
    t->used = 0;
}

/* Open addressing with linear probing; a full table drops the key. */
static inline void table_put(struct table *t, uint32_t key, uint32_t value)
{
    unsigned i, slot = (key * 2654435761u) % SYNTH_TABLE_SLOTS;
    for (i = 0; i < SYNTH_TABLE_SLOTS; ++i, slot = (slot + 1u) % SYNTH_TABLE_SLOTS) {
        if (!t->occupied[slot]) {
            t->occupied[slot] = 1;
            t->keys[slot] = key;
            t->values[slot] = value;
            ++t->used;
            return;
        }
        if (t->keys[slot] == key) {
            t->values[slot] = value;
            return;
        }
    }
}

static inline int table_get(const struct table *t, uint32_t key, uint32_t *value)
{
    unsigned i, slot = (key * 2654435761u) % SYNTH_TABLE_SLOTS;
    for (i = 0; i < SYNTH_TABLE_SLOTS; ++i, slot = (slot + 1u) % SYNTH_TABLE_SLOTS) {
        if (!t->occupied[slot])
            return 0;
        if (t->keys[slot] == key) {
            *value = t->values[slot];
            return 1;
        }
    }
    return 0;
}

static inline void ring_init(struct ring *r)
{
    r->head = r->tail = r->count = 0;
}

static inline int ring_push(struct ring *r, uint32_t v)
{
    if (r->count == SYNTH_RING_SIZE)
        return 0;
    r->items[r->tail] = v;
    r->tail = (r->tail + 1u) % SYNTH_RING_SIZE;
    ++r->count;
    return 1;
}

static inline uint32_t ring_pop(struct ring *r)
{
    uint32_t v = r->items[r->head];
    r->head = (r->head + 1u) % SYNTH_RING_SIZE;
    --r->count;
    return v;
}

#endif
)";

const char* const kUmbrellaHeader = R"(#ifndef SYNTH_SYNTH_H
#define SYNTH_SYNTH_H

#include "synth/containers.h"
#include "synth/rand.h"
#include "synth/types.h"
#include "synth/vecmath.h"

#endif
)";

// The kinds of function a unit is made of. Each returns uint64_t or double;
// @F@ is the function's name, the other @X@ are constants drawn per function.
struct FunctionTemplate {
    const char* suffix;
    bool returns_double;
    const char* code;
};

const FunctionTemplate kTemplates[] = {
    {"matrix", true, R"(static double @F@(uint32_t seed)
{
    struct mat4 a, b, c;
    double acc = 0.0;
    int round;
    mat4_fill(&a, seed ^ @A@u);
    mat4_fill(&b, seed + @B@u);
    for (round = 0; round < @R@; ++round) {
        double t;
        mat4_mul(&c, &a, &b);
        t = mat4_trace(&c);
        mat4_scale(&c, 1.0 / (1.0 + t * t));
        a = c;
        acc += t;
    }
    return acc;
}
)"},
    {"records", false, R"(struct @F@_item {
    uint32_t key;
    double weight;
    char tag[12];
    struct vec3 pos;
};

static uint64_t @F@(uint32_t seed)
{
    struct @F@_item items[@N@];
    uint32_t s = seed ^ @A@u;
    uint64_t h = 1469598103934665603ull;
    int i, j;
    for (i = 0; i < @N@; ++i) {
        s = synth_xorshift32(s);
        items[i].key = s % @B@u;
        items[i].weight = (double)(s & 0xffffu) / @C@.0;
        for (j = 0; j < 11; ++j)
            items[i].tag[j] = (char)('a' + (s >> (j % 28)) % 26u);
        items[i].tag[11] = '\0';
        items[i].pos = vec3_make(items[i].weight, (double)i, (double)items[i].key);
    }
    for (i = 1; i < @N@; ++i) {
        struct @F@_item moving = items[i];
        for (j = i - 1; j >= 0 && items[j].weight > moving.weight; --j)
            items[j + 1] = items[j];
        items[j + 1] = moving;
    }
    for (i = 0; i < @N@; ++i) {
        h = synth_mix64(h, items[i].key);
        h = synth_mix64(h, synth_fold_double(vec3_length(items[i].pos)));
        for (j = 0; items[i].tag[j] != '\0'; ++j)
            h = synth_mix64(h, (uint64_t)(unsigned char)items[i].tag[j]);
    }
    return h;
}
)"},
    {"tokens", false, R"(static const char @F@_text[] =
    "@TEXT@";

static uint64_t @F@(uint32_t seed)
{
    unsigned words = 0, numbers = 0, symbols = 0, longest = 0, length = 0;
    uint64_t value = seed, total = 0;
    enum { IN_SPACE, IN_WORD, IN_NUMBER } state = IN_SPACE;
    size_t i;
    for (i = 0; i < sizeof @F@_text - 1; ++i) {
        char c = @F@_text[i];
        switch (state) {
        case IN_SPACE:
            if (c >= '0' && c <= '9') {
                state = IN_NUMBER;
                value = (uint64_t)(c - '0');
                ++numbers;
            } else if (c >= 'a' && c <= 'z') {
                state = IN_WORD;
                length = 1;
                ++words;
            } else if (c != ' ') {
                ++symbols;
            }
            break;
        case IN_WORD:
            if (c >= 'a' && c <= 'z') {
                ++length;
            } else {
                if (length > longest)
                    longest = length;
                state = IN_SPACE;
                if (c != ' ')
                    ++symbols;
            }
            break;
        case IN_NUMBER:
            if (c >= '0' && c <= '9') {
                value = value * 10u + (uint64_t)(c - '0');
            } else {
                total += value % @A@u;
                state = IN_SPACE;
                if (c != ' ')
                    ++symbols;
            }
            break;
        }
    }
    return total * 31u + words * 7u + numbers * 5u + symbols * 3u + longest;
}
)"},
    {"table", false, R"(static uint64_t @F@(uint32_t seed)
{
    struct table t;
    uint32_t s = seed + @A@u;
    uint64_t found = 0;
    int i;
    table_init(&t);
    for (i = 0; i < @N@; ++i) {
        s = synth_xorshift32(s);
        table_put(&t, s % @B@u, (uint32_t)i);
    }
    for (i = 0; i < @M@; ++i) {
        uint32_t v;
        s = synth_xorshift32(s);
        if (table_get(&t, s % @B@u, &v))
            found += v;
    }
    return found ^ t.used;
}
)"},
    {"particles", true, R"(static double @F@(uint32_t seed)
{
    struct particle p[@N@];
    double energy = 0.0;
    uint32_t s = seed ^ @A@u;
    int i, step;
    for (i = 0; i < @N@; ++i) {
        s = synth_xorshift32(s);
        p[i].pos = vec3_make((double)(s & 255u), (double)((s >> 8) & 255u),
                             (double)((s >> 16) & 255u));
        p[i].vel = vec3_make(0.0, 0.0, 0.0);
        p[i].mass = 1.0 + (double)(s >> 24) / @C@.0;
        p[i].id = s;
    }
    for (step = 0; step < @R@; ++step) {
        for (i = 0; i < @N@; ++i) {
            struct vec3 to_centre = vec3_scale(p[i].pos, -@G@);
            struct vec3 spin = vec3_cross(p[i].vel, vec3_make(0.0, 0.0, 1.0));
            struct vec3 force = vec3_add(to_centre, vec3_scale(spin, 0.01));
            p[i].vel = vec3_add(p[i].vel, vec3_scale(force, 1.0 / p[i].mass));
            p[i].pos = vec3_add(p[i].pos, vec3_scale(p[i].vel, 0.01));
        }
    }
    for (i = 0; i < @N@; ++i)
        energy += 0.5 * p[i].mass * vec3_dot(p[i].vel, p[i].vel) + (double)(p[i].id & 1u);
    return energy;
}
)"},
    {"ring", false, R"(static uint64_t @F@(uint32_t seed)
{
    struct ring r;
    uint32_t crc = 0xffffffffu, s = seed ^ @A@u;
    uint64_t sum = 0;
    int i, bit;
    ring_init(&r);
    for (i = 0; i < @N@; ++i) {
        s = synth_xorshift32(s);
        if (!ring_push(&r, s)) {
            uint32_t v = ring_pop(&r);
            for (bit = 0; bit < 32; ++bit) {
                uint32_t mask = 0u - ((crc ^ (v >> bit)) & 1u);
                crc = (crc >> 1) ^ (@POLY@u & mask);
            }
            sum += v % @B@u;
            ring_push(&r, s);
        }
    }
    while (r.count > 0)
        sum += ring_pop(&r) >> (sum & 7u);
    return sum ^ crc;
}
)"},
};

constexpr unsigned kFunctionsPerUnit = 12;

// Words, numbers and punctuation for the tokenizer; no quote or backslash, so
// it is a valid C string literal as it is.
std::string token_text(Random& random) {
    static const char kPunctuation[] = ".,;:-+*/=()[]{}<>!?";
    std::string text;
    while (text.size() < 240) {
        switch (random.between(0, 3)) {
            case 0:
            case 1:
                for (unsigned n = random.between(2, 9); n > 0; --n)
                    text += static_cast<char>('a' + random.between(0, 25));
                break;
            case 2:
                text += std::to_string(random.between(0, 99999));
                break;
            default:
                text += kPunctuation[random.between(0, sizeof kPunctuation - 2)];
        }
        text += ' ';
    }
    return text;
}

std::string unit_name(unsigned index, unsigned width) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "unit_%0*u", static_cast<int>(width), index);
    return buf;
}

std::string generate_unit(unsigned index, unsigned total, const std::string& name) {
    Random random((std::uint64_t{kSyntheticGeneratorVersion} << 40) ^
                  (std::uint64_t{index} * 0x100000001b3ull));
    std::ostringstream out;
    out << "/* Generated by contest's synthetic workload (generator version "
        << kSyntheticGeneratorVersion << "): " << name << ", one of " << total
        << " translation units. */\n#include \"synth/synth.h\"\n\n";
    std::vector<std::pair<std::string, bool>> functions;  // name, returns double
    for (unsigned k = 0; k < kFunctionsPerUnit; ++k) {
        const FunctionTemplate& t = kTemplates[random.next() % std::size(kTemplates)];
        // Appended, not "f" + std::to_string(k): GCC 12 at -O3 inlines
        // operator+(const char*, string&&) as an insert at the front and
        // then warns -Wstringop-overflow about a length it cannot bound.
        std::string fn = "f";
        fn += std::to_string(k);
        fn += '_';
        fn += t.suffix;
        char gravity[32];
        std::snprintf(gravity, sizeof gravity, "0.%04u", random.between(10, 500));
        std::vector<std::pair<std::string, std::string>> subs = {
            {"@F@", fn},
            {"@A@", std::to_string(random.next() & 0xffffffffu)},
            {"@B@", std::to_string(random.between(97, 65521))},
            {"@C@", std::to_string(random.between(100, 9999))},
            {"@N@", std::to_string(random.between(16, 160))},
            {"@M@", std::to_string(random.between(50, 400))},
            {"@R@", std::to_string(random.between(4, 40))},
            {"@G@", gravity},
            {"@POLY@", std::to_string((random.next() & 0xffffffffu) | 0x80000001u)},
            {"@TEXT@", t.suffix == std::string("tokens") ? token_text(random) : ""},
        };
        out << replace_all(t.code, subs) << "\n";
        functions.emplace_back(fn, t.returns_double);
    }
    out << "uint64_t " << name << "_run(uint32_t seed);\n\n"
        << "uint64_t " << name << "_run(uint32_t seed)\n{\n    uint64_t h = seed;\n";
    for (const auto& [fn, returns_double] : functions) {
        if (returns_double)
            out << "    h = synth_mix64(h, synth_fold_double(" << fn << "(seed)));\n";
        else
            out << "    h = synth_mix64(h, " << fn << "(seed));\n";
    }
    out << "    return h;\n}\n";
    return out.str();
}

std::uint64_t fnv1a(std::uint64_t h, std::string_view bytes) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

bool file_has_content(const std::filesystem::path& file, const std::string& content) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return false;
    std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return actual == content;
}

void write_file(const std::filesystem::path& file, const std::string& content) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) throw EnvironmentError("cannot write " + file.string());
}

}  // namespace

std::string SyntheticProject::hash_hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(content_hash));
    return buf;
}

SyntheticProject generate_synthetic_project(unsigned translation_units) {
    if (translation_units < 1 || translation_units > kMaxSyntheticSize)
        throw UsageError("--synthetic-size: " + std::to_string(translation_units) +
                         " is not between 1 and " + std::to_string(kMaxSyntheticSize));
    SyntheticProject project;
    project.translation_units = translation_units;
    auto& files = project.files;
    const std::vector<std::pair<const char*, const char*>> headers = {
        {"include/synth/types.h", kTypesHeader},
        {"include/synth/rand.h", kRandHeader},
        {"include/synth/vecmath.h", kVecmathHeader},
        {"include/synth/containers.h", kContainersHeader},
        {"include/synth/synth.h", kUmbrellaHeader},
    };
    for (const auto& [path, text] : headers) files.push_back({path, text});

    const unsigned width =
        std::max<unsigned>(4, static_cast<unsigned>(std::to_string(translation_units - 1).size()));
    std::vector<std::string> names;
    for (unsigned i = 0; i < translation_units; ++i) names.push_back(unit_name(i, width));

    std::ostringstream units_h, main_c;
    units_h << "#ifndef SYNTH_UNITS_H\n#define SYNTH_UNITS_H\n\n#include <stdint.h>\n\n";
    for (const auto& n : names) units_h << "uint64_t " << n << "_run(uint32_t seed);\n";
    units_h << "\n#endif\n";
    files.push_back({"include/synth/units.h", units_h.str()});

    main_c << "/* Runs every unit once and prints a checksum; contest only compiles it. */\n"
              "#include <stdio.h>\n\n#include \"synth/rand.h\"\n#include \"synth/units.h\"\n\n"
              "int main(void)\n{\n    uint64_t h = 0;\n";
    for (const auto& n : names) main_c << "    h = synth_mix64(h, " << n << "_run(1u));\n";
    main_c << "    printf(\"%016llx\\n\", (unsigned long long)h);\n    return 0;\n}\n";
    files.push_back({"src/main.c", main_c.str()});

    for (unsigned i = 0; i < translation_units; ++i)
        files.push_back({"src/" + names[i] + ".c", generate_unit(i, translation_units, names[i])});

    std::ostringstream makefile;
    makefile << "# Generated by contest's synthetic workload (generator version "
             << kSyntheticGeneratorVersion << ", " << translation_units
             << " translation units). contest runs `make clean` untimed, then times `make -jN`.\n"
                "CFLAGS = -O2 -std=gnu11 -Iinclude\nPROGRAM = synthetic\n\nHEADERS =";
    for (const auto& [path, text] : headers) makefile << " \\\n\t" << path;
    makefile << " \\\n\tinclude/synth/units.h\n\nOBJS = \\\n\tobj/main.o";
    for (const auto& n : names) makefile << " \\\n\tobj/" << n << ".o";
    makefile << "\n\n"
                "all: $(PROGRAM)\n\n"
                "$(PROGRAM): $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n\n"
                "obj/%.o: src/%.c $(HEADERS) | obj\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\n"
                "obj:\n\tmkdir -p obj\n\n"
                "clean:\n\trm -rf obj $(PROGRAM)\n\n"
                ".PHONY: all clean\n";
    files.push_back({"Makefile", makefile.str()});

    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const auto& f : files) {
        h = fnv1a(h, f.relative_path.string());
        h = fnv1a(h, std::string_view("\0", 1));
        h = fnv1a(h, f.content);
        h = fnv1a(h, std::string_view("\0", 1));
    }
    project.content_hash = h;
    return project;
}

bool write_synthetic_project(const SyntheticProject& project, const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    const fs::path stamp = dir / kSyntheticStampFile;
    const std::string stamp_text = project.hash_hex() + "\n";
    bool up_to_date = file_has_content(stamp, stamp_text);
    for (size_t i = 0; up_to_date && i < project.files.size(); ++i)
        up_to_date =
            file_has_content(dir / project.files[i].relative_path, project.files[i].content);
    if (up_to_date) return false;

    std::error_code ec;
    fs::remove_all(dir, ec);
    if (ec) throw EnvironmentError("cannot empty " + dir.string() + ": " + ec.message());
    for (const auto& f : project.files) write_file(dir / f.relative_path, f.content);
    write_file(stamp, stamp_text);
    return true;
}

}  // namespace contest
