-- wrk "done" hook for bench/proxy-compare.sh.
-- Prints exactly one line, prefixed with WRK_JSON, holding the run summary as
-- JSON. Latency values from wrk are microseconds; they are passed through
-- unchanged and converted by bench/lib/benchlib.py.

done = function(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  local rps = 0
  if secs > 0 then rps = summary.requests / secs end
  io.write(string.format(
    'WRK_JSON {"duration_us":%d,"requests":%d,"bytes":%d,"rps":%.3f,' ..
    '"lat_min_us":%d,"lat_mean_us":%.3f,"lat_max_us":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d}\n',
    summary.duration, summary.requests, summary.bytes, rps,
    latency.min, latency.mean, latency.max,
    latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9),
    e.connect, e.read, e.write, e.status, e.timeout))
end
