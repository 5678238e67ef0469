#!/usr/bin/env python3
"""Helpers of bench/overload.sh (standard library only).

  overload_report.py record GEN.json --run N --scenario S --target T --capacity C [--samples TSV]
      one JSON line: the generator's summary plus what the edge's /overload samples say
      (limit, admitted concurrency, refusals per tier, executor lag) per stream window
  overload_report.py line            one human-readable line per record read from stdin
  overload_report.py report RESULTS.jsonl FACTS.tsv [--samples-dir DIR]
      the Markdown report (medians over runs)
"""
import argparse
import json
import statistics
import sys

TIERS = ("start", "continuation", "proxy")


def tier_of(path):
    if path.startswith("/login"):
        return "start"
    if path.startswith("/cont"):
        return "continuation"
    if path.startswith("/exempt"):
        return "exempt"
    return "proxy"


def read_samples(path):
    rows = []
    with open(path) as f:
        next(f, None)
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 7:
                continue
            t, limit, infl, rs, rc, rp = (int(x) for x in p[:6])
            lag = float(p[6])
            if limit < 0:
                continue
            rows.append({"t": t / 1000.0, "limit": limit, "in_flight": infl,
                         "refused": {"start": rs, "continuation": rc, "proxy": rp}, "lag_ms": lag})
    return rows


def window(rows, a, b):
    return [r for r in rows if a <= r["t"] < b]


def at_or_before(rows, t):
    best = None
    for r in rows:
        if r["t"] <= t:
            best = r
    return best if best is not None else (rows[0] if rows else None)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def convergence(rows, step_at, step_end):
    """Admitted concurrency (in flight) after the step: steady = median over the second half of
    the high phase; 'entered' = first sample within +-10 %; 'settled' = first time from which the
    250 ms moving mean stays within +-10 % for 1 s."""
    high = window(rows, step_at, step_end)
    if len(high) < 10:
        return None
    tail = [r for r in high if r["t"] >= (step_at + step_end) / 2]
    steady = statistics.median(r["in_flight"] for r in tail)
    if steady <= 0:
        return None
    lo, hi = 0.9 * steady, 1.1 * steady
    entered = next((r["t"] - step_at for r in high if lo <= r["in_flight"] <= hi), None)
    mov = []
    for i in range(len(high)):
        seg = high[max(0, i - 4):i + 1]
        mov.append((high[i]["t"], sum(r["in_flight"] for r in seg) / len(seg)))
    settled = None
    for i, (t, _) in enumerate(mov):
        later = [m for (tt, m) in mov[i:] if tt < t + 1.0]
        if later and all(lo <= m <= hi for m in later) and mov[-1][0] >= t + 1.0:
            settled = t - step_at
            break
    lim_tail = [r["limit"] for r in tail]
    lim_mean = statistics.mean(lim_tail)
    cv = statistics.pstdev(lim_tail) / lim_mean if lim_mean else None
    in_tail = [r["in_flight"] for r in tail]
    in_mean = statistics.mean(in_tail)
    return {"steady_in_flight": steady, "entered_s": entered, "settled_s": settled,
            "steady_limit": statistics.median(lim_tail), "limit_cv": cv,
            "in_flight_cv": statistics.pstdev(in_tail) / in_mean if in_mean else None,
            "limit_before": (window(rows, step_at - 2, step_at) or [{"limit": None}])[-1]["limit"]}


def recovery(rows, pre_a, pre_b, end_at):
    pre = [r["limit"] for r in window(rows, pre_a, pre_b)]
    if not pre:
        return None
    ref = statistics.median(pre)
    after = [r for r in rows if r["t"] >= end_at]
    t = next((r["t"] - end_at for r in after if r["limit"] >= 0.9 * ref), None)
    return {"pre_limit": ref, "recovered_90_s": t, "limit_at_end": after[-1]["limit"] if after else None}


def cmd_record(a):
    with open(a.gen) as f:
        g = json.load(f)
    rec = {"kind": "gen", "run": a.run, "scenario": a.scenario, "target": a.target, "capacity": a.capacity,
           "label": g.get("label"), "accounted": g["accounted"], "peak_conns": g["peak_conns"],
           "pacer_max_late_ms": g["pacer_max_late_ms"], "streams": g["streams"]}
    if a.samples:
        rows = read_samples(a.samples)
        rec["samples"] = len(rows)
        lags = [r["lag_ms"] for r in rows if r["lag_ms"] >= 0]
        rec["max_executor_lag_ms"] = max(lags) if lags else None
        for s in g["streams"]:
            w = window(rows, s["from_s"], s["to_s"])
            if w:
                s["limit_median"] = med([r["limit"] for r in w])
                s["in_flight_median"] = med([r["in_flight"] for r in w])
                s["in_flight_p90"] = sorted(r["in_flight"] for r in w)[int(0.9 * (len(w) - 1))]
                s["executor_lag_max_ms"] = max([r["lag_ms"] for r in w] + [-1])
            r0 = at_or_before(rows, s["from_s"])
            r1 = at_or_before(rows, s["to_s"] + 0.3)
            if r0 and r1:
                s["edge_refused_delta"] = {t: r1["refused"][t] - r0["refused"][t] for t in TIERS}
        names = {s["name"]: s for s in g["streams"]}
        if "step3x" in names and "pre1x" in names:
            st, pre, post = names["step3x"], names["pre1x"], names.get("post1x")
            rec["convergence"] = convergence(rows, st["from_s"], st["to_s"])
            rec["recovery"] = recovery(rows, pre["from_s"], pre["to_s"], st["to_s"])
            rec["limit_series"] = [(round(r["t"], 3), r["limit"], r["in_flight"]) for r in rows]
    print(json.dumps(rec))


def solve(m, v):
    """Gaussian elimination for a small dense system; None if singular."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[piv][c]) < 1e-12:
            return None
        a[c], a[piv] = a[piv], a[c]
        for r in range(n):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [a[i][n] / a[i][i] for i in range(n)]


def cpu_fit(streams):
    """Marginal CPU of a refusal: least squares over the levels of one run that refuse (2x, 3x,
    10x, where the proxied count stays about C): cpu_ms/s = k + b * refusals/s. Returns
    (k ms/s, b us per refusal) or None."""
    pts = []
    for s in streams:
        if s["name"] == "warm" or s["target_cpu_ms"] < 0 or s["refused_with_retry_after"] < 100:
            continue
        secs = s["to_s"] - s["from_s"]
        pts.append((s["refused_with_retry_after"] / secs, s["target_cpu_ms"] / secs))
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx <= 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return my - b * mx, b * 1000


def fmt(x, d=1):
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{d}f}"
    return str(x)


def cmd_line(_):
    for line in sys.stdin:
        r = json.loads(line)
        if r.get("kind") != "gen":
            continue
        parts = [f"{r['target']} {r['label']}: accounted={r['accounted']}"]
        for s in r["streams"]:
            if s["name"] == "warm":
                continue
            parts.append(f"{s['name']}: goodput {100 * s.get('goodput_steady_rps', s['goodput_rps']) / r['capacity']:.0f}%C "
                         f"ok {s['ok']}/{s['scheduled']} 503 {s['refused_503']} to {s['timeout']} err {s['error']} "
                         f"p50 {s['ok_p50_ms']} p99 {s['ok_p99_ms']} ref-p99 {s['refused_p99_ms']} "
                         f"cpu {s['target_cpu_ms']}ms lim {s.get('limit_median')}")
        print(" | ".join(parts))


def cmd_report(a):
    recs = [json.loads(l) for l in open(a.results) if l.strip()]
    gens = [r for r in recs if r.get("kind") == "gen"]
    ends = [r for r in recs if r.get("kind") == "proxy_end"]
    runs = sorted({r["run"] for r in gens})
    out = []
    w = out.append
    w("# Overload benchmark (bench/overload.sh)\n")
    w("| fact | value |\n|---|---|")
    for line in open(a.facts):
        k, _, v = line.rstrip("\n").partition("\t")
        w(f"| {k} | {v} |")
    w("")
    acc = all(r["accounted"] for r in gens)
    w(f"Every scheduled request accounted for (scheduled = 2xx + 503 + other + timeout + error + expired): **{acc}**.\n")

    # ---- levels
    lv = [r for r in gens if r["scenario"] == "levels"]
    if lv:
        cap = lv[0]["capacity"]
        w("## Offered load levels (medians over runs)\n")
        w("Goodput = 2xx answered within the SLO per second in steady state (completion seconds of the level without its first and last second), as % of C. Latencies from the scheduled send time (ms). "
          "CPU = proxy process CPU over the level / answered requests (µs; includes the proxy's fixed background "
          "CPU and, in the first level, left-over JIT work, so it is only comparable at high load).\n")
        w("| target | load | goodput % C | 2xx % of offered | p50 ok | p99 ok | 503 % | 503 with Retry-After | refusal p99 | timeouts+errors % | CPU µs/req | limit (median) |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        targets = []
        for r in lv:
            if r["target"] not in targets:
                targets.append(r["target"])
        for t in targets:
            rs = [r for r in lv if r["target"] == t]
            names = [s["name"] for s in rs[0]["streams"] if s["name"] != "warm"]
            base_cpu = {}
            for r in rs:
                s08 = next((s for s in r["streams"] if s["name"] == "x0.8"), None)
                if s08 and s08["ok"] and s08["target_cpu_ms"] >= 0:
                    base_cpu[r["run"]] = s08["target_cpu_ms"] * 1000 / s08["ok"]
            for n in names:
                rows = []
                for r in rs:
                    s = next(x for x in r["streams"] if x["name"] == n)
                    done = s["ok"] + s["refused_503"] + s["other_status"]
                    cpu_req = s["target_cpu_ms"] * 1000 / done if done and s["target_cpu_ms"] >= 0 else None
                    ref_cpu = None
                    if s["refused_503"] > 100 and r["run"] in base_cpu and s["target_cpu_ms"] >= 0:
                        ref_cpu = (s["target_cpu_ms"] * 1000 - s["ok"] * base_cpu[r["run"]]) / s["refused_503"]
                    rows.append({
                        "good": 100 * s.get("goodput_steady_rps", s["goodput_rps"]) / cap,
                        "okpct": 100 * s["ok"] / max(1, s["scheduled"]),
                        "p50": float(s["ok_p50_ms"]) if s["ok_p50_ms"] is not None else None,
                        "p99": float(s["ok_p99_ms"]) if s["ok_p99_ms"] is not None else None,
                        "r503": 100 * s["refused_503"] / max(1, s["scheduled"]),
                        "ra": (100 * s["refused_with_retry_after"] / s["refused_503"]) if s["refused_503"] else None,
                        "rp99": float(s["refused_p99_ms"]) if s["refused_p99_ms"] is not None else None,
                        "fail": 100 * (s["timeout"] + s["error"] + s["expired_unsent"] + s["other_status"]) / max(1, s["scheduled"]),
                        "cpu": cpu_req, "refcpu": ref_cpu, "limit": s.get("limit_median")})
                m = {k: med([x[k] for x in rows]) for k in rows[0]}
                ra = "–" if m["ra"] is None else f"{m['ra']:.0f} %"
                w(f"| {t} | {n[1:]}× | {fmt(m['good'], 0)} | {fmt(m['okpct'], 1)} | {fmt(m['p50'])} | {fmt(m['p99'])} | "
                  f"{fmt(m['r503'], 1)} | {ra} | {fmt(m['rp99'], 2)} | {fmt(m['fail'], 1)} | {fmt(m['cpu'], 0)} | "
                  f"{fmt(m['limit'], 0)} |")
        w("")
        fits = []
        for r in lv:
            f = cpu_fit(r["streams"])
            if f:
                fits.append((r["run"], r["target"], f))
        if fits:
            w("Marginal CPU of a refusal (least squares over the refusing levels of one run — 2×, 3×, 10×, where about C "
              "requests/s are still proxied: proxy CPU ms/s = k + b × refusals/s; noisy on a shared machine):\n")
            w("| run | target | k (ms CPU per s) | b: µs CPU per refusal |")
            w("|---|---|---|---|")
            for run, t, (k, b_) in fits:
                w(f"| {run} | {t} | {k:.0f} | {b_:.0f} |")
            w("")
        w("Per run (goodput % C at each level):\n")
        for t in targets:
            for r in [r for r in lv if r["target"] == t]:
                cells = ", ".join(f"{s['name'][1:]}×: {100 * s.get('goodput_steady_rps', s['goodput_rps']) / cap:.0f}" for s in r["streams"] if s["name"] != "warm")
                lag = r.get("max_executor_lag_ms")
                w(f"- run {r['run']} {t}: {cells}" + (f"; max executor lag {lag:.0f} ms" if lag is not None else "")
                  + f"; peak client connections {r['peak_conns']}; generator max pacer lateness {r['pacer_max_late_ms']:.0f} ms")
        w("")

    # ---- step
    st = [r for r in gens if r["scenario"] == "step" and r.get("convergence")]
    if st:
        w("## 1× → 3× step (edge enforce)\n")
        w("| run | limit before | steady limit (3×) | steady in flight | first within ±10 % | settled within ±10 % (250 ms mean, 1 s) | limit CV (steady 3×) | in-flight CV | pre-step limit (1×) | limit ≥ 90 % of it after the 3× ends | 3× goodput % C | 3× p99 ok |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in st:
            c, rv = r["convergence"], r.get("recovery") or {}
            s3 = next(s for s in r["streams"] if s["name"] == "step3x")
            w(f"| {r['run']} | {fmt(c['limit_before'])} | {fmt(c['steady_limit'])} | {fmt(c['steady_in_flight'])} | "
              f"{fmt(c['entered_s'] and c['entered_s'] * 1000, 0)} ms | {fmt(c['settled_s'] and c['settled_s'] * 1000, 0)} ms | "
              f"{fmt(c['limit_cv'] and 100 * c['limit_cv'])} % | {fmt(c['in_flight_cv'] and 100 * c['in_flight_cv'])} % | "
              f"{fmt(rv.get('pre_limit'))} | {fmt(rv.get('recovered_90_s'), 2)} s | "
              f"{100 * s3.get('goodput_steady_rps', s3['goodput_rps']) / r['capacity']:.0f} | {s3['ok_p99_ms']} |")
        w("")

    # ---- tiers
    tr = [r for r in gens if r["scenario"] == "tiers"]
    if tr:
        w("## Login storm and shadow fidelity\n")
        w("Per stream: share of offered requests answered 2xx; refused = the edge's own refusal counter for the stream's "
          "tier over the stream's window (`http_admission_refused_total{mode,tier}` via `/overload`), as % of offered "
          "(in shadow: would-refuse).\n")
        w("| run | mode | stream (tier) | offered/s | 2xx % | 503+Retry-After % (admission) | other failures % (503 w/o Retry-After, timeouts, errors) | edge refused (or would refuse) % | p99 ok ms |")
        w("|---|---|---|---|---|---|---|---|---|")
        for r in tr:
            mode = r["target"].replace("edge-", "")
            for s in r["streams"]:
                if s["name"] == "warm":
                    continue
                tier = tier_of(s["path"])
                d = s.get("edge_refused_delta") or {}
                # several streams of one window share the tier counters; proxy3x is alone in its window
                er = d.get(tier) if tier != "exempt" else 0
                erp = f"{100 * er / max(1, s['scheduled']):.1f}" if er is not None else "–"
                w(f"| {r['run']} | {mode} | {s['name']} ({tier}) | {s['rate']:.0f} | {100 * s['ok'] / max(1, s['scheduled']):.2f} | "
                  f"{100 * s['refused_with_retry_after'] / max(1, s['scheduled']):.2f} | "
                  f"{100 * (s['refused_503'] - s['refused_with_retry_after'] + s['timeout'] + s['error'] + s['expired_unsent'] + s['other_status']) / max(1, s['scheduled']):.2f} | "
                  f"{erp} | {s['ok_p99_ms']} |")
        w("")

    if ends:
        w("## Proxy processes\n")
        w("| run | scenario | target | RSS at end (MiB) | alive at end | OutOfMemoryError lines |")
        w("|---|---|---|---|---|---|")
        for e in ends:
            w(f"| {e['run']} | {e['scenario']} | {e['target']} | {int(e['rss_kb']) / 1024:.0f} | {bool(e['alive_at_end'])} | {e['oom_lines']} |")
        w("")
    print("\n".join(out))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("gen")
    r.add_argument("--run", type=int, required=True)
    r.add_argument("--scenario", required=True)
    r.add_argument("--target", required=True)
    r.add_argument("--capacity", type=float, required=True)
    r.add_argument("--samples")
    sub.add_parser("line")
    rp = sub.add_parser("report")
    rp.add_argument("results")
    rp.add_argument("facts")
    rp.add_argument("--samples-dir")
    a = p.parse_args()
    {"record": cmd_record, "line": cmd_line, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
