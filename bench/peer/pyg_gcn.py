"""The PyTorch Geometric peer of `stag bench`: the same GCN, data and noise, timed the same way.

`stag bench -peer PYTHON` exports the dataset it benchmarks into a folder and runs this script on it
once per method (spec.json then lists that one method; a process per method, as ours, so that the
peak memory is the method's), on the same machine, so that the two are measured side by side:

    PYTHON bench/peer/pyg_gcn.py --data DIR [--device cuda|cpu] [--threads N]

DIR holds x.npy (float32 [N, F], the row-normalised features), src.npy and dst.npy (int64 [E], the
directed edges, message u → v), labels.npy (int64 [N]), train.npy (int64, the training nodes) and
spec.json: {"layers", "hidden", "warmup", "steps", "seed", "methods": [...]}. Each method is
{"name", "placement", "placement_other_layers", "mc_samples", "noise": {"kind", "mu", "sigma",
"low", "high", "drop_rate", "rescale"}, "structure": {"layers", "features", "edges", "renormalize"}}.

The model is stagnb's models.GCN as `stag bench` builds it: `layers` graph convolutions
(in → hidden → … → classes), ReLU between them, symmetric normalisation by the unweighted degrees
(out-degree^-1/2 of the source, in-degree^-1/2 of the target, clamped at 1; no self-loops added),
Xavier-uniform weights and zero biases. A layer in placement "aggregate_first" multiplies each
message x_u by its noise z and sums before the linear map; "transform_first" applies the linear map
first; "dgl" transforms first when the layer narrows (in > out), as DGL's GraphConv (and every
layer of a model without noise, where the orders compute the same function). The noise has
the message's shape [E, C] (per edge and feature), [E, 1] (shared by the features), [N_src, ·]
gathered by source node, or [1, ·] (one draw for all edges); it is drawn per layer, or once and
reused by every layer ("layers": "shared", when the shapes allow it). "renormalize" rescales the
weights arriving at each node to sum to its in-degree (the original code's DropEdge/GDC).

Training step: full batch, cross-entropy on the training nodes, Adam lr 5e-3 (no weight decay),
as models.Bench. A Monte-Carlo method (mc_samples > 0) times mc_samples stochastic forward passes
averaging the logits, under torch.no_grad. Timing: the first step apart, `warmup` untimed steps,
then the median of `steps` timed ones, with torch.cuda.synchronize() around each on a GPU.

It prints one JSON line per method, with the fields of stag bench's records (method, placement,
backend, device, params, ms_per_step, ms_min, ms_max, first_step_ms, final_loss, peak_rss_mb) and
impl "pyg", the torch and torch_geometric versions, the thread count, tf32 (false: matmuls in float32,
as ours) and, on a GPU, torch_max_allocated_mb (torch.cuda.max_memory_allocated: its tensors only).
stag bench adds peak_device_mb, the process's GPU memory from nvidia-smi, measured as it measures ours.
"""
import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time

import numpy as np
import torch
import torch_geometric
from torch_geometric.nn import MessagePassing


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="folder written by stag bench -peer")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    return p.parse_args()


class NoisyGraphConv(MessagePassing):
    """One GCN layer whose messages are multiplied by given weights w ([E, C] or [E, 1])."""

    def __init__(self, in_dim, out_dim, transform_first):
        super().__init__(aggr="add")
        self.lin = torch.nn.Linear(in_dim, out_dim, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out_dim))
        torch.nn.init.xavier_uniform_(self.lin.weight)
        self.transform_first = transform_first

    def forward(self, x, edge_index, w):
        if self.transform_first:
            return self.propagate(edge_index, x=self.lin(x), w=w) + self.bias
        return self.lin(self.propagate(edge_index, x=x, w=w)) + self.bias

    def message(self, x_j, w):
        return x_j * w


def transform_first(placement, in_dim, out_dim):
    if placement == "aggregate_first":
        return False
    if placement == "transform_first":
        return True
    if placement == "dgl":
        return in_dim > out_dim
    raise ValueError("unknown placement %r" % placement)


class NoiseSampler:
    """Draws the multiplicative noise of one method for a layer's messages."""

    def __init__(self, noise, structure, src, dst, num_nodes, device):
        self.noise, self.structure = noise, structure
        self.src, self.dst, self.num_nodes, self.device = src, dst, num_nodes, device
        self.num_edges = src.shape[0]
        self.in_degree = torch.zeros(num_nodes, device=device).index_add_(
            0, dst, torch.ones(self.num_edges, device=device))
        self.cache = {}

    def enabled(self):
        return self.noise["kind"] != "none"

    def draw(self, shape):
        n = self.noise
        kind = n["kind"]
        if kind == "normal":
            return torch.randn(shape, device=self.device) * n["sigma"] + n["mu"]
        if kind == "uniform":
            return torch.rand(shape, device=self.device) * (n["high"] - n["low"]) + n["low"]
        if kind == "bernoulli":
            keep = (torch.rand(shape, device=self.device) >= n["drop_rate"]).float()
            return keep / (1 - n["drop_rate"]) if n["rescale"] else keep
        raise ValueError("unknown noise kind %r" % kind)

    def weights(self, layer, channels):
        """The noise of layer `layer` for messages with `channels` features: [E, C] or [E, 1]."""
        s = self.structure
        c = channels if s["features"] == "per_feature" else 1
        key = c if s["layers"] == "shared" else (layer, c)
        if key in self.cache:
            return self.cache[key]
        if s["edges"] == "per_edge":
            z = self.draw((self.num_edges, c))
        elif s["edges"] == "per_source":
            z = self.draw((self.num_nodes, c))[self.src]
        elif s["edges"] == "all":
            z = self.draw((1, c)).expand(self.num_edges, c)
        else:
            raise ValueError("unknown edge sharing %r" % s["edges"])
        if s["renormalize"]:
            total = torch.zeros(self.num_nodes, c, device=self.device).index_add_(0, self.dst, z)
            scale = torch.where(total != 0, self.in_degree[:, None] / total, torch.zeros_like(total))
            z = z * scale[self.dst]
        if s["layers"] == "shared":
            self.cache[key] = z
        return z


class GCN(torch.nn.Module):
    """The GCN; without noise the two placements compute the same function, and every layer takes
    the cheaper order (transform first when it narrows), as PyG's GCNConv and stagnb's shortcuts do."""

    def __init__(self, dims, placement, placement_other, noisy):
        super().__init__()
        self.convs = torch.nn.ModuleList(
            NoisyGraphConv(a, b, transform_first(
                (placement if i == 0 else placement_other) if noisy else "dgl", a, b))
            for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])))

    def forward(self, x, edge_index, norm, sampler):
        sampler.cache = {}
        for i, conv in enumerate(self.convs):
            channels = conv.lin.out_features if conv.transform_first else conv.lin.in_features
            w = norm[:, None]
            if sampler.enabled():
                w = w * sampler.weights(i, channels)
            x = conv(x, edge_index, w)
            if i < len(self.convs) - 1:
                x = torch.relu(x)
        return x


def main():
    args = parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    # Full float32 matmuls, as ours (stagnb.XLACUDAOptions) and torch's own default: no TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(args.device)
    spec = json.load(open(os.path.join(args.data, "spec.json")))
    load = lambda name: np.load(os.path.join(args.data, name + ".npy"))
    x = torch.from_numpy(load("x")).to(device)
    src = torch.from_numpy(load("src")).to(device)
    dst = torch.from_numpy(load("dst")).to(device)
    labels = torch.from_numpy(load("labels")).to(device)
    train = torch.from_numpy(load("train")).to(device)
    num_nodes, num_classes = x.shape[0], int(labels.max().item()) + 1
    edge_index = torch.stack([src, dst])
    ones = torch.ones(src.shape[0], device=device)
    out_deg = torch.zeros(num_nodes, device=device).index_add_(0, src, ones).clamp(min=1)
    in_deg = torch.zeros(num_nodes, device=device).index_add_(0, dst, ones).clamp(min=1)
    norm = out_deg[src].rsqrt() * in_deg[dst].rsqrt()
    dims = [x.shape[1]] + [spec["hidden"]] * (spec["layers"] - 1) + [num_classes]
    on_gpu = device.type == "cuda"
    device_name = torch.cuda.get_device_name(device) if on_gpu else "CPU (%s, %d threads)" % (
        platform.processor() or platform.machine(), torch.get_num_threads())

    def sync():
        if on_gpu:
            torch.cuda.synchronize(device)

    for method in spec["methods"]:
        torch.manual_seed(spec["seed"])
        if on_gpu:
            torch.cuda.reset_peak_memory_stats(device)
        sampler = NoiseSampler(method["noise"], method["structure"], src, dst, num_nodes, device)
        model = GCN(dims, method["placement"], method["placement_other_layers"], sampler.enabled()).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=5e-3)
        y = labels[train]
        mc = method.get("mc_samples", 0)
        last_loss = [float("nan")]

        def train_step():
            opt.zero_grad()
            logits = model(x, edge_index, norm, sampler)
            loss = torch.nn.functional.cross_entropy(logits[train], y)
            loss.backward()
            opt.step()
            last_loss[0] = loss.detach()

        def mc_step():
            with torch.no_grad():
                total = model(x, edge_index, norm, sampler)
                for _ in range(mc - 1):
                    total = total + model(x, edge_index, norm, sampler)
                return total / mc

        run = mc_step if mc > 0 else train_step
        if mc > 0:
            train_step()  # as stag bench: one training step first, then time inference

        def timed():
            sync()
            start = time.perf_counter()
            run()
            sync()
            return (time.perf_counter() - start) * 1000

        first = timed()
        for _ in range(spec["warmup"]):
            run()
        times = sorted(timed() for _ in range(spec["steps"]))
        record = {
            "method": method["name"], "impl": "pyg",
            "placement": method["placement"], "placement_other_layers": method["placement_other_layers"],
            "noise": method.get("noise_text", ""),
            "backend": "pytorch-geometric %s (torch %s)" % (torch_geometric.__version__, torch.__version__),
            "device": device_name, "threads": torch.get_num_threads(), "tf32": False,
            "dataset": spec.get("dataset", ""), "nodes": num_nodes, "edges": int(src.shape[0]),
            "layers": spec["layers"], "hidden": spec["hidden"],
            "params": sum(p.numel() for p in model.parameters() if p.requires_grad),
            "mc_samples": mc, "steps": spec["steps"],
            "ms_per_step": statistics.median(times), "ms_min": times[0], "ms_max": times[-1],
            "first_step_ms": first,
            "final_loss": float(last_loss[0]) if mc == 0 else None,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "seed": spec["seed"],
        }
        if on_gpu:
            record["torch_max_allocated_mb"] = torch.cuda.max_memory_allocated(device) / 2**20
        if record["final_loss"] is None:
            del record["final_loss"]
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    sys.exit(main())
