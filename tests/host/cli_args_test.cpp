// The gemmkit tool's command-line grammar: size lists, shapes, globs, op pairs, options, help, the
// checks made before the device is touched, and the words for a missing GPU.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "cli_args.hpp"
#include "cli_test_util.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::cli::OpPair;
using gemmkit::cli::Options;
using gemmkit::cli::Shape;
using gemmkit::test::contains;
using gemmkit::test::Parsed;
using gemmkit::test::parse;

std::vector<int64_t> sizes(const std::string& text) {
    std::vector<int64_t> out;
    std::string err;
    EXPECT_TRUE(gemmkit::cli::parse_size_list(text, &out, &err)) << text << ": " << err;
    return out;
}

// The error text, or "" when the parse unexpectedly succeeded.
std::string size_error(const std::string& text) {
    std::vector<int64_t> out;
    std::string err;
    if (gemmkit::cli::parse_size_list(text, &out, &err)) return "";
    EXPECT_FALSE(err.empty()) << text;
    return err.empty() ? "(empty message)" : err;
}

std::vector<Shape> shapes(const std::string& text) {
    std::vector<Shape> out;
    std::string err;
    EXPECT_TRUE(gemmkit::cli::parse_shapes(text, &out, &err)) << text << ": " << err;
    return out;
}

bool shapes_fail(const std::string& text) {
    std::vector<Shape> out;
    std::string err;
    return !gemmkit::cli::parse_shapes(text, &out, &err) && !err.empty();
}

TEST(ParseSizeList, SingleSize) { EXPECT_EQ(sizes("4096"), (std::vector<int64_t>{4096})); }

TEST(ParseSizeList, CommaSeparatedSizesKeepTheirOrder) {
    EXPECT_EQ(sizes("1,7,33"), (std::vector<int64_t>{1, 7, 33}));
    EXPECT_EQ(sizes("33,7,1"), (std::vector<int64_t>{33, 7, 1}));
}

TEST(ParseSizeList, ZeroIsASize) { EXPECT_EQ(sizes("0"), (std::vector<int64_t>{0})); }

TEST(ParseSizeList, GeometricRangeIncludesBothEnds) {
    EXPECT_EQ(sizes("128:16384:x2"), (std::vector<int64_t>{128, 256, 512, 1024, 2048, 4096, 8192, 16384}));
}

// The last term that fits is kept; the next one (900 * 3) is past the end.
TEST(ParseSizeList, GeometricRangeStopsAtTheLastTermNotAbove) {
    EXPECT_EQ(sizes("100:1000:x3"), (std::vector<int64_t>{100, 300, 900}));
}

TEST(ParseSizeList, ArithmeticRange) {
    EXPECT_EQ(sizes("64:256:+64"), (std::vector<int64_t>{64, 128, 192, 256}));
    EXPECT_EQ(sizes("1:10:+4"), (std::vector<int64_t>{1, 5, 9}));
}

TEST(ParseSizeList, RangeOfOneValue) { EXPECT_EQ(sizes("5:5:x2"), (std::vector<int64_t>{5})); }

TEST(ParseSizeList, RangesAndSizesMix) {
    EXPECT_EQ(sizes("7,16:64:x2,1000"), (std::vector<int64_t>{7, 16, 32, 64, 1000}));
}

TEST(ParseSizeList, RejectsEmptyText) { EXPECT_NE(size_error(""), ""); }

TEST(ParseSizeList, RejectsNonNumbers) {
    EXPECT_NE(size_error("abc"), "");
    EXPECT_NE(size_error("12abc"), "");
    EXPECT_NE(size_error("1.5"), "");
}

TEST(ParseSizeList, RejectsNegativeSizes) { EXPECT_NE(size_error("-1"), ""); }

TEST(ParseSizeList, RejectsEmptyItems) {
    EXPECT_NE(size_error("1,,2"), "");
    EXPECT_NE(size_error("1,"), "");
}

TEST(ParseSizeList, RejectsRangeThatRunsBackwards) { EXPECT_NE(size_error("8:4:x2"), ""); }

// Factor 1 or step 0 would never reach the end.
TEST(ParseSizeList, RejectsRangesThatNeverAdvance) {
    EXPECT_NE(size_error("1:8:x1"), "");
    EXPECT_NE(size_error("1:8:+0"), "");
    EXPECT_NE(size_error("0:8:x2"), "");
}

TEST(ParseSizeList, RejectsUnknownStepKindAndMalformedRanges) {
    EXPECT_NE(size_error("1:8:y2"), "");
    EXPECT_NE(size_error("1:8"), "");
    EXPECT_NE(size_error("1:8:x"), "");
    EXPECT_NE(size_error("1:8:x2:3"), "");
}

TEST(ParseSizeList, ErrorQuotesTheBadItem) { EXPECT_TRUE(contains(size_error("4,abc,8"), "abc")); }

TEST(ParseShapes, SingleNumberIsACube) { EXPECT_EQ(shapes("4096"), (std::vector<Shape>{{4096, 4096, 4096}})); }

TEST(ParseShapes, MxNxKIsTakenInThatOrder) {
    EXPECT_EQ(shapes("1000x2000x300"), (std::vector<Shape>{{1000, 2000, 300}}));
}

TEST(ParseShapes, CubesAndTriplesMix) { EXPECT_EQ(shapes("7,33x1x2"), (std::vector<Shape>{{7, 7, 7}, {33, 1, 2}})); }

TEST(ParseShapes, RejectsTwoDimensions) { EXPECT_TRUE(shapes_fail("1x2")); }

TEST(ParseShapes, RejectsNonNumbers) {
    EXPECT_TRUE(shapes_fail("axbxc"));
    EXPECT_TRUE(shapes_fail("1x2x"));
    EXPECT_TRUE(shapes_fail("1x-2x3"));
    EXPECT_TRUE(shapes_fail(""));
}

TEST(ShapeProduct, EmptyNAndKFollowM) {
    EXPECT_EQ(gemmkit::cli::shape_product({1, 7}, {}, {}), (std::vector<Shape>{{1, 1, 1}, {7, 7, 7}}));
}

TEST(ShapeProduct, EmptyNFollowsMWhileKIsGiven) {
    EXPECT_EQ(gemmkit::cli::shape_product({2, 3}, {}, {5}), (std::vector<Shape>{{2, 2, 5}, {3, 3, 5}}));
}

TEST(ShapeProduct, FullProductWithMOutermost) {
    EXPECT_EQ(gemmkit::cli::shape_product({1, 2}, {3}, {4, 5}),
              (std::vector<Shape>{{1, 3, 4}, {1, 3, 5}, {2, 3, 4}, {2, 3, 5}}));
}

TEST(ShapeProduct, EmptyMGivesNothing) { EXPECT_TRUE(gemmkit::cli::shape_product({}, {3}, {4}).empty()); }

TEST(GlobMatch, StarMatchesAnyRunIncludingNone) {
    EXPECT_TRUE(gemmkit::cli::glob_match("sgemm.*", "sgemm.05_register_blocking_2d"));
    EXPECT_TRUE(gemmkit::cli::glob_match("sgemm.*", "sgemm."));
    EXPECT_TRUE(gemmkit::cli::glob_match("*", ""));
    EXPECT_TRUE(gemmkit::cli::glob_match("*", "anything"));
    EXPECT_TRUE(gemmkit::cli::glob_match("*_2d", "sgemm.05_register_blocking_2d"));
    EXPECT_TRUE(gemmkit::cli::glob_match("s*g*2d", "sgemm.05_register_blocking_2d"));
}

TEST(GlobMatch, QuestionMarkMatchesExactlyOneCharacter) {
    EXPECT_TRUE(gemmkit::cli::glob_match("?", "a"));
    EXPECT_FALSE(gemmkit::cli::glob_match("?", ""));
    EXPECT_FALSE(gemmkit::cli::glob_match("?", "ab"));
    EXPECT_TRUE(gemmkit::cli::glob_match("sgemm.0?_*", "sgemm.05_register_blocking_2d"));
    EXPECT_FALSE(gemmkit::cli::glob_match("sgemm.0?_*", "sgemm.10_warp_tiling"));
}

TEST(GlobMatch, LiteralCharactersMustMatchWholeText) {
    EXPECT_TRUE(gemmkit::cli::glob_match("sgemm.01_naive", "sgemm.01_naive"));
    EXPECT_FALSE(gemmkit::cli::glob_match("sgemm.01", "sgemm.01_naive"));
    EXPECT_FALSE(gemmkit::cli::glob_match("sgemm.01_naive", "sgemm.01"));
    EXPECT_FALSE(gemmkit::cli::glob_match("sgemm.*", "hopper.01_wgmma"));
    EXPECT_FALSE(gemmkit::cli::glob_match("SGEMM.*", "sgemm.01_naive"));
}

// '*' must be able to give back characters it first took ("a*b" on "a_b_c_b").
TEST(GlobMatch, StarBacktracks) {
    EXPECT_TRUE(gemmkit::cli::glob_match("a*b", "a_b_c_b"));
    EXPECT_FALSE(gemmkit::cli::glob_match("a*b", "a_b_c"));
    EXPECT_TRUE(gemmkit::cli::glob_match("*a*a", "banana_a"));
}

// scripts/device-check documents --kernels 'sgemm.0[45]*'.
TEST(GlobMatch, BracketsMatchOneCharacterOfASet) {
    using gemmkit::cli::glob_match;
    EXPECT_TRUE(glob_match("sgemm.0[45]*", "sgemm.04_register_blocking_1d"));
    EXPECT_TRUE(glob_match("sgemm.0[45]*", "sgemm.05_register_blocking_2d"));
    EXPECT_FALSE(glob_match("sgemm.0[45]*", "sgemm.06_vectorized"));
    EXPECT_TRUE(glob_match("sgemm.1[0-2]_*", "sgemm.11_x"));
    EXPECT_FALSE(glob_match("sgemm.1[0-2]_*", "sgemm.13_x"));
    EXPECT_TRUE(glob_match("sgemm.0[!1]_*", "sgemm.02_coalesced"));
    EXPECT_FALSE(glob_match("sgemm.0[!1]_*", "sgemm.01_naive"));
    EXPECT_FALSE(glob_match("[ab]", "ab"));  // one character, not a run
}

// tune's shape classes hold slashes, and kernel names dots: '*' crosses both.
TEST(GlobMatch, StarCrossesSlashesAndDots) {
    EXPECT_TRUE(gemmkit::cli::glob_match("*/NN", "tiles<=64/k<=1024/ragged/NN"));
    EXPECT_TRUE(gemmkit::cli::glob_match("tiles>1024/*", "tiles>1024/k>1024/aligned/TT"));
    EXPECT_TRUE(gemmkit::cli::glob_match("*naive", "sgemm.01_naive"));
    EXPECT_TRUE(gemmkit::cli::glob_match("*", ".hidden"));
}

TEST(GlobMatch, BackslashQuotesAWildcard) {
    EXPECT_TRUE(gemmkit::cli::glob_match("a\\*", "a*"));
    EXPECT_FALSE(gemmkit::cli::glob_match("a\\*", "ab"));
}

TEST(GlobMatch, EmptyPatternMatchesOnlyEmptyText) {
    EXPECT_TRUE(gemmkit::cli::glob_match("", ""));
    EXPECT_FALSE(gemmkit::cli::glob_match("", "sgemm.01_naive"));
}

TEST(MatchesAny, AnyGlobInTheCommaListMatches) {
    EXPECT_TRUE(gemmkit::cli::matches_any("hopper.*,sgemm.05_*", "sgemm.05_register_blocking_2d"));
    EXPECT_TRUE(gemmkit::cli::matches_any("hopper.*,sgemm.05_*", "hopper.01_wgmma"));
    EXPECT_FALSE(gemmkit::cli::matches_any("hopper.*,sgemm.05_*", "sgemm.04_register_blocking_1d"));
    EXPECT_TRUE(gemmkit::cli::matches_any("*", "sgemm.01_naive"));
}

// "a,,b" must not let the empty glob match everything, nor the empty name.
TEST(MatchesAny, EmptyListMatchesNothing) {
    EXPECT_FALSE(gemmkit::cli::matches_any("", "sgemm.01_naive"));
    EXPECT_FALSE(gemmkit::cli::matches_any("a,,b", "sgemm.01_naive"));
}

std::string pair_name(const OpPair& p) {
    return std::string(p.a == GEMMKIT_OP_T ? "T" : "N") + (p.b == GEMMKIT_OP_T ? "T" : "N");
}

std::vector<std::string> op_names(const std::vector<OpPair>& ops) {
    std::vector<std::string> names;
    for (const OpPair& p : ops) names.push_back(pair_name(p));
    return names;
}

TEST(ParseOps, AllGivesTheFourCombinations) {
    std::vector<OpPair> ops;
    std::string err;
    ASSERT_TRUE(gemmkit::cli::parse_ops("all", &ops, &err)) << err;
    std::vector<std::string> names = op_names(ops);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"NN", "NT", "TN", "TT"}));
}

TEST(ParseOps, PairsAreOpAThenOpBInGivenOrder) {
    std::vector<OpPair> ops;
    std::string err;
    ASSERT_TRUE(gemmkit::cli::parse_ops("NT,TN", &ops, &err)) << err;
    EXPECT_EQ(op_names(ops), (std::vector<std::string>{"NT", "TN"}));
}

TEST(ParseOps, RejectsUnknownLettersAndLengths) {
    for (const char* bad : {"NX", "N", "NNN", "nt", "NT,", "NT,XX"}) {
        std::vector<OpPair> ops;
        std::string err;
        EXPECT_FALSE(gemmkit::cli::parse_ops(bad, &ops, &err)) << bad;
        EXPECT_FALSE(err.empty()) << bad;
    }
}

TEST(ParseOps, ErrorQuotesTheBadPair) {
    std::vector<OpPair> ops;
    std::string err;
    ASSERT_FALSE(gemmkit::cli::parse_ops("NN,NX", &ops, &err));
    EXPECT_TRUE(contains(err, "NX"));
}

TEST(ParseOptions, DefaultsWithOnlyACommand) {
    const Parsed r = parse({"bench"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "bench");
    EXPECT_TRUE(r.opt.positional.empty());
    EXPECT_EQ(r.opt.kernels, "*");
    EXPECT_TRUE(r.opt.shapes.empty());
    EXPECT_TRUE(r.opt.ops.empty());
    EXPECT_EQ(r.opt.warmup, Options{}.warmup);
    EXPECT_EQ(r.opt.iters, Options{}.iters);
    EXPECT_EQ(r.opt.seed, Options{}.seed);
    EXPECT_FALSE(r.opt.quiet);
}

TEST(ParseOptions, NoArgumentsLeavesTheCommandEmpty) {
    const Parsed r = parse({});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "");
}

TEST(ParseOptions, WordsAfterTheCommandArePositional) {
    const Parsed r = parse({"explain", "sgemm.05_register_blocking_2d"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "explain");
    EXPECT_EQ(r.opt.positional, (std::vector<std::string>{"sgemm.05_register_blocking_2d"}));
}

TEST(ParseOptions, ReadsEveryValuedOption) {
    const Parsed r = parse({"bench", "--kernels", "sgemm.*,hopper.*", "--mnk", "128,7x8x9", "--warmup", "5", "--iters",
                            "7", "--csv", "out.csv", "--json", "out.json", "--seed", "99", "--ops", "NT,TT",
                            "--max-seconds", "1.5", "--quiet"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.kernels, "sgemm.*,hopper.*");
    EXPECT_EQ(r.opt.shapes, (std::vector<Shape>{{128, 128, 128}, {7, 8, 9}}));
    EXPECT_EQ(r.opt.warmup, 5);
    EXPECT_EQ(r.opt.iters, 7);
    EXPECT_EQ(r.opt.csv, "out.csv");
    EXPECT_EQ(r.opt.json, "out.json");
    EXPECT_EQ(r.opt.seed, 99u);
    EXPECT_EQ(op_names(r.opt.ops), (std::vector<std::string>{"NT", "TT"}));
    EXPECT_DOUBLE_EQ(r.opt.max_seconds, 1.5);
    EXPECT_TRUE(r.opt.quiet);
}

TEST(ParseOptions, SamplesFileIsForBenchOnly) {
    const Parsed r = parse({"bench", "--samples", "calls.csv"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.samples, "calls.csv");
    EXPECT_EQ(parse({"bench"}).opt.samples, "");
    for (const char* command : {"tune", "verify", "rowmean-matvec"}) {
        const Parsed other = parse({command, "--samples", "calls.csv"});
        EXPECT_FALSE(other.ok) << command;
        EXPECT_NE(other.err.find("--samples"), std::string::npos) << other.err;
    }
    EXPECT_FALSE(parse({"bench", "--samples"}).ok);
}

TEST(ParseOptions, TuneReadsWriteAndDefaultsToNoFile) {
    const Parsed r = parse({"tune", "--write", "src/tuning/sgemm_table.csv", "--kernels", "sgemm.12_*"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "tune");
    EXPECT_EQ(r.opt.write, "src/tuning/sgemm_table.csv");
    EXPECT_EQ(r.opt.kernels, "sgemm.12_*");
    const Parsed bare = parse({"tune"});
    ASSERT_TRUE(bare.ok) << bare.err;
    EXPECT_EQ(bare.opt.write, "");
    EXPECT_FALSE(parse({"tune", "--write"}).ok);
}

TEST(ParseOptions, TuneReadsClassesAndDefaultsToAll) {
    const Parsed r = parse({"tune", "--classes", "*/NN,tiles>1024/*", "--write", "t.csv"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.classes, "*/NN,tiles>1024/*");
    EXPECT_TRUE(gemmkit::cli::matches_any(r.opt.classes, "tiles<=64/k<=1024/ragged/NN"));
    EXPECT_TRUE(gemmkit::cli::matches_any(r.opt.classes, "tiles>1024/k>1024/aligned/TT"));
    EXPECT_FALSE(gemmkit::cli::matches_any(r.opt.classes, "tiles<=64/k<=1024/ragged/NT"));
    EXPECT_EQ(parse({"tune"}).opt.classes, "*");
    EXPECT_FALSE(parse({"tune", "--classes"}).ok);
}

TEST(ParseOptions, OptionsMayComeBeforeTheCommand) {
    const Parsed r = parse({"--iters", "4", "bench"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "bench");
    EXPECT_EQ(r.opt.iters, 4);
    // ... and are still checked against it.
    const Parsed wrong = parse({"--iters", "4", "verify"});
    EXPECT_FALSE(wrong.ok);
    EXPECT_TRUE(contains(wrong.err, "--iters")) << wrong.err;
}

TEST(ParseOptions, SeparateMNKListsCombineIntoTheirProduct) {
    const Parsed r = parse({"verify", "--m", "1,2", "--n", "3", "--k", "4,5"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.shapes, (std::vector<Shape>{{1, 3, 4}, {1, 3, 5}, {2, 3, 4}, {2, 3, 5}}));
}

TEST(ParseOptions, MAloneGivesCubes) {
    const Parsed r = parse({"bench", "--m", "256:1024:x2"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.shapes, (std::vector<Shape>{{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}}));
}

TEST(ParseOptions, NOrKWithoutMIsAnError) {
    const Parsed r = parse({"bench", "--n", "64"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--m"));
}

TEST(ParseOptions, MnkTogetherWithMIsAnError) {
    const Parsed r = parse({"bench", "--mnk", "64", "--m", "32"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--mnk"));
}

TEST(ParseOptions, UnknownOptionIsNamed) {
    const Parsed r = parse({"bench", "--bogus", "1"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--bogus"));
}

TEST(ParseOptions, MissingValueIsNamed) {
    const Parsed r = parse({"bench", "--iters"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--iters"));
}

TEST(ParseOptions, NonNumericCountIsAnError) {
    for (const char* bad : {"abc", "7x", ""}) {
        const Parsed r = parse({"bench", "--iters", bad});
        EXPECT_FALSE(r.ok) << bad;
        EXPECT_TRUE(contains(r.err, "--iters")) << bad;
    }
}

// NaN and infinity are not counts; converting them to int is undefined behaviour.
TEST(ParseOptions, NanAndInfinityAreNotCounts) {
    for (const char* bad : {"nan", "inf"}) {
        EXPECT_FALSE(parse({"bench", "--iters", bad}).ok) << bad;
        EXPECT_FALSE(parse({"bench", "--warmup", bad}).ok) << bad;
    }
}

TEST(ParseOptions, CountsBelowTheirMinimumAreErrors) {
    EXPECT_FALSE(parse({"bench", "--iters", "0"}).ok);
    EXPECT_FALSE(parse({"bench", "--warmup", "-1"}).ok);
    EXPECT_TRUE(parse({"bench", "--warmup", "0"}).ok);
}

// A printed seed must reproduce the run: every 64-bit value has to survive parsing.
TEST(ParseOptions, SeedKeepsAll64Bits) {
    const Parsed r = parse({"verify", "--seed", "9007199254740993"});  // 2^53 + 1
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.seed, uint64_t{9007199254740993ull});
    const Parsed top = parse({"verify", "--seed", "18446744073709551615"});
    ASSERT_TRUE(top.ok) << top.err;
    EXPECT_EQ(top.opt.seed, UINT64_MAX);
}

TEST(ParseOptions, BadShapeListIsAnErrorNamingTheOption) {
    const Parsed r = parse({"bench", "--mnk", "1x2"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--mnk"));
    EXPECT_TRUE(contains(r.err, "1x2"));
}

TEST(ParseOptions, BadOpsIsAnError) {
    const Parsed r = parse({"bench", "--ops", "NX"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--ops"));
}

TEST(ParseOptions, CTypeDefaultsToSame) {
    const Parsed r = parse({"bench"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_FALSE(r.opt.c_f32);
}

TEST(ParseOptions, CTypeReadsSameAndF32) {
    const Parsed f32 = parse({"bench", "--c-type", "f32"});
    ASSERT_TRUE(f32.ok) << f32.err;
    EXPECT_TRUE(f32.opt.c_f32);
    const Parsed same = parse({"verify", "--c-type", "f32", "--c-type", "same"});  // the last one wins
    ASSERT_TRUE(same.ok) << same.err;
    EXPECT_FALSE(same.opt.c_f32);
}

// Each bad value of `option` is an error that names the option and quotes the value; the option
// without a value is one too.
void expect_bad_values(const char* option, std::initializer_list<const char*> bads) {
    for (const char* bad : bads) {
        const Parsed r = parse({"bench", option, bad});
        EXPECT_FALSE(r.ok) << bad;
        EXPECT_TRUE(contains(r.err, option)) << bad;
        EXPECT_TRUE(contains(r.err, std::string("'") + bad + "'")) << bad << ": " << r.err;
    }
    EXPECT_FALSE(parse({"bench", option}).ok);
}

TEST(ParseOptions, L2FlushWritesUnlessAskedToRead) {
    EXPECT_FALSE(parse({"bench"}).opt.flush_by_reading);
    const Parsed read = parse({"bench", "--l2-flush", "read"});
    ASSERT_TRUE(read.ok) << read.err;
    EXPECT_TRUE(read.opt.flush_by_reading);
    const Parsed write = parse({"tune", "--l2-flush", "read", "--l2-flush", "write"});  // the last one wins
    ASSERT_TRUE(write.ok) << write.err;
    EXPECT_FALSE(write.opt.flush_by_reading);
    expect_bad_values("--l2-flush", {"memset", "Read", "", "read,write"});
}

TEST(ParseOptions, BadCTypeIsAnErrorNamingTheOptionAndValue) {
    expect_bad_values("--c-type", {"f16", "F32", "", "same,f32"});
}

TEST(ParseOptions, HelpFlagsAskForHelpWithoutACommand) {
    for (const char* flag : {"--help", "-h"}) {
        const Parsed r = parse({flag});
        ASSERT_TRUE(r.ok) << flag << ": " << r.err;
        EXPECT_TRUE(r.opt.help) << flag;
        EXPECT_EQ(r.opt.command, "") << flag;
    }
    EXPECT_FALSE(parse({"bench"}).opt.help);
}

TEST(ParseOptions, HelpFlagsAfterACommandAskForItsHelp) {
    for (const char* flag : {"--help", "-h"}) {
        const Parsed r = parse({"bench", flag});
        ASSERT_TRUE(r.ok) << flag << ": " << r.err;
        EXPECT_TRUE(r.opt.help);
        EXPECT_EQ(r.opt.command, "bench");
    }
}

// Asking for help shows it even where the options given do not fit the command.
TEST(ParseOptions, HelpWinsOverOptionsTheCommandDoesNotTake) {
    const Parsed r = parse({"list", "--csv", "x.csv", "extra", "--help"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_TRUE(r.opt.help);
    EXPECT_EQ(r.opt.command, "list");
}

TEST(ParseOptions, HelpCommandTakesACommandName) {
    const Parsed r = parse({"help", "bench"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "help");
    EXPECT_EQ(r.opt.positional, (std::vector<std::string>{"bench"}));
    const Parsed bad = parse({"help", "bnch"});
    EXPECT_FALSE(bad.ok);
    EXPECT_TRUE(contains(bad.err, "'bnch'")) << bad.err;
}

TEST(ParseOptions, UnknownCommandIsNamed) {
    const Parsed r = parse({"bnch", "--mnk", "64"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "unknown command 'bnch'")) << r.err;
    EXPECT_EQ(r.opt.command, "");
}

// The issue's `gemmkit bench --mnk=4096`, which used to say "--mnk=4096 needs a value".
TEST(ParseOptions, NameEqualsValueForms) {
    const Parsed r = parse({"bench", "--mnk=4096,7x8x9", "--kernels=sgemm.0[45]*", "--iters=7", "--csv=out.csv"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.shapes, (std::vector<Shape>{{4096, 4096, 4096}, {7, 8, 9}}));
    EXPECT_EQ(r.opt.kernels, "sgemm.0[45]*");
    EXPECT_EQ(r.opt.iters, 7);
    EXPECT_EQ(r.opt.csv, "out.csv");
    // Only the first '=' separates: the value may hold more.
    EXPECT_EQ(parse({"tune", "--classes=tiles<=64/*"}).opt.classes, "tiles<=64/*");
}

TEST(ParseOptions, EmptyValueAfterEqualsIsCheckedLikeAnyValue) {
    const Parsed mnk = parse({"bench", "--mnk="});
    EXPECT_FALSE(mnk.ok);
    EXPECT_TRUE(contains(mnk.err, "--mnk")) << mnk.err;
    const Parsed csv = parse({"bench", "--csv="});
    EXPECT_FALSE(csv.ok);
    EXPECT_TRUE(contains(csv.err, "--csv: needs a file name")) << csv.err;
}

TEST(ParseOptions, FlagsTakeNoValue) {
    const Parsed r = parse({"bench", "--quiet=1"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--quiet takes no value")) << r.err;
}

// The issue's `gemmkit list --bogus`, which used to say "--bogus needs a value".
TEST(ParseOptions, UnknownOptionIsUnknownEvenWithoutAValue) {
    for (std::vector<const char*> args : {std::vector<const char*>{"list", "--bogus"},
                                          std::vector<const char*>{"list", "--bogus=3"},
                                          std::vector<const char*>{"--bogus", "list"}}) {
        const Parsed r = parse(args);
        EXPECT_FALSE(r.ok);
        EXPECT_EQ(r.err, "unknown option --bogus");
    }
}

TEST(ParseOptions, SingleDashOptionsAreUnknownWithAHint) {
    const Parsed r = parse({"bench", "-mnk", "64"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "unknown option -mnk; did you mean --mnk?")) << r.err;
    const Parsed x = parse({"bench", "-x"});
    EXPECT_FALSE(x.ok);
    EXPECT_EQ(x.err, "unknown option -x");
}

TEST(ParseOptions, MissingValueSaysWhatTheValueIs) {
    const Parsed r = parse({"bench", "--iters"});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.err, "--iters needs a value: --iters I");
}

// The issue: extra arguments were silently ignored.
TEST(ParseOptions, ExtraArgumentsAreNamed) {
    const Parsed list = parse({"list", "extra"});
    EXPECT_FALSE(list.ok);
    EXPECT_TRUE(contains(list.err, "unexpected argument 'extra'")) << list.err;
    EXPECT_TRUE(contains(list.err, "; list takes no arguments")) << list.err;
    const Parsed bench = parse({"bench", "--iters", "3", "4096"});  // --mnk forgotten
    EXPECT_FALSE(bench.ok);
    EXPECT_TRUE(contains(bench.err, "'4096'")) << bench.err;
    const Parsed explain = parse({"explain", "sgemm.01_naive", "sgemm.02_coalesced"});
    EXPECT_FALSE(explain.ok);
    EXPECT_TRUE(contains(explain.err, "'sgemm.02_coalesced'")) << explain.err;
    EXPECT_TRUE(contains(explain.err, "explain takes [KERNEL]")) << explain.err;
}

TEST(ParseOptions, DoubleDashEndsTheOptions) {
    const Parsed r = parse({"explain", "--", "-odd-name"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.positional, (std::vector<std::string>{"-odd-name"}));
}

TEST(ParseOptions, OptionsACommandDoesNotTakeAreErrors) {
    struct Case {
        const char* command;
        const char* option;
        const char* value;
    };
    for (const Case& c : {Case{"list", "--csv", "x.csv"}, Case{"verify", "--iters", "3"},
                          Case{"tune", "--mnk", "64"}, Case{"tune", "--json", "x.json"}, Case{"info", "--quiet", nullptr},
                          Case{"bench", "--type", "f32"}, Case{"bandwidth", "--l2-flush", "read"}}) {
        std::vector<const char*> args{c.command, c.option};
        if (c.value != nullptr) args.push_back(c.value);
        const Parsed r = parse(args);
        EXPECT_FALSE(r.ok) << c.command << " " << c.option;
        EXPECT_EQ(r.err, std::string(c.option) + " is not an option of " + c.command);
    }
}

// A failed parse still says which command it was for, so the error can point at its help.
TEST(ParseOptions, FailureKeepsTheCommandForTheHint) {
    const Parsed r = parse({"bench", "--bogus"});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.opt.command, "bench");
}

TEST(ParseOptions, PlanTakesTypeDeviceCorpusShapesAndOps) {
    const Parsed r =
        parse({"plan", "--mnk", "4096", "--type", "bf16.f32c", "--device=h200", "--corpus", "--ops", "NT"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.command, "plan");
    EXPECT_EQ(r.opt.type, "bf16.f32c");
    EXPECT_EQ(r.opt.device, "h200");
    EXPECT_TRUE(r.opt.corpus);
    EXPECT_EQ(r.opt.shapes, (std::vector<Shape>{{4096, 4096, 4096}}));
    EXPECT_EQ(op_names(r.opt.ops), (std::vector<std::string>{"NT"}));
    const Parsed bare = parse({"plan"});
    ASSERT_TRUE(bare.ok) << bare.err;
    EXPECT_EQ(bare.opt.type, "f16");
    EXPECT_EQ(bare.opt.device, "h100");
    EXPECT_FALSE(bare.opt.corpus);
    const Parsed lists = parse({"plan", "--m", "64,128", "--k", "32"});
    ASSERT_TRUE(lists.ok) << lists.err;
    EXPECT_EQ(lists.opt.shapes, (std::vector<Shape>{{64, 64, 32}, {128, 128, 32}}));
    EXPECT_FALSE(parse({"plan", "--type"}).ok);
    EXPECT_FALSE(parse({"plan", "--corpus=yes"}).ok);
}

TEST(ParseOptions, PlanTakesABatchOfOneOrMore) {
    EXPECT_EQ(parse({"plan", "--mnk", "128"}).opt.batch, 1);
    const Parsed r = parse({"plan", "--mnk", "128", "--batch", "512"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.batch, 512);
    EXPECT_FALSE(parse({"plan", "--batch", "0"}).ok);
    EXPECT_FALSE(parse({"bench", "--batch", "4"}).ok);  // plan's option only
}

// The tables are the grammar: a command word misspelt in an option's row would make the option
// silently unusable.
TEST(OptionTable, EveryCommandItNamesExistsAndEveryOptionIsUnique) {
    std::set<std::string> names;
    for (const gemmkit::cli::OptionSpec& o : gemmkit::cli::option_table()) {
        EXPECT_EQ(std::string(o.name).rfind("--", 0), 0u) << o.name;
        EXPECT_TRUE(names.insert(o.name).second) << o.name << " twice";
        EXPECT_NE(o.apply, nullptr) << o.name;
        std::istringstream words(o.commands);
        int count = 0;
        for (std::string w; words >> w; ++count) EXPECT_NE(gemmkit::cli::find_command(w), nullptr) << o.name << ": " << w;
        EXPECT_GT(count, 0) << o.name;
    }
}

TEST(Help, UsageListsEveryCommandAndOption) {
    const std::string u = gemmkit::cli::usage();
    for (const gemmkit::cli::CommandSpec& c : gemmkit::cli::command_table())
        EXPECT_TRUE(contains(u, std::string("\n  ") + c.name)) << c.name;
    for (const gemmkit::cli::OptionSpec& o : gemmkit::cli::option_table())
        EXPECT_TRUE(contains(u, std::string("\n  ") + o.name)) << o.name;
}

TEST(Help, ACommandsHelpListsOnlyItsOptions) {
    const std::string bench = gemmkit::cli::command_help(*gemmkit::cli::find_command("bench"));
    EXPECT_TRUE(contains(bench, "usage: gemmkit bench [options]")) << bench;
    EXPECT_TRUE(contains(bench, "--samples FILE")) << bench;
    EXPECT_FALSE(contains(bench, "--mib")) << bench;
    const std::string explain = gemmkit::cli::command_help(*gemmkit::cli::find_command("explain"));
    EXPECT_TRUE(contains(explain, "usage: gemmkit explain [KERNEL] [options]")) << explain;
    const std::string info = gemmkit::cli::command_help(*gemmkit::cli::find_command("info"));
    EXPECT_TRUE(contains(info, "usage: gemmkit info\n")) << info;
    EXPECT_FALSE(contains(info, "--")) << info;
}

TEST(Help, ErrorLineIsOneLineThatSaysWhereHelpIs) {
    const std::string bench = gemmkit::cli::error_line("bench", "unknown option --bogus");
    EXPECT_EQ(bench, "gemmkit bench: unknown option --bogus (see gemmkit bench --help)");
    const std::string none = gemmkit::cli::error_line("", "unknown command 'bnch'");
    EXPECT_EQ(none, "gemmkit: unknown command 'bnch' (see gemmkit help)");
    EXPECT_FALSE(contains(bench, "\n"));
}

// check_arguments: what needs no device is checked before it is touched.
const std::vector<std::string> kNames = {"sgemm.04_register_blocking_1d", "sgemm.05_register_blocking_2d",
                                         "sgemm.06_vectorized", "bf16.12_stream_k"};

std::string check_error(std::vector<const char*> args) {
    const Parsed r = parse(args);
    EXPECT_TRUE(r.ok) << r.err;
    std::string err;
    return gemmkit::cli::check_arguments(r.opt, kNames, &err) ? "" : err;
}

TEST(CheckArguments, EveryKernelGlobMustMatchAKernel) {
    EXPECT_EQ(check_error({"bench", "--kernels", "sgemm.0[45]*"}), "");
    EXPECT_EQ(check_error({"bench"}), "");
    EXPECT_EQ(check_error({"bench", "--kernels", "sgemm.0[45]*,sgem.*"}),
              "--kernels: 'sgem.*' matches no kernel (gemmkit list shows the names)");
    EXPECT_TRUE(contains(check_error({"list", "--kernels", "f16.*"}), "'f16.*'"));
    EXPECT_TRUE(contains(check_error({"bench", "--kernels", "sgemm.*,,bf16.*"}), "an empty pattern in 'sgemm.*,,bf16.*'"));
    EXPECT_TRUE(contains(check_error({"bench", "--kernels="}), "no pattern"));
}

// bench also times `auto`, the API's own choice; verify has no such contender.
TEST(CheckArguments, AutoIsAKernelOnlyForBench) {
    EXPECT_EQ(check_error({"bench", "--kernels", "auto"}), "");
    EXPECT_TRUE(contains(check_error({"verify", "--kernels", "auto"}), "'auto'"));
}

TEST(CheckArguments, ExplainChecksItsKernelArgument) {
    EXPECT_EQ(check_error({"explain", "sgemm.05*"}), "");
    EXPECT_EQ(check_error({"explain", "sgemm.5*"}), "'sgemm.5*' matches no kernel (gemmkit list shows the names)");
}

class CheckOutputs : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gemmkit_cli_test_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string path(const char* name) const { return (dir_ / name).string(); }
    std::filesystem::path dir_;
};

TEST_F(CheckOutputs, AWritableNewFileIsNotLeftBehind) {
    const std::string csv = path("bench.csv");
    EXPECT_EQ(check_error({"bench", "--csv", csv.c_str()}), "");
    EXPECT_FALSE(std::filesystem::exists(csv));
}

// tune --write reads the table it replaces: the check must not truncate it.
TEST_F(CheckOutputs, AnExistingFileIsKeptAsItWas) {
    const std::string table = path("table.csv");
    std::ofstream(table) << "class,kernel\nx,y\n";
    EXPECT_EQ(check_error({"tune", "--write", table.c_str()}), "");
    std::ifstream in(table);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "class,kernel\nx,y\n");
}

// The issue: a bad --csv path was found only after the whole run.
TEST_F(CheckOutputs, AMissingFolderIsAnErrorNamingTheOption) {
    const std::string csv = path("no/such/folder/bench.csv");
    const std::string err = check_error({"bench", "--csv", csv.c_str()});
    EXPECT_TRUE(contains(err, "--csv: cannot write '" + csv + "'")) << err;
    EXPECT_TRUE(contains(err, std::strerror(ENOENT))) << err;
}

TEST_F(CheckOutputs, EachOutputOptionIsChecked) {
    const std::string folder = dir_.string();
    EXPECT_EQ(check_error({"bench", "--json", folder.c_str()}), "--json: '" + folder + "' is a directory");
    EXPECT_TRUE(contains(check_error({"bench", "--samples", folder.c_str()}), "--samples"));
    EXPECT_TRUE(contains(check_error({"tune", "--write", folder.c_str()}), "--write"));
    EXPECT_TRUE(contains(check_error({"bandwidth", "--csv", folder.c_str()}), "--csv"));
}

// The issue: without a driver cudart says "CUDA driver version is insufficient for CUDA runtime
// version", which sends people to upgrade a driver they do not have.
TEST(NoDeviceReason, NoDriverSaysSoPlainly) {
    const std::string why = gemmkit::cli::no_device_reason(
        cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version", 0, 13000);
    EXPECT_EQ(why, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
}

TEST(NoDeviceReason, ADriverWithoutAGpu) {
    EXPECT_EQ(gemmkit::cli::no_device_reason(cudaErrorNoDevice, "no CUDA-capable device is detected", 13000, 13000),
              "the NVIDIA driver (CUDA 13.0) sees no GPU");
}

// Where the driver really is too old, the versions are the useful part.
TEST(NoDeviceReason, AnOldDriverNamesBothVersions) {
    EXPECT_EQ(gemmkit::cli::no_device_reason(cudaErrorInsufficientDriver, "insufficient", 12020, 13000),
              "the NVIDIA driver supports CUDA 12.2, older than the CUDA 13.0 runtime gemmkit is built with: update "
              "the driver");
}

TEST(NoDeviceReason, OtherErrorsKeepTheRuntimesWords) {
    EXPECT_EQ(gemmkit::cli::no_device_reason(cudaErrorDevicesUnavailable, "CUDA-capable device(s) is/are busy or "
                                             "unavailable", 13000, 13000),
              "the CUDA runtime reports: CUDA-capable device(s) is/are busy or unavailable");
}

}  // namespace
