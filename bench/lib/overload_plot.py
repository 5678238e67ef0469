#!/usr/bin/env python3
"""Plot the edge's learned limit and admitted concurrency over the 1x -> 3x -> 1x step as an SVG
(standard library only; no matplotlib/gnuplot needed).

  overload_plot.py RESULTS.jsonl OUT.svg [--run N]

RESULTS.jsonl is the raw output of bench/overload.sh (bench/results/overload-*.jsonl).
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("out")
    p.add_argument("--run", type=int, default=1)
    a = p.parse_args()
    rec = None
    for line in open(a.results):
        r = json.loads(line)
        if r.get("scenario") == "step" and r.get("run") == a.run and r.get("limit_series"):
            rec = r
    if rec is None:
        raise SystemExit(f"no step record for run {a.run} in {a.results}")
    series = rec["limit_series"]
    names = {s["name"]: s for s in rec["streams"]}
    t0 = names["pre1x"]["from_s"] - 1
    t1 = names["post1x"]["to_s"] + 1
    pts = [(t, lim, inf) for t, lim, inf in series if t0 <= t <= t1]
    ymax = max(max(lim, inf) for _, lim, inf in pts) * 1.1
    W, H, L, R, T, B = 900, 360, 60, 20, 30, 50

    def x(t):
        return L + (t - t0) / (t1 - t0) * (W - L - R)

    def y(v):
        return T + (1 - v / ymax) * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    # phases
    for n, color in (("pre1x", "#eef6ee"), ("step3x", "#fbeaea"), ("post1x", "#eef6ee")):
        s = names[n]
        out.append(f'<rect x="{x(s["from_s"]):.1f}" y="{T}" width="{x(s["to_s"]) - x(s["from_s"]):.1f}" '
                   f'height="{H - T - B}" fill="{color}"/>')
        out.append(f'<text x="{(x(s["from_s"]) + x(s["to_s"])) / 2:.1f}" y="{T - 8}" text-anchor="middle">'
                   f'{n.replace("pre", "").replace("post", "").replace("step", "")} C ({s["rate"]:.0f}/s)</text>')
    # axes and grid
    step = 10 if ymax < 120 else 50
    v = 0
    while v <= ymax:
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
        v += step
    t = int(t0)
    while t <= t1:
        out.append(f'<text x="{x(t):.1f}" y="{H - B + 16}" text-anchor="middle">{t - t0:.0f}</text>')
        t += 2
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">seconds (samples of /overload every 50 ms)</text>')
    out.append(f'<line x1="{L}" x2="{L}" y1="{T}" y2="{H - B}" stroke="black"/>')
    out.append(f'<line x1="{L}" x2="{W - R}" y1="{H - B}" y2="{H - B}" stroke="black"/>')
    for idx, color, label in ((1, "#c0392b", "learned limit"), (2, "#2c6fbb", "in flight (admitted)")):
        path = " ".join(f"{x(pt[0]):.1f},{y(pt[idx]):.1f}" for pt in pts)
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{path}"/>')
    out.append(f'<rect x="{W - R - 180}" y="{T + 6}" width="170" height="40" fill="white" stroke="#999"/>')
    out.append(f'<line x1="{W - R - 172}" x2="{W - R - 150}" y1="{T + 20}" y2="{T + 20}" stroke="#c0392b" stroke-width="2"/>')
    out.append(f'<text x="{W - R - 144}" y="{T + 24}">learned limit</text>')
    out.append(f'<line x1="{W - R - 172}" x2="{W - R - 150}" y1="{T + 36}" y2="{T + 36}" stroke="#2c6fbb" stroke-width="2"/>')
    out.append(f'<text x="{W - R - 144}" y="{T + 40}">in flight (admitted)</text>')
    out.append("</svg>")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
