#!/bin/bash
# The H200 run that made fixtures/recordings/cuda_decode_h200 (issue 16), through the
# `device` tool from the repository root, with .devbin/ carried (perfgate,
# libperfgate_cupti.so, cuda_probe and libsqlite3.so.0 built on the developer machine):
#   bash tools/recordings/record_cuda_decode_h200.sh [STEP...]   ($OUT: where results go)
# STEPs (default: all, in this order): eager graphs kineto no_tracer dump probe. Every
# step tars its results into $OUT as soon as it ends. The fixtures came from two calls:
# `... eager graphs kineto no_tracer dump probe` (whose graphs trials fell back to a
# hand-captured graph: the target's profiler check could not see CUDA graphs with the
# tracer holding CUPTI), then `... graphs dump` after that check was skipped under the tracer.
set -u
B=$PWD/.devbin
P=$B/perfgate
T=$B/libperfgate_cupti.so
W=/tmp/rec
mkdir -p $W
exec > >(tee $OUT/log.txt) 2>&1
export PYTHONUNBUFFERED=1
CUPTI_DIR=$(python3 -c 'import glob,os,nvidia; p=[g for d in nvidia.__path__ for g in glob.glob(os.path.join(d,"**","libcupti.so.13"),recursive=True)]; print(os.path.dirname(p[0]) if p else "")')
export LD_LIBRARY_PATH=$B:$CUPTI_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TARGET="python3 tools/recordings/cuda_decode_target.py"
echo "== env"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
python3 -c 'import torch,transformers;print("torch",torch.__version__,"cuda",torch.version.cuda,"transformers",transformers.__version__)'
$P --version
pack() { (cd $W && tar cf $OUT/$1.tar "${@:2}") ; ls -la $OUT/$1.tar; }
attribute() { $P attribute --trace "$@" --window label:decode_step --tokens auto:decode_step --all-processes 2>&1 | sed -n '1,/^BUCKET/p' | tail -12; }

STEPS=${*:-eager graphs kineto no_tracer dump probe}
has() { [[ " $STEPS " == *" $1 "* ]]; }

if has eager; then
echo "== 1. perfgate record --backend cuda: eager and graphs, 3 trials each"
$P record --backend cuda --tracer $T --engine eager --trials 3 --tokens 64 --out $W/cuda_decode_h200 \
  -- $TARGET --mode eager --tokens '{tokens}'; echo "rc=$?"
pack tracer_eager cuda_decode_h200/eager
attribute eager=$W/cuda_decode_h200/eager
fi
if has graphs; then
$P record --backend cuda --tracer $T --engine graphs --trials 3 --tokens 64 --out $W/cuda_decode_h200 \
  --env TORCHINDUCTOR_COMPILE_THREADS=1 -- $TARGET --mode graphs --tokens '{tokens}'; echo "rc=$?"
pack tracer_graphs cuda_decode_h200/graphs
attribute graphs=$W/cuda_decode_h200/graphs
fi

if has kineto; then
echo "== 2. the PyTorch profiler reference, one trial of each mode"
for m in eager graphs; do
  mkdir -p $W/cuda_decode_h200_kineto/$m/trial-1
  TORCHINDUCTOR_COMPILE_THREADS=1 $TARGET --mode $m --kineto $W/cuda_decode_h200_kineto/$m/trial-1/trace.json.gz \
    | tail -1 | tee $W/cuda_decode_h200_kineto/$m/trial-1/target.json
  attribute $m=$W/cuda_decode_h200_kineto/$m
done
pack kineto cuda_decode_h200_kineto
fi

if has no_tracer; then
echo "== 3. without the tracer, 3 runs of each mode"
for m in eager graphs; do for k in 1 2 3; do
  TORCHINDUCTOR_COMPILE_THREADS=1 $TARGET --mode $m | tail -1 | tee -a $OUT/no_tracer.jsonl
done; done
fi

if has dump; then
echo "== 4. raw records of a tiny graphs decode, for the conversion tests"
mkdir -p $W/dump && (cd $W/dump && PERFGATE_CUPTI_DUMP_RECORDS=1 PERFGATE_CUPTI_OUTPUT_DIR=$W/dump CUDA_INJECTION64_PATH=$T \
  NVTX_INJECTION64_PATH=$T TORCHINDUCTOR_COMPILE_THREADS=1 python3 $OLDPWD/tools/recordings/cuda_decode_target.py \
  --mode graphs --layers 1 --tokens 2 --warmup 0 | tail -1; ls -la; cat *.log)
pack dump dump
fi

if has probe; then
echo "== 5. cuda_probe: a flush at cudaDeviceReset, and a crash that must leave the trial INCOMPLETE"
$P record --backend cuda --tracer $T --engine probe-reset --trials 1 --tokens 4 --out $W/probe -- $B/cuda_probe reset 4; echo "rc=$?"
$P record --backend cuda --tracer $T --engine probe-crash --trials 1 --tokens 4 --out $W/probe -- $B/cuda_probe crash 4; echo "rc=$? (expected non-zero)"
ls -la $W/probe/*/trial-1; cat $W/probe/probe-crash/trial-1/INCOMPLETE
pack probe probe
fi
ls -la $OUT; date -u
