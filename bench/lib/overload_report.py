#!/usr/bin/env python3
"""Helpers of bench/overload.sh (standard library only).

  overload_report.py record GEN.json --run N --scenario S --target T --capacity C [--samples TSV]
                     [--guard-samples TSV]
      one JSON line: the generator's summary plus what the edge's /overload samples say
      (limit, admitted concurrency, refusals per tier, executor lag) per stream window, and the
      outbound guard's breaker state changes and refusals per peer (slowpeer)
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


BREAKER = {0: "closed", 1: "open", 2: "half-open"}


def read_guard(path):
    """The GuardSampler TSV: {peer: [(t_s, state, in_flight, waiting, breaker_open, queue_full, queue_timeout)]}."""
    peers = {}
    with open(path) as f:
        next(f, None)
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 8 or p[1] == "-":
                continue
            peers.setdefault(p[1], []).append((int(p[0]) / 1000.0,) + tuple(int(x) for x in p[2:8]))
    return peers


def guard_summary(peers, streams):
    """Per peer: the breaker's state changes (time, state), the most calls in flight / waiting, and
    the enforce refusals by reason over each stream's window."""
    out = {}
    for peer, rows in peers.items():
        changes, last = [], None
        for r in rows:
            if r[1] != last:
                changes.append((round(r[0], 3), r[1]))
                last = r[1]
        windows = {}
        for s in streams:
            w = [r for r in rows if s["from_s"] <= r[0] <= s["to_s"] + 0.3]
            if len(w) >= 2:
                windows[s["name"]] = {"breaker_open": w[-1][4] - w[0][4], "queue_full": w[-1][5] - w[0][5],
                                      "queue_timeout": w[-1][6] - w[0][6],
                                      "max_in_flight": max(r[2] for r in w), "max_waiting": max(r[3] for r in w)}
        out[peer] = {"changes": changes, "samples": len(rows), "windows": windows}
    return out


def cmd_record(a):
    with open(a.gen) as f:
        g = json.load(f)
    rec = {"kind": "gen", "run": a.run, "scenario": a.scenario, "target": a.target, "capacity": a.capacity,
           "label": g.get("label"), "accounted": g["accounted"], "peak_conns": g["peak_conns"],
           "pacer_max_late_ms": g["pacer_max_late_ms"], "streams": g["streams"],
           "timed_gets": g.get("timed_gets", [])}
    if a.guard_samples:
        rec["guard"] = guard_summary(read_guard(a.guard_samples), g["streams"])
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
            if s["name"].startswith("warm"):
                continue
            parts.append(f"{s['name']}: goodput {100 * s.get('goodput_steady_rps', s['goodput_rps']) / r['capacity']:.0f}%C "
                         f"ok {s['ok']}/{s['scheduled']} 503 {s['refused_503']} to {s['timeout']} err {s['error']} "
                         f"p50 {s['ok_p50_ms']} p99 {s['ok_p99_ms']} ref-p99 {s['refused_p99_ms']} "
                         f"cpu {s['target_cpu_ms']}ms lim {s.get('limit_median')}")
        if r.get("guard"):
            for peer, gd in sorted(r["guard"].items()):
                parts.append(f"breaker {peer}: " + " ".join(f"{t:.1f}s={BREAKER.get(st, st)}" for t, st in gd["changes"]))
        print(" | ".join(parts))


def refusal_cost(r):
    """Refusal scenario, one run: CPU per proxied request (low phase: edge CPU / requests served),
    CPU per refusal (high phase: (edge CPU - served x CPU per proxied request) / refusals), in µs.
    Served = every answer that is not an admission refusal (503 + Retry-After)."""
    st = {s["name"]: s for s in r["streams"]}
    lo, hi = st.get("low"), st.get("high")
    if not lo or not hi:
        return None

    def served(s):
        return s["ok"] + s["other_status"] + s["refused_503"] - s["refused_with_retry_after"]

    res = {"low_rate": lo["rate"], "high_rate": hi["rate"], "served_low": served(lo), "served_high": served(hi),
           "refused": hi["refused_with_retry_after"], "refused_503": hi["refused_503"],
           "ref_p50": hi["refused_p50_ms"], "ref_p99": hi["refused_p99_ms"],
           "ref_send_p99": hi.get("refused_from_send_p99_ms"),
           "idle_ms_s": (st["idle"]["target_cpu_ms"] / (st["idle"]["to_s"] - st["idle"]["from_s"])
                         if "idle" in st and st["idle"]["target_cpu_ms"] >= 0 else None),
           "send_lag_p99": hi["send_lag_p99_ms"], "low_p99": lo["ok_p99_ms"], "high_ok_p99": hi["ok_p99_ms"],
           "goodput_high": 100 * hi.get("goodput_steady_rps", hi["goodput_rps"]) / r["capacity"],
           "cpu_low_ms": lo["target_cpu_ms"], "cpu_high_ms": hi["target_cpu_ms"], "lag_ms": r.get("max_executor_lag_ms"),
           "cpu_req_us": None, "cpu_ref_us": None, "ratio": None}
    if lo["target_cpu_ms"] >= 0 and res["served_low"]:
        res["cpu_req_us"] = lo["target_cpu_ms"] * 1000 / res["served_low"]
        if hi["target_cpu_ms"] >= 0 and res["refused"]:
            res["cpu_ref_us"] = (hi["target_cpu_ms"] * 1000 - res["served_high"] * res["cpu_req_us"]) / res["refused"]
            res["ratio"] = res["cpu_ref_us"] / res["cpu_req_us"] if res["cpu_req_us"] > 0 else None
    # The same with the idle CPU per second taken off both phases first (shown, not the verdict).
    res["cpu_req_net_us"] = res["cpu_ref_net_us"] = None
    if res["cpu_req_us"] is not None and res["idle_ms_s"] is not None:
        lo_s, hi_s = lo["to_s"] - lo["from_s"], hi["to_s"] - hi["from_s"]
        res["cpu_req_net_us"] = (lo["target_cpu_ms"] - res["idle_ms_s"] * lo_s) * 1000 / res["served_low"]
        if res["refused"] and hi["target_cpu_ms"] >= 0:
            res["cpu_ref_net_us"] = ((hi["target_cpu_ms"] - res["idle_ms_s"] * hi_s) * 1000
                                     - res["served_high"] * res["cpu_req_net_us"]) / res["refused"]
        # Valid only if the background is a minor part of the low phase and the refusal cost came out positive.
        res["valid"] = res["idle_ms_s"] * lo_s < 0.5 * lo["target_cpu_ms"] and (res["cpu_ref_us"] or 0) > 0
    else:
        res["valid"] = (res["cpu_ref_us"] or 0) > 0
    return res


def slowpeer_view(r, open_s):
    """Slowpeer scenario, one run: per phase the fast route's p50/p99 and the slow route's outcome,
    the slow peer's breaker over time, and the verdicts."""
    st = {s["name"]: s for s in r["streams"]}
    phases = [p for p in ("before", "during", "after") if f"fast-{p}" in st and f"slow-{p}" in st]
    if len(phases) < 3:
        return None
    fast = {p: st[f"fast-{p}"] for p in phases}
    slow = {p: st[f"slow-{p}"] for p in phases}
    t_slow, t_back = slow["during"]["from_s"], slow["during"]["to_s"]
    g = (r.get("guard") or {})
    ch_all = (g.get("slow") or {}).get("changes", [])
    # From the slowdown on (the state in force at that moment first): what the breaker did about it.
    before = [c for c in ch_all if c[0] < t_slow]
    ch = ([(t_slow, before[-1][1])] if before else []) + [c for c in ch_all if c[0] >= t_slow]
    opens = [t for t, s_ in ch if s_ == 1 and t > t_slow]
    halfs = [t for t, s_ in ch if s_ == 2]
    closes = [t for t, s_ in ch if s_ == 0 and t > t_back]
    first_open_len = None
    # Each open period (open -> half-open) against the configured back-off: the first opening after
    # a close lasts openSeconds; the n-th re-opening in a row openSeconds x min(2^n, 10) x [0.8, 1).
    periods, n, tol = [], 0, 0.15
    for i, (t, s_) in enumerate(ch):
        if s_ == 0:
            n = 0
        if s_ != 1 or t <= t_slow:
            continue
        nxt = next(((tt, ss) for tt, ss in ch[i + 1:] if ss != 1), None)
        if nxt is None or nxt[1] != 2:
            break
        length = nxt[0] - t
        if open_s:
            o = float(open_s)
            lo, hi = (o, o) if n == 0 else (o * min(2 ** n, 10) * 0.8, o * min(2 ** n, 10))
            periods.append({"at": t - t_slow, "len": length, "lo": lo, "hi": hi,
                            "ok": lo - tol <= length <= hi + tol})
        n += 1
    if periods:
        first_open_len = periods[0]["len"]
    fast_states = {s_ for _, s_ in (g.get("fast") or {}).get("changes", [])}
    verdict = {}
    for k in ("ok_p50_ms", "ok_p99_ms"):
        b, d, a_ = (float(fast[p][k]) if fast[p][k] is not None else None for p in phases)
        if None in (b, d, a_) or b <= 0:
            verdict[k] = None
            continue
        noise = abs(a_ - b) / b
        allowed = max(0.10, noise)
        verdict[k] = {"before": b, "during": d, "after": a_, "change": (d - b) / b, "noise": noise,
                      "allowed": allowed, "met": abs(d - b) / b <= allowed}
    return {"phases": phases, "fast": fast, "slow": slow, "t_slow": t_slow, "t_back": t_back, "changes": ch,
            "opens": opens, "half_opens": halfs, "closes": closes, "first_open_s": first_open_len,
            "open_s": open_s, "fast_breaker_states": sorted(fast_states), "verdict": verdict,
            "guard": g, "periods": periods, "opened_after_s": (opens[0] - t_slow) if opens else None,
            "closed_after_s": (closes[0] - t_back) if closes else None,
            "breaker_met": bool(opens) and bool(halfs) and bool(periods) and all(p["ok"] for p in periods)}


def cmd_report(a):
    recs = [json.loads(l) for l in open(a.results) if l.strip()]
    gens = [r for r in recs if r.get("kind") == "gen"]
    ends = [r for r in recs if r.get("kind") == "proxy_end"]
    runs = sorted({r["run"] for r in gens})
    out = []
    w = out.append
    w("# Overload benchmark (bench/overload.sh)\n")
    w("| fact | value |\n|---|---|")
    facts = {}
    for line in open(a.facts):
        k, _, v = line.rstrip("\n").partition("\t")
        facts[k] = v
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

    # ---- refusal cost
    spec = []   # (target, measured, verdict) lines of the SPEC §8 table
    rf = [(r, refusal_cost(r)) for r in gens if r["scenario"] == "refusal"]
    rf = [(r, c) for r, c in rf if c]
    if rf:
        w("## Refusal cost (edge enforce, pinned apart from the load)\n")
        w(f"The edge alone on its CPUs, generator and backend on others ({facts.get('refusal', '')}). "
          "CPU per proxied request = edge CPU over the low phase / requests served; CPU per refusal = (edge CPU over "
          "the high phase − served × CPU per proxied request) / refusals (503 with Retry-After); CPU from "
          "`/proc/<pid>/stat` at 10 ms resolution, sampled every 100 ms, and it includes the edge's fixed background "
          "CPU (the idle column: edge CPU per second at 1 request/s just before the low phase — if it is a large part of the "
          "low phase's CPU, the proxied cost is inflated and the ratio flattered). Refusal latency from the scheduled send time "
          "(the target); \"from the write\" and the send lag tell how much of it is the generator's own lateness.\n")
        w("| run | low load | served | CPU ms | CPU µs / proxied request | high load | served | refused (RA) | CPU ms | "
          "CPU µs / refusal | ratio | refusal p50 / p99 ms | refusal p99 from the write ms | generator send lag p99 ms | 2xx p99 ms (low / high) | goodput at high % C | idle edge CPU ms/s | net of idle: µs / proxied, µs / refusal | max executor lag ms |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r, c in rf:
            w(f"| {r['run']} | {c['low_rate']:.0f}/s | {c['served_low']} | {fmt(c['cpu_low_ms'], 0)} | {fmt(c['cpu_req_us'], 1)} | "
              f"{c['high_rate']:.0f}/s | {c['served_high']} | {c['refused']} | {fmt(c['cpu_high_ms'], 0)} | {fmt(c['cpu_ref_us'], 1)} | "
              f"{fmt(c['ratio'] and 100 * c['ratio'], 0)} % | {c['ref_p50']} / {c['ref_p99']} | {c['ref_send_p99']} | {c['send_lag_p99']} | "
              f"{c['low_p99']} / {c['high_ok_p99']} | {c['goodput_high']:.0f} | {fmt(c['idle_ms_s'], 1)} | "
              f"{fmt(c['cpu_req_net_us'], 1)}, {fmt(c['cpu_ref_net_us'], 1)} | {fmt(c['lag_ms'], 0)} |")
        w("")
        p99 = med([float(c["ref_p99"]) for _, c in rf if c["ref_p99"] is not None])
        ratio = med([c["ratio"] for _, c in rf])
        ref_us = med([c["cpu_ref_us"] for _, c in rf])
        req_us = med([c["cpu_req_us"] for _, c in rf])
        spec.append(("refusal (503 + Retry-After) p99 ≤ 1 ms at 10 × C, edge pinned apart",
                     f"p99 {fmt(p99, 2)} ms (median of {len(rf)} run(s))",
                     "–" if p99 is None else ("**met**" if p99 <= 1.0 else "**not met**")))
        spec.append(("refusal CPU ≤ 30 % of a proxied request's edge CPU",
                     f"{fmt(ref_us, 1)} µs per refusal vs {fmt(req_us, 1)} µs per proxied request = {fmt(ratio and 100 * ratio, 0)} %",
                     "–" if ratio is None else
                     ("**not measured**: the idle edge's CPU is half or more of the low phase's, or the refusal cost "
                      "came out ≤ 0 (JIT or neighbours; warm longer: REFUSAL_WARM)" if not all(c["valid"] for _, c in rf)
                      else "**met**" if ratio <= 0.30 else "**not met**")))

    # ---- slow peer
    open_s = None
    for part in facts.get("slowpeer", "").split(","):
        if "openSeconds" in part:
            open_s = part.split("openSeconds")[1].split()[0]
    sp = [(r, slowpeer_view(r, open_s)) for r in gens if r["scenario"] == "slowpeer"]
    sp = [(r, v) for r, v in sp if v]
    if sp:
        w("## Slow peer (outbound guard enforce, breaker on)\n")
        w(f"Set-up: {facts.get('slowpeer', '')}. Two clusters on one edge: `fast` (the backend) and `slow` (a second "
          "backend whose service time is multiplied in the `during` phase and restored for `after`). Latencies in ms "
          "from the scheduled send time. Met = the fast route's p50 and p99 during the slow phase within 10 % of "
          "before, or within the before/after difference if that noise is larger.\n")
        w("| run | phase | fast 2xx % | fast p50 | fast p99 | slow 2xx % | slow p99 ok | slow 503 (guard) % | slow 504 % | slow timeouts+errors % | slow guard refusals: breaker_open / queue_full / queue_timeout | slow max in flight / waiting |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r, v in sp:
            gw = ((v["guard"].get("slow") or {}).get("windows") or {})
            for p in v["phases"]:
                f_, s_ = v["fast"][p], v["slow"][p]
                n = max(1, s_["scheduled"])
                x504 = (s_.get("other_by_status") or {}).get("504", 0)
                gwp = gw.get(f"slow-{p}") or {}
                w(f"| {r['run']} | {p} | {100 * f_['ok'] / max(1, f_['scheduled']):.2f} | {f_['ok_p50_ms']} | {f_['ok_p99_ms']} | "
                  f"{100 * s_['ok'] / n:.1f} | {s_['ok_p99_ms']} | {100 * s_['refused_503'] / n:.1f} | {100 * x504 / n:.1f} | "
                  f"{100 * (s_['timeout'] + s_['error'] + s_['expired_unsent']) / n:.1f} | "
                  f"{gwp.get('breaker_open', '–')} / {gwp.get('queue_full', '–')} / {gwp.get('queue_timeout', '–')} | "
                  f"{gwp.get('max_in_flight', '–')} / {gwp.get('max_waiting', '–')} |")
        w("")
        w("The slow peer's breaker over time (`http_client_guard_breaker_state{peer=\"slow\"}` sampled every 50 ms; "
          "times in s from the start of the slow phase; a half-open round shorter than 50 ms can be missed):\n")
        for r, v in sp:
            tl = ", ".join(f"{t - v['t_slow']:+.2f} {BREAKER.get(st_, st_)}" for t, st_ in v["changes"]) or "no samples"
            w(f"- run {r['run']}: {tl}")
            per = ", ".join(f"{p_['len']:.2f} s (expected {p_['lo']:.1f}–{p_['hi']:.1f}{'' if p_['ok'] else ', OUTSIDE'})"
                            for p_ in v["periods"]) or "–"
            w(f"  - from the slowdown on: opened {len(v['opens'])}× (first {fmt(v['opened_after_s'], 2)} s after it), "
              f"half-open {len(v['half_opens'])}×; open periods {per} (openSeconds {v['open_s'] or '–'}, back-off "
              f"×min(2ⁿ, 10)×[0.8, 1) after n failed probes, ±0.15 s for the sampling); closed "
              + (f"{v['closed_after_s']:.2f} s after the backend recovered" if v["closed_after_s"] is not None
                 else "not seen before the run ended (lengthen SLOWPEER_POST)")
              + f"; the `fast` peer's breaker states over the whole run: "
              f"{', '.join(BREAKER.get(x, str(x)) for x in v['fast_breaker_states']) or '–'}")
        w("")
        w("| run | fast | before | during | after | change during | noise (after vs before) | allowed | verdict |")
        w("|---|---|---|---|---|---|---|---|---|")
        for r, v in sp:
            for k, lbl in (("ok_p50_ms", "p50"), ("ok_p99_ms", "p99")):
                d = v["verdict"].get(k)
                if not d:
                    w(f"| {r['run']} | {lbl} | – | – | – | – | – | – | – |")
                    continue
                w(f"| {r['run']} | {lbl} | {d['before']:.1f} | {d['during']:.1f} | {d['after']:.1f} | {100 * d['change']:+.1f} % | "
                  f"{100 * d['noise']:.1f} % | {100 * d['allowed']:.0f} % | "
                  f"{'**met**' if d['met'] else '**not met**' + (' (lower during: before/after disturbed)' if d['change'] < 0 else '')} |")
        w("")
        iso = [all(d and d["met"] for d in v["verdict"].values()) for _, v in sp]
        cells = "; ".join(
            f"run {r['run']}: p50 {v['verdict']['ok_p50_ms']['change'] * 100:+.1f} %, p99 {v['verdict']['ok_p99_ms']['change'] * 100:+.1f} %"
            for r, v in sp if v["verdict"].get("ok_p50_ms") and v["verdict"].get("ok_p99_ms"))
        spec.append(("slow peer (×10): the other cluster's p50/p99 unchanged (within 10 % or the measured noise)",
                     cells or "–", "**met**" if iso and all(iso) else "**not met**"))
        bm = [v["breaker_met"] for _, v in sp]
        spec.append(("slow peer: the breaker opens and half-opens as configured",
                     "; ".join(f"run {r['run']}: opened {fmt(v['opened_after_s'], 2)} s after the slowdown, "
                               f"{len(v['opens'])} open periods ({sum(p_['ok'] for p_ in v['periods'])} of {len(v['periods'])} as configured), "
                               f"half-open {len(v['half_opens'])}×, closed "
                               + (f"{v['closed_after_s']:.2f} s after recovery" if v["closed_after_s"] is not None else "not seen")
                               for r, v in sp),
                     "**met**" if all(bm) else "**not met**"))

    if spec:
        w("## SPEC §8 targets (the scenarios of this run that measure one)\n")
        w("| target | measured | verdict |")
        w("|---|---|---|")
        for t, m, v in spec:
            w(f"| {t} | {m} | {v} |")
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
    r.add_argument("--guard-samples")
    sub.add_parser("line")
    rp = sub.add_parser("report")
    rp.add_argument("results")
    rp.add_argument("facts")
    rp.add_argument("--samples-dir")
    a = p.parse_args()
    {"record": cmd_record, "line": cmd_line, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
