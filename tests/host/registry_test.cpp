// The kernel table and the choices made from it. Everything here holds for any table
// contents, so adding a kernel is checked by these tests without editing them.
#include <cctype>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "registry.hpp"
#include "test_util.hpp"
#include "tuning/shape_class.hpp"
#include "tuning/tuning_table.hpp"

namespace {

using gemmkit::KernelInfo;
using gemmkit::Problem;
using gemmkit::registry;
using gemmkit::test::contains;
using gemmkit::test::fake_ptr;

const gemmkit_op kOps[] = {GEMMKIT_OP_N, GEMMKIT_OP_T};

std::string family_of(const char* name) { return std::string(name).substr(0, std::strcspn(name, ".")); }

// A 256-aligned problem of the given types, so alignment never keeps a kernel off its fast path.
Problem aligned_problem(gemmkit_dtype t, gemmkit_compute compute, gemmkit_op ta = GEMMKIT_OP_N,
                        gemmkit_op tb = GEMMKIT_OP_N) {
    Problem p;
    p.transa = ta, p.transb = tb;
    p.m = p.n = p.k = 256;
    p.lda = p.ldb = p.ldc = 256;
    p.a_type = p.b_type = p.c_type = t;
    p.compute = compute;
    p.A = fake_ptr<const void>(0x10000);
    p.B = fake_ptr<const void>(0x20000);
    p.C = fake_ptr<void>(0x30000);
    return p;
}

TEST(Registry, IsNotEmpty) { EXPECT_FALSE(registry().empty()); }

TEST(Registry, NamesAreUnique) {
    std::set<std::string> names;
    for (const KernelInfo& k : registry()) EXPECT_TRUE(names.insert(k.name).second) << k.name;
}

TEST(Registry, NamesAreFamilyDotTwoDigitStepUnderscoreTechnique) {
    const std::regex pattern("[a-z][a-z0-9]*\\.[0-9]{2}_[a-z0-9]+(_[a-z0-9]+)*");
    for (const KernelInfo& k : registry()) EXPECT_TRUE(std::regex_match(k.name, pattern)) << k.name;
}

// The step number in the name is the kernel's place in its ladder.
TEST(Registry, StepNumberInNameIsTheLevel) {
    for (const KernelInfo& k : registry()) {
        const char* dot = std::strchr(k.name, '.');
        ASSERT_NE(dot, nullptr) << k.name;
        EXPECT_EQ(std::stoi(std::string(dot + 1, 2)), k.level) << k.name;
    }
}

// "In family then ladder order": each family is one contiguous run with rising levels.
// Levels rise along a family; one step may register several configurations (the tuned
// step's tile shapes), which then share its level and its "<family>.<NN>_<technique>" stem.
TEST(Registry, FamiliesAreContiguousWithRisingLevels) {
    std::set<std::string> finished;
    std::string current, last_name;
    int last_level = 0;
    for (const KernelInfo& k : registry()) {
        const std::string family = family_of(k.name);
        if (family != current) {
            EXPECT_EQ(finished.count(family), 0u) << family << " appears in two runs";
            if (!current.empty()) finished.insert(current);
            current = family;
        } else if (k.level == last_level) {
            const std::string name = k.name;
            const std::string stem = name.substr(0, name.find('_', name.find('.') + 4));
            EXPECT_EQ(last_name.compare(0, stem.size(), stem), 0)
                << k.name << " shares level " << k.level << " with " << last_name << " but not its stem " << stem;
        } else {
            EXPECT_GT(k.level, last_level) << k.name;
        }
        last_level = k.level;
        last_name = k.name;
    }
}

TEST(Registry, EveryEntryIsComplete) {
    for (const KernelInfo& k : registry()) {
        SCOPED_TRACE(k.name);
        ASSERT_NE(k.description, nullptr);
        EXPECT_GT(std::strlen(k.description), 0u);
        ASSERT_NE(k.fast_path, nullptr);
        EXPECT_GT(std::strlen(k.fast_path), 0u);
        EXPECT_NE(k.supports, nullptr);
        EXPECT_NE(k.launch, nullptr);
        ASSERT_NE(k.entry, nullptr);
        EXPECT_NE(k.entry(), nullptr);
        EXPECT_GE(k.level, 1);
        EXPECT_GE(k.min_sm, 50);
        EXPECT_EQ(k.fast_ops & ~gemmkit::kAllOps, 0u);
        EXPECT_GE(k.dynamic_smem_bytes, 0);
    }
}

// The flag the GPU tests pick their copy shapes by agrees with what `gemmkit list` tells users: a
// row copies unaligned operands exactly when its fast path says "copied", or reads "as <row>" of
// a row that does.
TEST(Registry, RowsThatCopyUnalignedOperandsSaySo) {
    for (const KernelInfo& k : registry()) {
        const std::string fast_path = k.fast_path;
        bool says = fast_path.find("copied") != std::string::npos;
        if (fast_path.rfind("as ", 0) == 0) {
            const KernelInfo* same = gemmkit::find_kernel(fast_path.substr(3).c_str());
            ASSERT_NE(same, nullptr) << k.name << ": " << fast_path;
            says = same->copies_unaligned;
        }
        EXPECT_EQ(k.copies_unaligned, says) << k.name << ": " << fast_path;
    }
}

// serves_fast() takes a remainder by fast_alignment; it must be a positive power of two.
TEST(Registry, FastAlignmentIsAPositivePowerOfTwo) {
    for (const KernelInfo& k : registry()) {
        EXPECT_GT(k.fast_alignment, 0) << k.name;
        EXPECT_EQ(k.fast_alignment & (k.fast_alignment - 1), 0) << k.name;
    }
}

TEST(Registry, TileShapesArePositive) {
    for (const KernelInfo& k : registry()) {
        SCOPED_TRACE(k.name);
        EXPECT_GE(k.tile.BM, 1);
        EXPECT_GE(k.tile.BN, 1);
        EXPECT_GE(k.tile.BK, 1);
        EXPECT_GE(k.tile.threads, 32);
        EXPECT_LE(k.tile.threads, 1024);
    }
}

// (FP8 rows: A and B of their type, C of BF16, and the one op combination FP8 wgmma reads.)
TEST(Registry, EveryKernelSupportsAProblemOfItsOwnTypes) {
    for (const KernelInfo& k : registry()) {
        std::string why;
        Problem p = aligned_problem(k.dtype, k.compute);
        if (gemmkit::fp8(k.dtype)) p.c_type = GEMMKIT_R_16BF, p.transa = GEMMKIT_OP_T;
        EXPECT_TRUE(k.supports(p, &why)) << k.name << ": " << why;
    }
}

// The plan asks a row's supports() only where A or B has the row's dtype (plan.cpp,
// types_may_match): no row may run a problem with neither. Every row, every combination of types
// for A, B and C, every compute type, ops NN and TN (FP8's); grouped rows a grouped call.
TEST(Registry, EveryRowRunsOnlyProblemsWithAOrBOfItsType) {
    const gemmkit_dtype types[] = {GEMMKIT_R_32F,  GEMMKIT_R_64F,     GEMMKIT_R_16F,
                                   GEMMKIT_R_16BF, GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2};
    const gemmkit_compute computes[] = {GEMMKIT_COMPUTE_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, GEMMKIT_COMPUTE_64F};
    int served = 0;
    for (const KernelInfo& k : registry())
        for (gemmkit_dtype a : types)
            for (gemmkit_dtype b : types)
                for (gemmkit_dtype c : types)
                    for (gemmkit_compute compute : computes)
                        for (gemmkit_op ta : kOps) {
                            Problem p = aligned_problem(a, compute, ta);
                            p.b_type = b, p.c_type = c;
                            if (k.groups) p.groups = {fake_ptr<const int32_t>(0x40000), 1};
                            std::string why;
                            if (!gemmkit::row_supports(k, p, &why)) continue;
                            ++served;
                            EXPECT_TRUE(k.dtype == a || k.dtype == b)
                                << k.name << " runs A/B/C = " << gemmkit::dtype_name(a) << "/"
                                << gemmkit::dtype_name(b) << "/" << gemmkit::dtype_name(c);
                        }
    EXPECT_GT(served, static_cast<int>(registry().size()));  // the grid reaches the rows at all
}

TEST(Registry, EveryKernelRefusesForeignTypesAndSaysWhy) {
    for (const KernelInfo& k : registry()) {
        const gemmkit_dtype other = k.dtype == GEMMKIT_R_64F ? GEMMKIT_R_16F : GEMMKIT_R_64F;
        std::string why;
        EXPECT_FALSE(k.supports(aligned_problem(other, k.compute), &why)) << k.name;
        EXPECT_FALSE(why.empty()) << k.name;
    }
}

TEST(FindKernel, FindsEveryRegisteredNameExactly) {
    for (const KernelInfo& k : registry()) {
        const std::string copy = k.name;  // a different pointer with the same text
        EXPECT_EQ(gemmkit::find_kernel(copy.c_str()), &k);
    }
}

TEST(FindKernel, UnknownPrefixCaseAndNullGiveNull) {
    EXPECT_EQ(gemmkit::find_kernel("sgemm.99_nothing"), nullptr);
    EXPECT_EQ(gemmkit::find_kernel(""), nullptr);
    EXPECT_EQ(gemmkit::find_kernel(nullptr), nullptr);
    const std::string first = registry().front().name;
    EXPECT_EQ(gemmkit::find_kernel(first.substr(0, first.size() - 1).c_str()), nullptr);
    EXPECT_EQ(gemmkit::find_kernel((first + "x").c_str()), nullptr);
    std::string upper = first;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(gemmkit::find_kernel(upper.c_str()), nullptr);
}

// A kernel made up for the test: fast only for NN with 16-byte alignment.
KernelInfo nn_only_16_byte() {
    KernelInfo k = registry().front();
    k.fast_ops = gemmkit::op_bit(GEMMKIT_OP_N, GEMMKIT_OP_N);
    k.fast_alignment = 16;
    return k;
}

TEST(ServesFast, OpBitsAreDistinctAndCoverAllOps) {
    std::set<unsigned> bits;
    unsigned all = 0;
    for (gemmkit_op a : kOps)
        for (gemmkit_op b : kOps) {
            const unsigned bit = gemmkit::op_bit(a, b);
            EXPECT_EQ(bit & (bit - 1), 0u);
            bits.insert(bit);
            all |= bit;
        }
    EXPECT_EQ(bits.size(), 4u);
    EXPECT_EQ(all, gemmkit::kAllOps);
}

TEST(ServesFast, RespectsFastOpsBits) {
    const KernelInfo k = nn_only_16_byte();
    for (gemmkit_op a : kOps)
        for (gemmkit_op b : kOps) {
            const bool nn = a == GEMMKIT_OP_N && b == GEMMKIT_OP_N;
            EXPECT_EQ(gemmkit::serves_fast(k, aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, a, b)), nn)
                << gemmkit::ops_name(a, b);
        }
}

TEST(ServesFast, NoFastOpsServesNothing) {
    KernelInfo k = nn_only_16_byte();
    k.fast_ops = 0;
    EXPECT_FALSE(gemmkit::serves_fast(k, aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F)));
}

TEST(ServesFast, RequiresPointerAlignment) {
    const KernelInfo k = nn_only_16_byte();
    Problem p = aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F);
    ASSERT_TRUE(gemmkit::serves_fast(k, p));
    p.B = fake_ptr<const void>(0x20004);
    EXPECT_FALSE(gemmkit::serves_fast(k, p));
}

// lda = 258 floats = 1032 bytes: column starts are only 8-byte aligned.
TEST(ServesFast, RequiresLeadingDimensionAlignmentInBytes) {
    const KernelInfo k = nn_only_16_byte();
    Problem p = aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F);
    p.lda = 258;
    EXPECT_FALSE(gemmkit::serves_fast(k, p));
    p.lda = 260;
    EXPECT_TRUE(gemmkit::serves_fast(k, p));
    p.a_type = GEMMKIT_R_64F;  // 258 doubles = 2064 bytes, a multiple of 16
    p.lda = 258;
    EXPECT_TRUE(gemmkit::serves_fast(k, p));
}

// Stage 1 of the rule in registry.hpp: the tuning table's kernel for an FP32 problem's shape
// class, when it is registered, supports p and runs on sm; nullptr otherwise.
const KernelInfo* tuned_kernel(const Problem& p, int sm) {
    if (p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F ||
        p.compute != GEMMKIT_COMPUTE_32F)
        return nullptr;
    const KernelInfo* k = gemmkit::find_kernel(gemmkit::tuning::tuned_kernel_for(gemmkit::tuning::shape_class(p)));
    std::string ignored;
    return k != nullptr && k->min_sm <= sm && k->supports(p, &ignored) ? k : nullptr;
}

// The rule plan_gemm states (src/plan/plan.cpp), checked against the table for one problem and sm.
void expect_choice_follows_the_rule(const Problem& p, int sm) {
    std::string why;
    const KernelInfo* chosen = gemmkit::choose_kernel(p, sm, &why);
    if (const KernelInfo* tuned = tuned_kernel(p, sm)) {
        ASSERT_NE(chosen, nullptr) << why;
        EXPECT_EQ(chosen, tuned) << chosen->name << " chosen; the tuning table says " << tuned->name;
        return;
    }
    const KernelInfo* best_fast = nullptr;
    const KernelInfo* best_any = nullptr;
    for (const KernelInfo& k : registry()) {
        std::string ignored;
        if (!k.serves_auto || k.min_sm > sm || !gemmkit::row_supports(k, p, &ignored)) continue;  // as plan.cpp's runs_on
        if (best_any == nullptr || k.level > best_any->level) best_any = &k;
        if (gemmkit::serves_fast(k, p) && (best_fast == nullptr || k.level > best_fast->level)) best_fast = &k;
    }
    if (best_any == nullptr) {
        EXPECT_EQ(chosen, nullptr);
        EXPECT_FALSE(why.empty());
        return;
    }
    ASSERT_NE(chosen, nullptr) << why;
    std::string reason;
    EXPECT_TRUE(chosen->supports(p, &reason)) << chosen->name << ": " << reason;
    EXPECT_LE(chosen->min_sm, sm) << chosen->name;
    if (best_fast != nullptr) {
        EXPECT_TRUE(gemmkit::serves_fast(*chosen, p)) << chosen->name << " is not fast, " << best_fast->name << " is";
        EXPECT_EQ(chosen->level, best_fast->level) << chosen->name;
    } else {
        EXPECT_EQ(chosen->level, best_any->level) << chosen->name;
    }
}

TEST(ChooseKernel, PicksAKernelForEveryFp32OpCombination) {
    for (gemmkit_op a : kOps)
        for (gemmkit_op b : kOps) {
            SCOPED_TRACE(gemmkit::ops_name(a, b));
            const Problem p = aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, a, b);
            std::string why;
            const KernelInfo* k = gemmkit::choose_kernel(p, 90, &why);
            ASSERT_NE(k, nullptr) << why;
            expect_choice_follows_the_rule(p, 90);
        }
}

// With unaligned pointers and odd leading dimensions a fast-path kernel may drop out; the
// choice must still be a supporting kernel: the tuning table's for FP32, else the fastest left.
TEST(ChooseKernel, FollowsTheRuleForUnalignedFp32Problems) {
    for (gemmkit_op a : kOps)
        for (gemmkit_op b : kOps) {
            SCOPED_TRACE(gemmkit::ops_name(a, b));
            Problem p = aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, a, b);
            p.A = fake_ptr<const void>(0x10004);
            p.lda = p.ldb = p.ldc = 257;
            expect_choice_follows_the_rule(p, 90);
        }
}

TEST(ChooseKernel, FollowsTheRuleOnOlderArchitectures) {
    for (int sm : {50, 70, 80, 86, 89, 90, 100}) {
        SCOPED_TRACE(sm);
        expect_choice_follows_the_rule(aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F), sm);
        expect_choice_follows_the_rule(aligned_problem(GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F), sm);
    }
}

TEST(ChooseKernel, FollowsTheRuleForEveryTypeAndCompute) {
    for (gemmkit_dtype t : {GEMMKIT_R_32F, GEMMKIT_R_64F, GEMMKIT_R_16F, GEMMKIT_R_16BF})
        for (gemmkit_compute c : {GEMMKIT_COMPUTE_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, GEMMKIT_COMPUTE_64F}) {
            SCOPED_TRACE(std::string(gemmkit::dtype_name(t)) + " compute " + std::to_string(c));
            expect_choice_follows_the_rule(aligned_problem(t, c), 90);
        }
}

TEST(ChooseKernel, NothingRunsBelowEveryMinimumSm) {
    std::string why;
    EXPECT_EQ(gemmkit::choose_kernel(aligned_problem(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F), 10, &why), nullptr);
    EXPECT_TRUE(contains(why, "sm_10"));
}

// No kernel takes three different storage types; the message names what was asked for.
TEST(ChooseKernel, MixedTypesNobodyServesGiveNullAndAReason) {
    Problem p = aligned_problem(GEMMKIT_R_16F, GEMMKIT_COMPUTE_64F);
    p.b_type = GEMMKIT_R_64F;
    p.c_type = GEMMKIT_R_16BF;
    std::string why;
    EXPECT_EQ(gemmkit::choose_kernel(p, 90, &why), nullptr);
    EXPECT_TRUE(contains(why, "f16"));
    EXPECT_TRUE(contains(why, "bf16"));
}

// Today only the FP32 ladder is registered; once an f16 kernel exists this becomes the
// general rule above, so it only asserts the message when nothing serves f16.
TEST(ChooseKernel, HalfDataWithoutHalfKernelsGivesNullAndAReason) {
    const Problem p = aligned_problem(GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F);
    bool any_f16 = false;
    for (const KernelInfo& k : registry()) {
        std::string ignored;
        any_f16 = any_f16 || k.supports(p, &ignored);
    }
    std::string why;
    const KernelInfo* k = gemmkit::choose_kernel(p, 90, &why);
    if (any_f16) {
        EXPECT_NE(k, nullptr);
    } else {
        EXPECT_EQ(k, nullptr);
        EXPECT_TRUE(contains(why, "f16"));
    }
}

}  // namespace
