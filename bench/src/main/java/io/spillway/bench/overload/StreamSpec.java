package io.spillway.bench.overload;

/** One request stream of the generator: a path at a constant rate between two times of the run. */
record StreamSpec(String name, String path, double rate, double fromS, double toS) {
  long count() {
    return (long) Math.floor((toS - fromS) * rate);
  }
}
