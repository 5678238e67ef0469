/**
 * The resource monitors: JVM heap, cgroup memory, host and container CPU, injected files, buffer
 * memory, GC pressure and event-loop lag, each reading through an injected source (control path).
 */
package io.spillway.edge.overload.monitor;
