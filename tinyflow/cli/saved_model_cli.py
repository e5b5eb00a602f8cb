"""`python -m tinyflow.cli.saved_model_cli show|run ...`: TF 1.15's saved_model_cli on tinyflow.

    show --dir D                              the tag-sets
    show --dir D --tag_set serve              the SignatureDef keys of one MetaGraphDef
    show --dir D --tag_set serve --signature_def K    one signature's inputs and outputs
    show --dir D --all                        every MetaGraphDef's signatures
    run --dir D --tag_set serve --signature_def K --input_exprs 'x=[[1,2,3]]' [--inputs 'y=f.npy'] [--outdir O]
"""
import argparse
import ast
import os
import sys

import numpy as np


def _saved_model(export_dir):
    from tinyflow.api.saved_model.loader import parse_saved_model
    return parse_saved_model(export_dir)


def _tags(meta):
    return ", ".join(sorted(meta.meta_info_def.tags))


def _meta(saved_model, tag_set):
    from tinyflow.api.saved_model.loader import get_meta_graph_def_from_tags
    return get_meta_graph_def_from_tags(saved_model, [t for t in tag_set.split(",") if t])


def _shape(info):
    if info.tensor_shape.unknown_rank:
        return "unknown_rank"
    dims = [str(d.size) for d in info.tensor_shape.dim]
    return "(" + ", ".join(dims) + ")" if len(dims) != 1 else "(" + dims[0] + ")"


def _tensor_infos(kind, infos, indent):
    from tinyflow.formats.tf_protos import types_pb2
    lines = []
    for key in sorted(infos):
        info = infos[key]
        lines.append("%s%s['%s'] tensor_info:" % (indent, kind, key))
        lines.append("%s    dtype: %s" % (indent, types_pb2.DataType.Name(info.dtype)))
        lines.append("%s    shape: %s" % (indent, _shape(info)))
        if info.WhichOneof("encoding") == "name":
            lines.append("%s    name: %s" % (indent, info.name))
        else:
            coo = info.coo_sparse
            lines.append("%s    coo_sparse: %s %s %s" % (indent, coo.values_tensor_name, coo.indices_tensor_name,
                                                        coo.dense_shape_tensor_name))
    return lines


def _signature(sig, indent=""):
    lines = [indent + "The given SavedModel SignatureDef contains the following input(s):"]
    lines += _tensor_infos("inputs", sig.inputs, indent + "  ")
    lines.append(indent + "The given SavedModel SignatureDef contains the following output(s):")
    lines += _tensor_infos("outputs", sig.outputs, indent + "  ")
    lines.append(indent + "Method name is: " + sig.method_name)
    return lines


def show(args):
    sm = _saved_model(args.dir)
    if args.all:
        lines = []
        for meta in sm.meta_graphs:
            lines += ["", "MetaGraphDef with tag-set: '%s' contains the following SignatureDefs:" % _tags(meta)]
            for key in sorted(meta.signature_def):
                lines += ["", "signature_def['%s']:" % key] + _signature(meta.signature_def[key], "  ")
        return "\n".join(lines)
    if not args.tag_set:
        return "\n".join(["The given SavedModel contains the following tag-sets:"] + [_tags(m) for m in sm.meta_graphs])
    meta = _meta(sm, args.tag_set)
    if not args.signature_def:
        return "\n".join(["The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:"]
                         + ['SignatureDef key: "%s"' % k for k in sorted(meta.signature_def)])
    if args.signature_def not in meta.signature_def:
        raise ValueError("Could not find signature \"%s\". Please choose from: %s"
                         % (args.signature_def, ", ".join(sorted(meta.signature_def))))
    return "\n".join(_signature(meta.signature_def[args.signature_def]))


def _parse_assignments(text, what):
    """'k=v;k2=v2' -> {k: v} (v as given)."""
    out = {}
    for part in filter(None, (text or "").split(";")):
        if "=" not in part:
            raise ValueError("--%s \"%s\" format is incorrect. Please follow \"<input_key>=<value>\"" % (what, part))
        key, value = part.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def run(args):
    from tinyflow.api.saved_model.predictor import from_saved_model
    feeds = {}
    for key, path in _parse_assignments(args.inputs, "inputs").items():
        feeds[key] = np.load(path, allow_pickle=False)  # (no pickles: the file is data)
    for key, expr in _parse_assignments(args.input_exprs, "input_exprs").items():
        feeds[key] = np.asarray(ast.literal_eval(expr))  # literals only, never eval
    predictor = from_saved_model(args.dir, signature_def_key=args.signature_def, tags=args.tag_set.split(","))
    missing = set(predictor.feed_tensors) - set(feeds)
    if missing:
        raise ValueError("Missing inputs for signature %s: %s" % (args.signature_def, sorted(missing)))
    results = predictor(feeds)
    lines = []
    for key in sorted(results):
        if args.outdir:
            os.makedirs(args.outdir, exist_ok=True)
            path = os.path.join(args.outdir, key + ".npy")
            np.save(path, results[key])
            lines.append("Output %s is saved to %s" % (key, path))
        else:
            lines += ["Result for output key %s:" % key, str(results[key])]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tinyflow.cli.saved_model_cli",
                                     description="Show and run SavedModels (TF 1.15's saved_model_cli).")
    sub = parser.add_subparsers(dest="command", required=True)
    p_show = sub.add_parser("show")
    p_show.add_argument("--dir", required=True)
    p_show.add_argument("--all", action="store_true")
    p_show.add_argument("--tag_set", default="")
    p_show.add_argument("--signature_def", default="")
    p_run = sub.add_parser("run")
    p_run.add_argument("--dir", required=True)
    p_run.add_argument("--tag_set", required=True)
    p_run.add_argument("--signature_def", required=True)
    p_run.add_argument("--inputs", default="")
    p_run.add_argument("--input_exprs", default="")
    p_run.add_argument("--outdir", default="")
    args = parser.parse_args(argv)
    try:
        print(show(args) if args.command == "show" else run(args))
    except (ValueError, RuntimeError, IOError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
