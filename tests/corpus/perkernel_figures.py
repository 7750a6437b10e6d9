#!/usr/bin/env python3
"""Independent figures of the per-kernel timing reports in shared/corpus/hf2q/, for
suites/candle_vs_llama_kernels (and tests/unit/kernel_report/).

Reads each report with the standard library only (json, numbers as Decimal so that sums
are exact) and prints, per report: the kernel count, the summed us_per_token_median and
calls_per_token_median, and per family the summed us/token, its share of the total and
its kernel count. Families follow the rule the README states for `perfgate
kernel-report`, re-implemented here: drop the name from the first '_'-separated part
holding '='; strip "kernel_"; the first rule whose prefix starts the rest names the
family (the seed's table, then <no_pipeline_set>, gemm_, sdpa_, steel_attention,
softmax, soft_max); else other_<first word>. With two reports (ENGINE BASELINE) it
also prints per family the engine-minus-baseline us/token, the family with the largest
positive one (the attack target), and per kernel matched on both sides the engine's and
the baseline's us_per_call_median and their difference in percent. When a report
says its timer left dispatches untimed (instrumentation_notes.overflow_count > 0), it
also prints the attack target per call: over kernels matched on both sides with one
original each, (engine - baseline us_per_call_median) x baseline calls_per_token_median,
summed per family (the baseline's family), the largest positive sum.

Usage: python3 tests/corpus/perkernel_figures.py ENGINE.json [BASELINE.json]
"""
import decimal
import json
import sys

SEED_RULES = [
    ("mul_mm_id_map0", "moe_map0"), ("mul_mm_id_q4_0_tensor", "moe_q4_0_mm"),
    ("mul_mm_id_q5_K_tensor", "moe_q5_K_mm"), ("mul_mm_id_q6_K_tensor", "moe_q6_K_mm"),
    ("mul_mm_id", "moe_mm"), ("mul_mv_id_q4_0", "moe_q4_0_mv"), ("mul_mv_id_q5_K", "moe_q5_K_mv"),
    ("mul_mv_id_q6_K", "moe_q6_K_mv"), ("mul_mv_id_q8_0", "moe_q8_0_mv"), ("mul_mv_id", "moe_mv"),
    ("mul_mm_q4_0_tensor", "dense_q4_0_mm"), ("mul_mm_q5_K_tensor", "dense_q5_K_mm"),
    ("mul_mm_q6_K_tensor", "dense_q6_K_mm"), ("mul_mm_q8_0_tensor", "dense_q8_0_mm"), ("mul_mm", "dense_mm"),
    ("mul_mv_q4_0", "dense_q4_0_mv"), ("mul_mv_q5_K", "dense_q5_K_mv"), ("mul_mv_q6_K", "dense_q6_K_mv"),
    ("mul_mv_q8_0", "dense_q8_0_mv"), ("mul_mv", "dense_mv"), ("flash_attn", "flash_attn"),
    ("rms_norm", "rms_norm"), ("rope", "rope"), ("silu", "silu"), ("swiglu", "swiglu"),
    ("kv_cache_copy", "kv_cache"), ("argmax", "argmax"), ("permute", "permute"), ("cast", "cast"),
    ("residual_add", "residual_add"), ("fused_norm", "fused_norm"),
]
REPORT_RULES = [("<no_pipeline_set>", "no_pipeline"), ("gemm_", "dense_gemm"), ("sdpa_", "sdpa"),
                ("steel_attention", "sdpa"), ("softmax", "softmax"), ("soft_max", "softmax")]


def matched(name):
    parts = name.split("_")
    for i, part in enumerate(parts):
        if "=" in part:
            return "_".join(parts[:i])
    return name


def family(name):
    body = matched(name)
    if body.startswith("kernel_"):
        body = body[len("kernel_"):]
    for prefix, fam in SEED_RULES + REPORT_RULES:
        if body.startswith(prefix):
            return fam
    return "other_" + body.split("_")[0]


def load(path):
    with open(path) as f:
        return json.load(f, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def families(report):
    out = {}
    for k in report["kernels"]:
        us, n = out.get(family(k["name"]), (decimal.Decimal(0), 0))
        out[family(k["name"])] = (us + k["us_per_token_median"], n + 1)
    return out


def print_report(label, report):
    total = sum(k["us_per_token_median"] for k in report["kernels"])
    calls = sum(k["calls_per_token_median"] for k in report["kernels"])
    print(f"{label}: {report['stack']}: kernels {len(report['kernels'])}, us_per_token {total}, "
          f"calls_per_token {calls}")
    for fam, (us, n) in sorted(families(report).items(), key=lambda kv: -kv[1][0]):
        print(f"  family {fam}: us_per_token {us}, share {100 * us / total:.4f} %, kernels {n}")


def print_comparison(engine, baseline):
    e, b = families(engine), families(baseline)
    deltas = {f: e.get(f, (0, 0))[0] - b.get(f, (0, 0))[0] for f in set(e) | set(b)}
    for fam, d in sorted(deltas.items(), key=lambda kv: -kv[1]):
        print(f"  delta {fam}: {d}")
    best = max(deltas.items(), key=lambda kv: kv[1])
    print("attack target:", best[0] if best[1] > 0 else "none")
    by_match = {}
    for side, report in (("engine", engine), ("baseline", baseline)):
        for k in report["kernels"]:
            by_match.setdefault(matched(k["name"]), {}).setdefault(side, []).append(k)
    for name, sides in sorted(by_match.items()):
        if len(sides.get("engine", [])) == 1 and len(sides.get("baseline", [])) == 1:
            ec, bc = sides["engine"][0]["us_per_call_median"], sides["baseline"][0]["us_per_call_median"]
            print(f"  per call {name}: engine {ec}, baseline {bc}, delta {100 * (ec - bc) / bc:.4f} %")
    untimed = [int(r.get("instrumentation_notes", {}).get("overflow_count", 0)) for r in (engine, baseline)]
    if max(untimed) > 0:
        gaps = {}
        for name, sides in by_match.items():
            if len(sides.get("engine", [])) == 1 and len(sides.get("baseline", [])) == 1:
                ek, bk = sides["engine"][0], sides["baseline"][0]
                gap = (ek["us_per_call_median"] - bk["us_per_call_median"]) * bk["calls_per_token_median"]
                gaps[family(bk["name"])] = gaps.get(family(bk["name"]), 0) + gap
        for fam, g in sorted(gaps.items(), key=lambda kv: -kv[1]):
            print(f"  per-call gap {fam}: {g}")
        best = max(gaps.items(), key=lambda kv: kv[1]) if gaps else (None, 0)
        print(f"untimed dispatches: engine {untimed[0]}, baseline {untimed[1]}")
        print("attack target per call:", best[0] if best[1] > 0 else "none")


def main(argv):
    reports = [load(p) for p in argv[1:3]]
    if not reports:
        sys.exit(__doc__)
    for label, report in zip(("engine", "baseline"), reports):
        print_report(label, report)
    if len(reports) == 2:
        print_comparison(*reports)


if __name__ == "__main__":
    main(sys.argv)
