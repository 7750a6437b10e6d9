#!/usr/bin/env python3
"""Generate the ANE KernelDMA notch probe's model: a 1x1 fp16 convolution.

    python3 model_gen.py --cin 2048 --cout 4096 --out DIR

writes DIR/model.mlpackage, compiles it to DIR/model.mlmodelc, and writes
DIR/perfgate_io.json ({"cin": ..., "cout": ...}) for the eval host. Exit status 0 on
success; any failure prints a message on stderr and exits non-zero (3 when
coremltools or numpy is missing), which perfgate reports as ane.model_gen_failed.

The model is the seed's: input x fp16 (1, Cin, 1, 1); weight (Cout, Cin, 1, 1) filled
with fp16 0.001; conv (valid padding, stride 1), then an identity named y; opset and
minimum deployment target iOS18; the default pass pipeline minus
common::fuse_conv_scale and common::fuse_conv_bias; mlprogram at FLOAT16 with
skip_model_load.

UNTESTED: this script has never run (it was written on Linux, where coremltools
cannot compile models). Only its command line is exercised, through a stand-in.
"""
import argparse
import copy
import json
import sys
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cin", type=int, required=True)
    parser.add_argument("--cout", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.cin <= 0 or args.cout <= 0:
        print("model_gen: --cin and --cout must be positive", file=sys.stderr)
        return 2
    try:
        import numpy as np
        import coremltools as ct
        from coremltools.converters.mil import Builder as mb
        from coremltools.converters.mil.mil import types
        from coremltools.models.utils import compile_model
    except ImportError as exc:
        print("model_gen: coremltools and numpy are required for native compile (%s)" % exc, file=sys.stderr)
        return 3

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    pkg, mlc = out / "model.mlpackage", out / "model.mlmodelc"
    weight = np.full((args.cout, args.cin, 1, 1), np.float16(0.001))
    specs = [mb.TensorSpec(shape=(1, args.cin, 1, 1), dtype=types.fp16)]

    def conv_main(x):
        y = mb.conv(x=x, weight=weight, pad_type="valid", strides=[1, 1])
        return mb.identity(x=y, name="y")

    prog = mb.program(input_specs=specs, opset_version=ct.target.iOS18)(conv_main)
    pipeline = copy.deepcopy(ct.PassPipeline.DEFAULT)
    pipeline.remove_passes(["common::fuse_conv_scale", "common::fuse_conv_bias"])
    model = ct.convert(
        prog,
        convert_to="mlprogram",
        compute_precision=ct.precision.FLOAT16,
        minimum_deployment_target=ct.target.iOS18,
        pass_pipeline=pipeline,
        skip_model_load=True,
    )
    model.save(str(pkg))
    compile_model(str(pkg), destination_path=str(mlc))
    (out / "perfgate_io.json").write_text(json.dumps({"cin": args.cin, "cout": args.cout}) + "\n")
    print(mlc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
