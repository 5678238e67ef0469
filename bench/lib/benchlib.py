#!/usr/bin/env python3
"""Helpers for bench/proxy-compare.sh: parse load-generator output, render the report.

Subcommands
  wrk OUT                       parse a wrk run (stdout with the WRK_JSON line from wrk-json.lua)
  h2load OUT LOG                parse an h2load run (stdout + --log-file per-request log)
  line                          one-line summary of a result record read from stdin
  h2check OUT EXPECTED          exit 0 iff an h2load smoke run spoke h2c and every request succeeded
  report RESULTS FACTS PARAMS   render the Markdown report from the collected JSON lines

`wrk` and `h2load` print one JSON object (a result record) on stdout; the shell
script appends it to results.jsonl together with run/proxy/RSS fields.
Only the standard library is used.
"""

import argparse
import json
import math
import re
import statistics
import sys
from array import array

PROXY_ORDER = ["direct", "edge", "nginx", "haproxy"]
PROXY_LABEL = {"direct": "none (direct to origin)", "edge": "Spillway edge", "nginx": "nginx", "haproxy": "HAProxy"}
PROTO_ORDER = ["h1", "h2"]
PROTO_LABEL = {"h1": "HTTP/1.1 (wrk)", "h2": "h2c prior knowledge (h2load)"}


def die(msg):
    print(f"benchlib: {msg}", file=sys.stderr)
    sys.exit(2)


# --------------------------------------------------------------------------- wrk

def parse_wrk(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"^WRK_JSON (\{.*\})\s*$", text, re.M)
    if not m:
        die(f"no WRK_JSON line in {path} (did wrk crash? output follows)\n{text[-2000:]}")
    d = json.loads(m.group(1))
    errors = d["err_connect"] + d["err_read"] + d["err_write"] + d["err_status"] + d["err_timeout"]
    return {
        "tool": "wrk",
        "duration_s": d["duration_us"] / 1e6,
        "requests": d["requests"],
        "succeeded": max(d["requests"] - d["err_status"], 0),
        "errors": errors,
        "error_detail": {k[4:]: d[k] for k in d if k.startswith("err_") and d[k]},
        "rps": d["rps"],
        "p50_ms": d["p50_us"] / 1000.0,
        "p90_ms": d["p90_us"] / 1000.0,
        "p99_ms": d["p99_us"] / 1000.0,
        "max_ms": d["lat_max_us"] / 1000.0,
    }


# ------------------------------------------------------------------------ h2load

H2_FINISHED = re.compile(r"^finished in ([\d.]+)(ms|s|us), ([\d.]+) req/s", re.M)
H2_REQUESTS = re.compile(
    r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
    r"(\d+) failed, (\d+) errored, (\d+) timeout", re.M)
H2_STATUS = re.compile(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", re.M)
H2_PROTO = re.compile(r"^Application protocol: (\S+)", re.M)


def parse_h2load_stdout(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    fin, req, st = H2_FINISHED.search(text), H2_REQUESTS.search(text), H2_STATUS.search(text)
    if not (fin and req and st):
        die(f"could not parse h2load output {path}; output follows\n{text[-2000:]}")
    dur = float(fin.group(1)) * {"s": 1.0, "ms": 1e-3, "us": 1e-6}[fin.group(2)]
    total, started, done, ok, failed, errored, timeout = map(int, req.groups())
    proto = H2_PROTO.search(text)
    return {
        "duration_s": dur,
        "rps_reported": float(fin.group(3)),
        "total": total, "done": done, "succeeded": ok,
        "failed": failed, "errored": errored, "timeout": timeout,
        "status": dict(zip(["2xx", "3xx", "4xx", "5xx"], map(int, st.groups()))),
        "protocol": proto.group(1) if proto else None,
    }


def percentile_sorted(values, p):
    """Nearest-rank percentile of an already sorted sequence."""
    if not values:
        return float("nan")
    rank = max(1, math.ceil(p / 100.0 * len(values)))
    return values[min(rank, len(values)) - 1]


def parse_h2load(out_path, log_path):
    s = parse_h2load_stdout(out_path)
    # --log-file rows: start time (us since epoch) \t status (-1 = failed stream) \t duration (us)
    durations = array("q")
    with open(log_path, encoding="ascii", errors="replace") as f:
        for line in f:
            parts = line.split("\t")
            if len(parts) < 3:
                continue
            try:
                status, dur_us = int(parts[1]), int(parts[2])
            except ValueError:
                continue
            if 200 <= status < 400:
                durations.append(dur_us)
    lat = sorted(durations)
    errors = s["failed"] + s["errored"] + s["timeout"] + s["status"]["4xx"] + s["status"]["5xx"]
    return {
        "tool": "h2load",
        "protocol": s["protocol"],
        "duration_s": s["duration_s"],
        "requests": s["done"],
        "succeeded": s["succeeded"],
        "errors": errors,
        "error_detail": {k: s[k] for k in ("failed", "errored", "timeout") if s[k]}
        | {k: v for k, v in s["status"].items() if k in ("4xx", "5xx") and v},
        "rps": s["rps_reported"],
        "logged": len(lat),
        "p50_ms": percentile_sorted(lat, 50) / 1000.0,
        "p90_ms": percentile_sorted(lat, 90) / 1000.0,
        "p99_ms": percentile_sorted(lat, 99) / 1000.0,
        "max_ms": (lat[-1] / 1000.0) if lat else float("nan"),
    }


def h2check(out_path, expected):
    s = parse_h2load_stdout(out_path)
    ok = (s["protocol"] == "h2c" and s["succeeded"] == expected
          and s["failed"] == 0 and s["errored"] == 0 and s["status"]["2xx"] == expected)
    print(json.dumps({"protocol": s["protocol"], "succeeded": s["succeeded"],
                      "failed": s["failed"], "errored": s["errored"], "status": s["status"]}))
    return 0 if ok else 1


# ------------------------------------------------------------------------ report

def read_tsv(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            k, _, v = line.partition("\t")
            out.append((k, v))
    return out


def fmt(v, digits):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    if a is None or b is None or b == 0 or any(isinstance(x, float) and math.isnan(x) for x in (a, b)):
        return None
    return a / b


def median_or_none(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return statistics.median(values) if values else None


def report(results_path, facts_path, params_path):
    recs = []
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                recs.append(json.loads(line))
    facts, params = read_tsv(facts_path), read_tsv(params_path)
    p = dict(params)
    runs = int(p.get("runs", "1"))

    cells = {}  # (proxy, proto) -> list of records
    for r in recs:
        cells.setdefault((r["proxy"], r["proto"]), []).append(r)
    proxies = [x for x in PROXY_ORDER if any(k[0] == x for k in cells)]
    protos = [x for x in PROTO_ORDER if any(k[1] == x for k in cells)]

    med = {}
    for key, rs in cells.items():
        med[key] = {
            "n": len(rs),
            "rps": median_or_none([r["rps"] for r in rs]),
            "p50_ms": median_or_none([r["p50_ms"] for r in rs]),
            "p99_ms": median_or_none([r["p99_ms"] for r in rs]),
            "rss_mib": median_or_none([r["rss_kb"] / 1024.0 for r in rs if r.get("rss_kb")]),
            "cpu_ms_per_1k": median_or_none([r["cpu_ms"] * 1000.0 / r["requests"] for r in rs
                                            if r.get("cpu_ms") is not None and r.get("requests")]),
            "errors": sum(r["errors"] for r in rs),
            "requests": sum(r["requests"] for r in rs),
            "nproc": rs[-1].get("rss_procs"),
            "origin_conns": median_or_none([r.get("origin_conns") for r in rs]),
        }

    o = []
    o.append(f"# Spillway proxy comparison — {p.get('timestamp', '?')}")
    o.append("")
    o.append("All numbers come from one invocation of `bench/proxy-compare.sh` on one machine. "
             "The load generator, the origin and the proxy under test share the same "
             f"{dict(facts).get('nproc', '?')} CPU(s), so absolute numbers mostly measure the machine; "
             "compare the **ratios within this report**, not numbers across machines or runs.")
    o.append("")
    o.append("## Machine")
    o.append("")
    o.append("| fact | value |")
    o.append("| --- | --- |")
    for k, v in facts:
        o.append(f"| {k} | {v.replace('|', '/')} |")
    o.append("")
    o.append("## Parameters")
    o.append("")
    o.append("| parameter | value |")
    o.append("| --- | --- |")
    for k, v in params:
        o.append(f"| {k} | {v.replace('|', '/') if v else '(empty)'} |")
    o.append("")

    title = "Results" if runs == 1 else f"Results (median per cell over {runs} runs)"
    o.append(f"## {title}")
    o.append("")
    req_h = "requests" if runs == 1 else "requests (all runs)"
    err_h = "errors" if runs == 1 else "errors (all runs)"
    o.append(f"| proxy | protocol | requests/s | p50 (ms) | p99 (ms) | CPU ms / 1000 rq | RSS after run (MiB) "
             f"| {req_h} | {err_h} | new origin conns |")
    o.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for proto in protos:
        for px in proxies:
            m = med.get((px, proto))
            if not m:
                continue
            err = f"**{m['errors']:,}**" if m["errors"] else "0"
            o.append(f"| {PROXY_LABEL[px]} | {PROTO_LABEL[proto]} | {fmt(m['rps'], 0)} | "
                     f"{fmt(m['p50_ms'], 3)} | {fmt(m['p99_ms'], 3)} | {fmt(m['cpu_ms_per_1k'], 1)} | "
                     f"{fmt(m['rss_mib'], 1)} | "
                     f"{m['requests']:,} | {err} | {fmt(m['origin_conns'], 0)} |")
    o.append("")
    o.append("*CPU ms / 1000 rq*: user + system CPU time of the proxy's processes (all threads, from "
             "`/proc/<pid>/stat`) during the measured step, per 1000 requests it answered. "
             "RSS is the sum of `VmRSS` (from `/proc/<pid>/status`) over the proxy's processes, read right "
             "after the measured run: nginx = master + 2 workers (shared pages are counted once per process), "
             "HAProxy = one process with 2 threads, edge = one JVM. "
             "Latency percentiles: wrk's own histogram for HTTP/1.1; for h2c computed (nearest rank) "
             "from h2load's per-request `--log-file`, over responses with status 2xx/3xx. "
             "*new origin conns*: connections the origin accepted during the measured step (from its "
             "`stub_status`); a small number means the proxy reused its upstream keep-alive connections, "
             "a number close to *requests* means it did not.")
    if "direct" in proxies:
        o.append("")
        o.append("The *none (direct to origin)* row is wrk against the origin itself: the ceiling of this "
                 "origin + load generator on this machine. Its RSS is the origin's; its new origin "
                 "connections are wrk's own.")
    if any(m["errors"] for m in med.values()):
        o.append("")
        o.append("**Some cells saw errors** (non-2xx/3xx responses, socket errors, timeouts or failed streams): "
                 "treat those cells as suspect; details are in the per-run table below.")
    o.append("")

    others = [x for x in proxies if x not in ("edge", "direct")]
    if "edge" in proxies and others:
        o.append("## Ratios (edge / other, from the medians above)")
        o.append("")
        o.append("| protocol | metric | " + " | ".join(f"edge / {PROXY_LABEL[x]}" for x in others) + " |")
        o.append("| --- | --- | " + " | ".join("---:" for _ in others) + " |")
        metrics = [("rps", "requests/s (higher is better)"), ("p50_ms", "p50 latency (lower is better)"),
                   ("p99_ms", "p99 latency (lower is better)"),
                   ("cpu_ms_per_1k", "CPU per 1000 requests (lower is better)"), ("rss_mib", "RSS (lower is better)")]
        for proto in protos:
            e = med.get(("edge", proto))
            for key, label in metrics:
                row = []
                for x in others:
                    oth = med.get((x, proto))
                    r = ratio(e[key] if e else None, oth[key] if oth else None)
                    row.append(fmt(r, 2) + ("x" if r is not None else ""))
                o.append(f"| {PROTO_LABEL[proto]} | {label} | " + " | ".join(row) + " |")
        o.append("")
    else:
        o.append("(No edge/other ratios: the edge was not part of this run, or no other proxy was.)")
        o.append("")

    o.append("## Per-run values")
    o.append("")
    o.append("| run | order | proxy | protocol | requests/s | p50 (ms) | p99 (ms) | max (ms) | RSS (MiB) | requests "
             "| errors | origin requests | new origin conns |")
    o.append("| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for r in sorted(recs, key=lambda r: (r["run"], r["order"], PROTO_ORDER.index(r["proto"]))):
        ed = ", ".join(f"{k} {v:,}" for k, v in r.get("error_detail", {}).items()) or "0"
        o.append(f"| {r['run']} | {r['order']} | {PROXY_LABEL[r['proxy']]} | {r['proto']} | {fmt(r['rps'], 0)} | "
                 f"{fmt(r['p50_ms'], 3)} | {fmt(r['p99_ms'], 3)} | {fmt(r.get('max_ms'), 1)} | "
                 f"{fmt(r['rss_kb'] / 1024.0 if r.get('rss_kb') else None, 1)} | {r['requests']:,} | {ed} | "
                 f"{fmt(r.get('origin_requests'), 0)} | {fmt(r.get('origin_conns'), 0)} |")
    o.append("")
    print("\n".join(o))
    return 0


def parse_meta(items):
    """--meta key=value pairs from the shell; integer-looking values become ints."""
    meta = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep:
            die(f"--meta expects key=value, got {item!r}")
        meta[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("wrk"); a.add_argument("out"); a.add_argument("--meta", action="append", default=[])
    a = sub.add_parser("h2load"); a.add_argument("out"); a.add_argument("log")
    a.add_argument("--meta", action="append", default=[])
    a = sub.add_parser("h2check"); a.add_argument("out"); a.add_argument("expected", type=int)
    sub.add_parser("line")
    a = sub.add_parser("report"); a.add_argument("results"); a.add_argument("facts"); a.add_argument("params")
    ns = ap.parse_args()
    if ns.cmd in ("wrk", "h2load"):
        rec = parse_wrk(ns.out) if ns.cmd == "wrk" else parse_h2load(ns.out, ns.log)
        rec.update(parse_meta(ns.meta))
        print(json.dumps(rec))
        return 0
    if ns.cmd == "line":
        r = json.load(sys.stdin)
        print(f"    -> {r['rps']:,.0f} req/s  p50 {r['p50_ms']:.3f} ms  p99 {r['p99_ms']:.3f} ms  "
              f"rss {r['rss_kb'] / 1024:.1f} MiB ({r['rss_procs']} procs)  requests {r['requests']:,}  "
              f"errors {r['errors']}  origin: {r.get('origin_requests', 0):,} requests on "
              f"{r.get('origin_conns', 0):,} new conns")
        return 0
    if ns.cmd == "h2check":
        return h2check(ns.out, ns.expected)
    return report(ns.results, ns.facts, ns.params)


if __name__ == "__main__":
    sys.exit(main())
