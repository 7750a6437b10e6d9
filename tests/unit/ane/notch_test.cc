// The notch arithmetic, classes, lattices, chip detection and the host report, with
// values worked by hand from the seed and the doc.
#include "perfgate/ane/notch.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ane/ane_test_util.h"

namespace perfgate::ane {
namespace {

using test::Keys;

TEST(AneMath, BytesThatOverflowAreAShapeError) {
  // (cout / cores) * cin * 2 once wrapped: 2^31 x 2^31 x 2 is 2^63.
  auto b = BytesPerCore(int64_t{1} << 31, int64_t{1} << 31, 1, 2);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), "ane.bad_shape");
  EXPECT_FALSE(BytesPerCore(INT64_MAX, 2, 1, 2).ok());
  EXPECT_FALSE(DenseHits(INT64_MAX / 4, 64, 16).ok());
  // The largest weight accepted: 2^53 bytes.
  EXPECT_TRUE(BytesPerCore(int64_t{1} << 26, int64_t{1} << 26, 16, 2).ok());
  EXPECT_FALSE(BytesPerCore(int64_t{1} << 26, int64_t{1} << 27, 16, 2).ok());
  EXPECT_EQ(TotalFp16Bytes(INT64_MAX, 2), INT64_MAX);
}

TEST(AneMath, Fp16BytesPerCore) {
  // 4096 x 4096 / 16 cores x 2 bytes = 2 MiB exactly.
  EXPECT_EQ(*Fp16BytesPerCore(4096, 4096, 16), 2 * kMiB);
  EXPECT_EQ(*Fp16BytesPerCore(2048, 4096, 16), kMiB);
  EXPECT_EQ(*Fp16BytesPerCore(2016, 4096, 16), 1032192);  // 1 MiB - 16 KiB
  EXPECT_EQ(*Fp16BytesPerCore(2048, 4096, 32), kMiB / 2);
  EXPECT_EQ(*Fp16BytesPerCore(2048, 4096), kMiB);  // 16 cores by default
  EXPECT_EQ(*BytesPerCore(4096, 4096, 16, 1), kMiB);  // int8: 1 byte per weight
}

TEST(AneMath, Fp16BytesPerCoreErrors) {
  for (auto [cin, cout, cores] : std::vector<std::tuple<int64_t, int64_t, int>>{
           {0, 4096, 16}, {2048, 0, 16}, {-1, 4096, 16}, {2048, 4096, 0}, {2048, 4001, 16}, {2048, 4080, 32}}) {
    auto r = Fp16BytesPerCore(cin, cout, cores);
    ASSERT_FALSE(r.ok()) << cin << "x" << cout << "/" << cores;
    EXPECT_EQ(r.status().code(), "ane.bad_shape");
    EXPECT_NE(r.status().message().find("divisible by core count"), std::string::npos);
  }
}

TEST(AneMath, TotalBytesAndGbps) {
  EXPECT_EQ(TotalFp16Bytes(2048, 4096), 16777216);
  EXPECT_EQ(TotalFp16Bytes(2016, 4096), 16515072);
  // The seed's M5 reference: 46.7 vs 21.4 GB/s.
  EXPECT_NEAR(PayloadGbps(TotalFp16Bytes(2048, 4096), 785.5), 21.359, 0.001);
  EXPECT_NEAR(PayloadGbps(TotalFp16Bytes(2016, 4096), 353.8), 46.679, 0.001);
  EXPECT_EQ(PayloadGbps(100, 0), 0);
}

TEST(AneMath, ExactMiBPredicate) {
  EXPECT_TRUE(*OnPrefetchNotch(kMiB));
  EXPECT_TRUE(*OnPrefetchNotch(2 * kMiB));
  EXPECT_TRUE(*OnPrefetchNotch(8 * kMiB));
  EXPECT_FALSE(*OnPrefetchNotch(kMiB - 16384));
  EXPECT_FALSE(*OnPrefetchNotch(kMiB + 64));  // exact equality, not the ±16 KiB slow zone
  EXPECT_FALSE(*OnPrefetchNotch(kMiB / 2));   // k = max(1, round(0.5)) = 1
  EXPECT_FALSE(*OnPrefetchNotch(3 * kMiB / 2));
  EXPECT_FALSE(*OnPrefetchNotch(1));
  EXPECT_EQ(OnPrefetchNotch(0).status().code(), "ane.bad_shape");
  EXPECT_EQ(OnPrefetchNotch(-kMiB).status().code(), "ane.bad_shape");
}

TEST(AneMath, DistanceInLines) {
  EXPECT_EQ(OffsetFromNearestMiB(1032192), -16384);            // 2016 x 4096: -256 lines
  EXPECT_EQ(OffsetFromNearestMiB(*Fp16BytesPerCore(2052, 4096)), 2048);  // +32 lines
  EXPECT_EQ(OffsetFromNearestMiB(3 * kMiB), 0);
  EXPECT_EQ(OffsetFromNearestMiB(kMiB / 2), -kMiB / 2);  // nearest multiple is never 0 MiB
}

TEST(AneClasses, SeedThresholds) {
  EXPECT_EQ(ClassifyRatio(2.0, std::nullopt), NotchClass::kM3ClassNotch);
  EXPECT_EQ(ClassifyRatio(1.999, std::nullopt), NotchClass::kMilder1MiBSlowdown);
  EXPECT_EQ(ClassifyRatio(1.3, std::nullopt), NotchClass::kMilder1MiBSlowdown);
  EXPECT_EQ(ClassifyRatio(1.29, std::nullopt), NotchClass::kNoNotch);
  EXPECT_EQ(ClassifyRatio(1.0, 900), NotchClass::kNoNotch);
  EXPECT_EQ(ClassifyRatio(3.0, 5000), NotchClass::kHostDominatedInvalid);
  EXPECT_EQ(ClassifyRatio(3.0, 4999.9), NotchClass::kM3ClassNotch);
  EXPECT_EQ(ClassifyRatio(NAN, 100), NotchClass::kNoNotch);
}

TEST(AneClasses, M5ReferenceIsM3Class) {
  auto c = ClassifyPair(785.5, 353.8);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->ratio, 2.22, 0.005);
  EXPECT_EQ(c->notch_class, NotchClass::kM3ClassNotch);
  EXPECT_FALSE(c->borderline);
  EXPECT_EQ(c->borderline_edge, "");
}

TEST(AneClasses, M4SitsOnTheEdge) {
  // kasper0406: 840 vs 426 us = 1.97x, milder by 0.03.
  auto c = ClassifyPair(840, 426);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->ratio, 1.97, 0.005);
  EXPECT_EQ(c->notch_class, NotchClass::kMilder1MiBSlowdown);
  EXPECT_TRUE(c->borderline);
  EXPECT_NE(c->borderline_edge.find("m3_class_notch at 2"), std::string::npos) << c->borderline_edge;
  EXPECT_NE(c->borderline_edge.find("below"), std::string::npos);
  // A plain 1.97 too.
  EXPECT_TRUE(Classify(1.97, std::nullopt).borderline);
  EXPECT_EQ(Classify(1.97, std::nullopt).notch_class, NotchClass::kMilder1MiBSlowdown);
}

TEST(AneClasses, BorderlineEdges) {
  EXPECT_TRUE(Classify(2.04, std::nullopt).borderline);
  EXPECT_FALSE(Classify(2.06, std::nullopt).borderline);
  EXPECT_TRUE(Classify(1.26, std::nullopt).borderline);  // near the milder edge, below it
  EXPECT_EQ(Classify(1.26, std::nullopt).notch_class, NotchClass::kNoNotch);
  EXPECT_FALSE(Classify(1.61, std::nullopt).borderline);  // M3 Ultra 1.61x
  EXPECT_FALSE(Classify(2.63, std::nullopt).borderline);  // M3 article
  // The host-dominated edge, in us.
  Classification near = Classify(2.5, 4900);
  EXPECT_EQ(near.notch_class, NotchClass::kM3ClassNotch);
  EXPECT_TRUE(near.borderline);
  EXPECT_NE(near.borderline_edge.find("host_dominated_invalid at 5000 us"), std::string::npos);
  EXPECT_FALSE(Classify(2.5, 4000).borderline);
}

TEST(AneClasses, HostDominated) {
  auto c = ClassifyPair(5000, 1000);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->notch_class, NotchClass::kHostDominatedInvalid);
  EXPECT_EQ(ClassifyPair(12000, 11000)->notch_class, NotchClass::kHostDominatedInvalid);
}

TEST(AneClasses, ConfigurableThresholds) {
  Thresholds t;
  t.m3_class_ratio = 1.9;
  t.milder_ratio = 1.2;
  t.host_dominated_us = 20000;
  t.borderline_margin = 0;
  EXPECT_EQ(Classify(1.97, 8000, t).notch_class, NotchClass::kM3ClassNotch);
  EXPECT_FALSE(Classify(1.97, 8000, t).borderline);
  EXPECT_EQ(Classify(1.25, std::nullopt, t).notch_class, NotchClass::kMilder1MiBSlowdown);
  Thresholds bad;
  bad.milder_ratio = 2.5;
  EXPECT_EQ(bad.Validate().code(), "ane.bad_thresholds");
  EXPECT_EQ(ClassifyPair(2, 1, bad).status().code(), "ane.bad_thresholds");
  Thresholds negative;
  negative.borderline_margin = -1;
  EXPECT_FALSE(negative.Validate().ok());
}

TEST(AneClasses, BadTimings) {
  for (auto [on, off] : std::vector<std::pair<double, double>>{{0, 1}, {1, 0}, {-5, 3}, {NAN, 1}, {1, INFINITY}}) {
    auto c = ClassifyPair(on, off);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), "ane.bad_timing");
  }
}

TEST(AneClasses, OrderAndNames) {
  EXPECT_TRUE(AtLeast(NotchClass::kM3ClassNotch, NotchClass::kMilder1MiBSlowdown));
  EXPECT_TRUE(AtLeast(NotchClass::kMilder1MiBSlowdown, NotchClass::kMilder1MiBSlowdown));
  EXPECT_TRUE(AtLeast(NotchClass::kNoNotch, NotchClass::kNoNotch));
  EXPECT_FALSE(AtLeast(NotchClass::kNoNotch, NotchClass::kMilder1MiBSlowdown));
  EXPECT_FALSE(AtLeast(NotchClass::kMilder1MiBSlowdown, NotchClass::kM3ClassNotch));
  EXPECT_FALSE(AtLeast(NotchClass::kHostDominatedInvalid, NotchClass::kNoNotch));
  EXPECT_FALSE(AtLeast(NotchClass::kHostDominatedInvalid, NotchClass::kHostDominatedInvalid));
  EXPECT_FALSE(AtLeast(NotchClass::kM3ClassNotch, NotchClass::kHostDominatedInvalid));
  for (NotchClass c : {NotchClass::kNoNotch, NotchClass::kMilder1MiBSlowdown, NotchClass::kM3ClassNotch,
                       NotchClass::kHostDominatedInvalid}) {
    EXPECT_EQ(*ParseNotchClass(ToString(c)), c);
  }
  EXPECT_EQ(std::string(ToString(NotchClass::kMilder1MiBSlowdown)), "milder_1mib_slowdown");
  EXPECT_EQ(ParseNotchClass("m3_notch").status().code(), "ane.bad_class");
}

TEST(AneDenseHits, StockPairRows) {
  auto off = DenseHits(2016, 4096, 16);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->bytes_per_core, 1032192);
  EXPECT_DOUBLE_EQ(off->mib_per_core, 0.984375);
  EXPECT_FALSE(off->on_prefetch_notch);
  EXPECT_EQ(off->total_fp16_bytes, 16515072);
  EXPECT_DOUBLE_EQ(*off->mib_per_core_16, 0.984375);
  EXPECT_FALSE(*off->on_prefetch_notch_16);
  EXPECT_DOUBLE_EQ(*off->mib_per_core_32, 0.4921875);
  EXPECT_FALSE(*off->on_prefetch_notch_32);
  EXPECT_EQ(off->mib_offset_bytes, -16384);
  EXPECT_DOUBLE_EQ(off->mib_offset_lines, -256);

  auto on = DenseHits(2048, 4096, 16);
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->bytes_per_core, kMiB);
  EXPECT_DOUBLE_EQ(on->mib_per_core, 1.0);
  EXPECT_TRUE(on->on_prefetch_notch);
  EXPECT_TRUE(*on->on_prefetch_notch_16);
  EXPECT_DOUBLE_EQ(*on->mib_per_core_32, 0.5);
  EXPECT_FALSE(*on->on_prefetch_notch_32);  // the stock pair is off-lattice on a 32-core Ultra
  EXPECT_EQ(on->mib_offset_bytes, 0);
}

TEST(AneDenseHits, ViewsOnlyWhenDivisible) {
  auto p = DenseHits(2048, 4080, 16);  // 4080 = 16 x 255, not a multiple of 32
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->mib_per_core_16.has_value());
  EXPECT_FALSE(p->mib_per_core_32.has_value());
  EXPECT_FALSE(p->on_prefetch_notch_32.has_value());
  auto q = DenseHits(2048, 8192, 32);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->bytes_per_core, kMiB);
  EXPECT_TRUE(q->on_prefetch_notch);
  EXPECT_DOUBLE_EQ(*q->mib_per_core_16, 2.0);
  EXPECT_TRUE(*q->on_prefetch_notch_16);
  EXPECT_EQ(DenseHits(2048, 4000, 32)->mib_per_core_32.has_value(), true);  // 4000 = 32 x 125
}

TEST(AneLattice, DualLatticeIsTheSeeds) {
  const auto& l = DualLattice();
  ASSERT_EQ(l.size(), 5u);
  struct Row {
    const char* name;
    int cores;
    int64_t cout;
    std::vector<int64_t> cins;
    const char* note;
  };
  const Row want[] = {
      {"16c_stock_1mib", 16, 4096, {2016, 2048}, "single-cluster article pair; Ultra off-lattice (0.5 MiB/core)"},
      {"32c_1mib_cin2048", 32, 8192, {2016, 2048}, "32-core 1 MiB; Ultra milder_1mib_slowdown ~1.61x"},
      {"32c_1mib_cin4096", 32, 4096, {4032, 4096}, "same 1 MiB/32-core via Cin=4096; Ultra miss"},
      {"32c_2mib_cin8192", 32, 4096, {8128, 8192}, "32-core 2 MiB; Ultra milder_1mib_slowdown ~1.77x"},
      {"32c_2mib_cin4096", 32, 8192, {4032, 4096}, "same 2 MiB/32-core via Cin=4096; Ultra miss"},
  };
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_EQ(l[i].name, want[i].name);
    EXPECT_EQ(l[i].cores, want[i].cores);
    EXPECT_EQ(l[i].cout, want[i].cout);
    EXPECT_EQ(l[i].cins, want[i].cins);
    EXPECT_EQ(l[i].note, want[i].note);
  }
  EXPECT_EQ(StockScan().name, "16c_stock_1mib");
}

TEST(AneLattice, EveryScanIsOneOffAndOneOn) {
  const int64_t want_mib[] = {1, 1, 1, 2, 2};
  // The off point sits 16 KiB (256 lines) below, except 32c_2mib_cin4096: 32 KiB.
  const int64_t want_off_offset[] = {-16384, -16384, -16384, -16384, -32768};
  for (size_t i = 0; i < DualLattice().size(); ++i) {
    const LatticeScan& s = DualLattice()[i];
    SCOPED_TRACE(s.name);
    auto off = DenseHits(s.cins[0], s.cout, s.cores);
    auto on = DenseHits(s.cins[1], s.cout, s.cores);
    ASSERT_TRUE(off.ok() && on.ok());
    EXPECT_FALSE(off->on_prefetch_notch);
    EXPECT_TRUE(on->on_prefetch_notch);
    EXPECT_EQ(on->bytes_per_core, want_mib[i] * kMiB);
    EXPECT_EQ(off->mib_offset_bytes, want_off_offset[i]);
    // Doc risk 3: a 32-core lattice point is on the notch under a 16-core model too.
    if (s.cores == 32) {
      EXPECT_TRUE(*on->on_prefetch_notch_16);
    }
  }
}

TEST(AnePreset, ParseAndResolve) {
  EXPECT_EQ(*ParsePreset("stock"), Preset::kStock);
  EXPECT_EQ(*ParsePreset("dual"), Preset::kDual);
  EXPECT_EQ(*ParsePreset("auto"), Preset::kAuto);
  EXPECT_EQ(ParsePreset("ultra").status().code(), "ane.bad_preset");
  HostFacts ultra_facts{"Apple M3 Ultra", "Mac15,14", "", "", ""};
  ChipInfo ultra = ChipFromFacts(ultra_facts);
  ChipInfo plain = test::LinuxChip();
  EXPECT_EQ(ResolvePreset(Preset::kAuto, ultra, ""), Preset::kDual);
  EXPECT_EQ(ResolvePreset(Preset::kAuto, plain, ""), Preset::kStock);
  for (const char* label : {"m3u", "M1U", "m2u", "Ultra"}) EXPECT_EQ(ResolvePreset(Preset::kAuto, plain, label), Preset::kDual);
  EXPECT_EQ(ResolvePreset(Preset::kAuto, plain, "m4p"), Preset::kStock);
  EXPECT_EQ(ResolvePreset(Preset::kStock, ultra, "m3u"), Preset::kStock);
  EXPECT_EQ(ResolvePreset(Preset::kDual, plain, ""), Preset::kDual);
  EXPECT_EQ(ScansFor(Preset::kStock).size(), 1u);
  EXPECT_EQ(ScansFor(Preset::kDual).size(), 5u);
}

struct ChipCase {
  const char* brand;
  const char* model;
  const char* chip;
  int cores;
};

TEST(AneChip, FromCannedSysctl) {
  const ChipCase cases[] = {
      {"Apple M3 Ultra", "Mac15,14", "Apple M3 Ultra", 32},
      {"Apple M1 Ultra", "Mac13,2", "Apple M1 Ultra", 32},
      {"Apple M4 Pro", "Mac16,11", "Apple M4 Pro", 16},
      {"Apple M1 Max", "MacBookPro18,2", "Apple M1 Max", 16},
      {"Apple M5", "Mac17,2", "Apple M5", 16},
      {"Apple M3", "Mac15,12", "Apple M3", 16},
      {"", "Mac17,6", "Apple M5-class (hw.model)", 16},
      {"", "Mac16,10", "Apple M4-class (hw.model)", 16},
      {"", "Mac15,14", "Apple M3-class (hw.model)", 16},  // without a brand, an Ultra looks like 16 cores
      {"", "Mac14,3", "Apple M2-class (hw.model)", 16},
      {"", "Mac13,1", "Apple M1-class (hw.model)", 16},
      {"", "MacBookPro18,3", "Apple M1-class (hw.model)", 16},
      {"VirtualApple @ 2.50GHz", "VirtualMac2,1", "unknown", 16},
  };
  for (const ChipCase& c : cases) {
    SCOPED_TRACE(std::string(c.brand) + " / " + c.model);
    EXPECT_EQ(GuessChip(c.model, c.brand), c.chip);
    HostFacts f{c.brand, c.model, "macOS-15.3-arm64", "macOS 15.3 (24D60)", "3.11.2"};
    ChipInfo info = ChipFromFacts(f);
    EXPECT_EQ(info.guessed_chip, c.chip);
    EXPECT_EQ(info.guessed_ane_cores, c.cores);
    EXPECT_EQ(info.dual_cluster, c.cores >= 32);
    EXPECT_EQ(info.label, c.chip);
    EXPECT_EQ(info.unknown_reason.empty(), std::string(c.chip) != "unknown");
  }
  EXPECT_EQ(GuessAneCores("Apple M2 ULTRA"), 32);
  EXPECT_EQ(ChipFromFacts({"Apple M4", "Mac16,1", "", "", ""}, "m4-mini").label, "m4-mini");
}

TEST(AneChip, UnknownOnLinuxWithAReason) {
  ChipInfo c = test::LinuxChip();
  EXPECT_EQ(c.guessed_chip, "unknown");
  EXPECT_EQ(c.guessed_ane_cores, 16);
  EXPECT_NE(c.unknown_reason.find("not macOS"), std::string::npos) << c.unknown_reason;
  EXPECT_NE(c.unknown_reason.find("Linux 6.1.0"), std::string::npos) << c.unknown_reason;
  ChipInfo intel = ChipFromFacts({"Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", "MacBookPro16,1", "", "macOS 13.6", ""});
  EXPECT_EQ(intel.guessed_chip, "unknown");
  EXPECT_NE(intel.unknown_reason.find("Intel(R) Core(TM) i9"), std::string::npos);
}

#ifndef __APPLE__
TEST(AneChip, ThisLinuxHost) {
  ChipInfo c = DetectChip();
  EXPECT_EQ(c.guessed_chip, "unknown");
  EXPECT_EQ(c.hw_model, "");
  EXPECT_EQ(c.platform.rfind("Linux-", 0), 0u) << c.platform;
  EXPECT_EQ(c.os.rfind("Linux ", 0), 0u) << c.os;
  EXPECT_FALSE(c.unknown_reason.empty());
}
#endif

TEST(AneHostReport, SeedKeysAndReferences) {
  auto r = BuildHostReport({2016, 2048}, 4096, test::LinuxChip());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cores, 16);
  r->preset = Preset::kStock;
  auto j = nlohmann::ordered_json::parse(RenderHostReportJson(*r));
  EXPECT_EQ(Keys(j), (std::vector<std::string>{"article", "chip", "cores", "cout", "points", "dual_lattice", "compiler",
                                                "reference_m5_evalus", "reference_m3_article",
                                                "reference_m3_ultra_20260911", "preset"}));
  EXPECT_EQ(j["article"], "https://eiln.github.io/posts/ane-dma.html");
  auto chip_keys = Keys(j["chip"]);
  const std::vector<std::string> seed_chip = {"hw_model", "brand",  "platform", "guessed_chip",
                                              "guessed_ane_cores", "dual_cluster", "label", "python"};
  EXPECT_EQ(std::vector<std::string>(chip_keys.begin(), chip_keys.begin() + 8), seed_chip);
  EXPECT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(Keys(j["points"][0]),
            (std::vector<std::string>{"cin", "cout", "cores", "bytes_per_core", "mib_per_core", "on_prefetch_notch",
                                      "total_fp16_bytes", "mib_per_core_16", "on_prefetch_notch_16", "mib_per_core_32",
                                      "on_prefetch_notch_32", "mib_offset_bytes", "mib_offset_lines"}));
  EXPECT_EQ(j["points"][1]["on_prefetch_notch"], true);
  EXPECT_EQ(j["dual_lattice"].size(), 5u);
  EXPECT_EQ(Keys(j["dual_lattice"][0]), (std::vector<std::string>{"name", "cores", "cout", "cins", "note"}));
  EXPECT_EQ(j["compiler"]["has_1mib_kernel_dma_split_flag"], false);
  EXPECT_EQ(j["compiler"]["serialized_split_related"].size(), 10u);
  EXPECT_EQ(j["compiler"]["dropped_dma_split_candidates"],
            nlohmann::ordered_json({"SplitKernelDMA", "EnableKernelDMASplit", "MaxKernelDMASize",
                                    "AvoidOneMiBKernelDMA", "SplitCoeffBuffer"}));
  EXPECT_EQ(j["compiler"]["not_one_mib_dma_split"].size(), 9u);
  const auto& m5 = j["reference_m5_evalus"];
  EXPECT_EQ(m5["d2016_us"], 353.8);
  EXPECT_EQ(m5["d2048_us"], 785.5);
  EXPECT_EQ(m5["ratio"], 2.22);
  EXPECT_EQ(m5["gbps"], nlohmann::ordered_json({46.7, 21.4}));
  EXPECT_EQ(m5["class_name"], "m3_class_notch");
  EXPECT_EQ(m5["cores"], 16);
  const auto& m3 = j["reference_m3_article"];
  EXPECT_EQ(m3["d2016_gbps"], 44.5);
  EXPECT_EQ(m3["d2048_gbps"], 16.93);
  EXPECT_EQ(m3["ratio"], 2.63);
  const std::string ultra = j["reference_m3_ultra_20260911"]["note"];
  EXPECT_NE(ultra.find("8192x2048 ~1.61x (66 vs 42 GB/s)"), std::string::npos);
  EXPECT_NE(ultra.find("4096x8192 ~1.77x (89 vs 51 GB/s)"), std::string::npos);
  EXPECT_EQ(j["preset"], "stock");
  EXPECT_EQ(RenderHostReportJson(*r).back(), '\n');
}

TEST(AneHostReport, CoresFollowTheChipUnlessGiven) {
  ChipInfo ultra = ChipFromFacts({"Apple M3 Ultra", "Mac15,14", "", "", ""});
  auto r = BuildHostReport({2016, 2048}, 4096, ultra);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cores, 32);
  EXPECT_FALSE(r->points[1].on_prefetch_notch);  // 0.5 MiB per core
  auto forced = BuildHostReport({2016, 2048}, 4096, ultra, 16);
  EXPECT_TRUE(forced->points[1].on_prefetch_notch);
  EXPECT_EQ(BuildHostReport({}, 4096, ultra).status().code(), "ane.bad_shape");
  EXPECT_EQ(BuildHostReport({2048}, 4095, ultra, 16).status().code(), "ane.bad_shape");
}

TEST(AneAnalyze, PredicateRulePicksOnAndNearestOff) {
  std::vector<PointSamples> pts = {{1536, 4096, {316.5}}, {2016, 4096, {371.1}}, {2048, 4096, {995.4}}};
  auto r = Analyze(test::LinuxChip(), 16, pts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->on().dense.cin, 2048);
  EXPECT_EQ(r->off().dense.cin, 2016);  // nearest in bytes per core, not the first
  EXPECT_NEAR(r->ratio_on_over_off, 995.4 / 371.1, 1e-12);
  EXPECT_TRUE(r->ratio_2048_over_2016.has_value());
  EXPECT_EQ(r->classification.notch_class, NotchClass::kM3ClassNotch);
}

TEST(AneAnalyze, OrderDoesNotInvertThePredicateRatio) {
  std::vector<PointSamples> reversed = {{2048, 4096, {785.5}}, {2016, 4096, {353.8}}};
  auto pred = Analyze(test::LinuxChip(), 16, reversed);
  ASSERT_TRUE(pred.ok());
  EXPECT_NEAR(pred->ratio_on_over_off, 2.2202, 1e-4);
  AnalyzeOptions seed;
  seed.rule = OnOffRule::kPositional;
  auto pos = Analyze(test::LinuxChip(), 16, reversed, seed);
  ASSERT_TRUE(pos.ok());
  EXPECT_NEAR(pos->ratio_on_over_off, 353.8 / 785.5, 1e-12);  // the seed's inversion
  EXPECT_EQ(pos->classification.notch_class, NotchClass::kNoNotch);
}

TEST(AneAnalyze, Errors) {
  EXPECT_EQ(Analyze(test::LinuxChip(), 16, {{2048, 4096, {1}}}).status().code(), "ane.bad_scan");
  auto none_on = Analyze(test::LinuxChip(), 16, {{2000, 4096, {1}}, {2016, 4096, {1}}});
  EXPECT_EQ(none_on.status().code(), "ane.bad_scan");
  EXPECT_NE(none_on.status().message().find("exactly one point must be on the notch"), std::string::npos);
  EXPECT_EQ(Analyze(test::LinuxChip(), 16, {{2048, 4096, {1}}, {4096, 4096, {1}}}).status().code(), "ane.bad_scan");
  EXPECT_EQ(Analyze(test::LinuxChip(), 16, {{2016, 4096, {}}, {2048, 4096, {1}}}).status().code(), "ane.bad_timing");
  EXPECT_EQ(Analyze(test::LinuxChip(), 16, {{2016, 4096, {-1}}, {2048, 4096, {1}}}).status().code(), "ane.bad_timing");
  EXPECT_EQ(Analyze(test::LinuxChip(), 16, {{2016, 4095, {1}}, {2048, 4096, {1}}}).status().code(), "ane.bad_shape");
}

TEST(AneAnalyze, OverheadCorrection) {
  AnalyzeOptions o;
  o.overhead_us = {150, 160, 170};
  auto r = Analyze(test::LinuxChip(), 16, {{2016, 4096, {353.8}}, {2048, 4096, {785.5}}}, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->overhead.has_value());
  EXPECT_DOUBLE_EQ(r->overhead->median_us, 160);
  EXPECT_NEAR(*r->overhead->corrected_ratio, (785.5 - 160) / (353.8 - 160), 1e-12);  // 3.23x
  EXPECT_EQ(r->overhead->corrected->notch_class, NotchClass::kM3ClassNotch);
  o.overhead_us = {400};
  auto big = Analyze(test::LinuxChip(), 16, {{2016, 4096, {353.8}}, {2048, 4096, {785.5}}}, o);
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->overhead->corrected_ratio.has_value());
  EXPECT_NE(big->overhead->note.find("not below both medians"), std::string::npos);
}

TEST(AneAnalyze, MedianOfEvenAndOdd) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(Median({})));
}

}  // namespace
}  // namespace perfgate::ane
